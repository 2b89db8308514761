"""The signals an extractive answer leaves for its confidence: read off the chosen unit, the checks the
question puts to its passage, and what retrieval found (answer/confidence.py turns them into P(right))."""

from __future__ import annotations

import math
import re
from typing import TYPE_CHECKING

from chalicelib import languages
from chalicelib.answer.answerability import Checks, crosses
from chalicelib.answer.candidates import Candidate, Choice
from chalicelib.answer.codes import defines
from chalicelib.answer.confidence import Signals
from chalicelib.question import answer_kinds
from chalicelib.question.query import Query
from chalicelib.quotes import heading_above
from chalicelib.text import fold, stem, terms

if TYPE_CHECKING:
    from chalicelib.models.api import Item
    from chalicelib.retrieve.results import Retrieved


def signals_of(query: Query, lang: str, choice: Choice, found: Checks, retrieved: Retrieved) -> Signals:
    """One answer's signals: ``choice`` the unit and quotes chosen, ``found`` the question's checks on its
    passage, ``retrieved`` the retrieval it was chosen from."""
    best = choice.best
    quoted = "\n".join(q for _, q in choice.picked)
    item = next((i for i in retrieved.response.items if i.chunk_id == best.chunk.chunk_id), None)
    scores = item.scores if item is not None else {}
    items = retrieved.response.items
    unit_kind: str = best.unit.kind if best.unit.kind in ("row", "item") else "sentence"
    if best.chunk.kind == "code":
        unit_kind = "code"
    return Signals(
        cosine=best.cosine,
        margin=choice.margin,
        apart=choice.apart,
        coverage=choice.coverage,
        missing=choice.missing,
        overlap=best.overlap,
        title_overlap=_title_overlap(choice.asked, choice.lang, best.chunk.title, best.chunk.heading_path),
        crosses=float(crosses(best.chunk.lang, lang)),
        translated=float(choice.asked != query.text),
        rank=float(best.rank),
        in_dense=float("dense" in scores),
        in_keyword=float("bm25" in scores),
        dense_first=float(_first(items, "dense") == best.chunk.chunk_id),
        keyword_first=float(_first(items, "bm25") == best.chunk.chunk_id),
        top_gap=_gap(items),
        expects=query.expects,
        kind_missing=float(found.kind_missing is not None and query.expects is not None),
        kind_clear=float(answer_kinds.clearly_holds(query.expects, quoted)),
        names_absent=float(found.absent is not None),
        unmentioned=float(found.unmentioned is not None),
        role_unnamed=float(found.role_unnamed is not None),
        identifier_held=float(any(fold(i) in fold(quoted) for i in query.identifiers)),
        numbers_missing=_numbers_absent(
            query.text, [best.chunk.title, *best.chunk.heading_path, best.chunk.content]
        ),
        numbers_unquoted=_numbers_absent(query.text, [best.chunk.title, _heading(best), quoted]),
        identifier_defined=float(defines(query.identifiers, best.chunk, best.unit)),
        unit_kind=unit_kind,
        howto=float(query.intent is not None and query.intent.name == "how-to"),
        steps=float(len(choice.picked) > 1 and best.unit.kind == "item"),
        # how much the question says: a follow-up read by its typed words says what its thread searched
        terms=math.log1p(len(terms(query.thread or query.text, query.guess))),
        quotes=float(len(choice.picked)),
        rerank=scores.get("rerank"),
    )


def _title_overlap(asked: str, lang: str, title: str, headings: list[str]) -> float:
    """The share of the question's stems in the document's title and the section path of its chunk."""
    code = languages.or_fallback(lang).code
    wanted = set(stem(terms(asked, lang), code))
    if not wanted:
        return 0.0
    held = set(stem(terms(" ".join([title, *headings]), lang), code))
    return len(wanted & held) / len(wanted)


def _first(items: list[Item], score: str) -> str | None:
    """The chunk id of the item with the best ``score`` (dense, bm25) among the retrieved, if any has one."""
    scored = [i for i in items if score in i.scores]
    return max(scored, key=lambda i: i.scores[score]).chunk_id if scored else None


def _gap(items: list[Item]) -> float:
    """How far the first retrieved chunk's fused score stands above the second's, as a share of the first."""
    if len(items) < 2 or items[0].score <= 0:
        return 1.0
    return max(0.0, (items[0].score - items[1].score) / items[0].score)


_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")


def _numbers_absent(question: str, texts: list[str]) -> float:
    """The share of the numbers the question names ("en 2022", "100 Gbps", "Q2") that ``texts`` do not hold:
    its passage with title and headings (a figure for another year or size answers a question the documents
    do not), or its quote with heading and title (the passage may name 2022 in passing while the figure
    quoted is 2024's)."""
    asked = set(_NUMBER.findall(question))
    if not asked:
        return 0.0
    return len(asked - set(_NUMBER.findall(" ".join(texts)))) / len(asked)


def _heading(best: Candidate) -> str:
    """The heading the best unit sits under (its chunk's section when the chunk holds one)."""
    return heading_above(best.chunk.content, best.unit.quote) or best.chunk.section_title
