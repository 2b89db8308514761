"""What an extractive answer quotes around its best unit, and the quotes as one cited text.

- A table row: the row the question names (a plan, a product, a country) with its header; the whole table
  (up to TABLE_ROWS rows) when the question names no row ("¿Cuánto cuesta Faro?" wants every plan).
- A list item, for a how-to question: every item of its list, in order (an answer of one step of four is
  not an answer).
- A sentence: it, and the sentences close to it that share the question's words; a filler sentence
  ("En Cafetal Norte queremos que disfrutes cada taza.") is never quoted for being near in meaning alone.
"""

from __future__ import annotations

import re

from chalicelib import languages
from chalicelib.answer.answerability import crosses
from chalicelib.answer.candidates import Candidate
from chalicelib.models.api import Citation
from chalicelib.models.records import StoredChunk
from chalicelib.question import ranges
from chalicelib.question.names import alike
from chalicelib.question.query import Query
from chalicelib.quotes import (
    heading_above,
    is_table_line,
    lists_of,
    numbered_lists,
    section_path,
    table_of,
)
from chalicelib.text import fold, stopwords, words

TABLE_ROWS = 12  # a larger table keeps only the rows that answer
MAX_STEPS = 15
STEPS_MARGIN = 0.15  # a list item this close to the best unit's score answers a how-to question with its list
CODE_SPAN = 12  # code lines quoted as one block when they span at most this many lines
SAME_CHUNK_MARGIN = 0.05  # a sentence of the best chunk this close in cosine to the best joins the answer
OTHER_MARGIN = 0.01  # a sentence of another chunk this close in score to the best joins it


def shaped(
    query: Query, asked: str, lang: str, best: Candidate, candidates: list[Candidate], max_sentences: int
) -> list[tuple[StoredChunk, str]]:
    """The quotes that answer around ``best``: its row(s) and header, its list of steps, or its sentences."""
    chunk = best.chunk
    if _asks_how(query):
        steps = _steps(best, candidates)
        if steps:
            return steps
    if best.unit.kind == "row" and chunk.kind == "doc":
        return [(chunk, line) for line in rows(query, asked, best.unit.quote, chunk)]
    opening = _defined(query, best, candidates, max_sentences)
    if opening:
        return opening
    chosen = _sentences(best, candidates, max_sentences, lang, who=query.expects == "person")
    if chunk.kind == "code":
        return _code_span(chunk, [q for c, q in chosen if c.chunk_id == chunk.chunk_id]) + [
            (c, q) for c, q in chosen if c.chunk_id != chunk.chunk_id
        ]
    return chosen


def _steps(best: Candidate, candidates: list[Candidate]) -> list[tuple[StoredChunk, str]]:
    """A how-to question's list: the list of the best list item that is nearly as good as the best unit
    (the steps, not the sentence that introduces them), every item in order. A list outside the best unit's
    section (another document, a sibling section) answers only when about as good as the best unit: "En
    Ajustes > Equipo, pulsa Invitar" is not replaced by the sign-up steps of a getting-started page, nor
    "Ve a Envíos > Nuevo envío..." by the list under "Crear la cuenta". (A list whose own heading names a word
    of the question, within the wider margin, was measured: one question gained on the training folders, one
    lost on the development set.)"""
    within = _path(best)
    items = [
        c
        for c in candidates
        if c.unit.kind == "item"
        and c.score >= best.score - (STEPS_MARGIN if _under(c, best, within) else OTHER_MARGIN)
    ]
    if not items:
        return []
    top = max(items, key=lambda c: (_numbered(c), c.chunk.chunk_id == best.chunk.chunk_id, c.score))
    steps = lists_of(top.chunk.content).get(top.unit.group, [])
    return [(top.chunk, step) for step in steps[:MAX_STEPS]] if len(steps) > 1 else []


def _defined(
    query: Query, best: Candidate, candidates: list[Candidate], max_sentences: int
) -> list[tuple[StoredChunk, str]]:
    """A question that names an identifier and asks nothing in particular of it ("código SUSP-120", "¿Qué es
    el PT-EC?") is answered by the opening of the section the identifier heads: what it is comes first, what
    to do about it after ("SUSP-120 — Servicio suspendido: Qué significa... Qué hace el cliente...")."""
    if not query.identifiers or query.expects is not None or best.chunk.kind == "code":
        return []
    heading = heading_above(best.chunk.content, best.unit.quote) or best.chunk.section_title
    if not any(fold(i) in fold(heading) for i in query.identifiers):
        return []
    same = [c for c in candidates if c.chunk.chunk_id == best.chunk.chunk_id and c.unit.kind == "sentence"]
    under = [
        c for c in same if (heading_above(c.chunk.content, c.unit.quote) or c.chunk.section_title) == heading
    ]
    under.sort(key=lambda c: best.chunk.content.find(c.unit.quote))
    return [(c.chunk, c.unit.quote) for c in under[:max_sentences]]


def _numbered(item: Candidate) -> bool:
    """``item`` is in a numbered list: the steps of a how-to, beside a bulleted list of what one needs."""
    return item.unit.group in numbered_lists(item.chunk.content)


def _path(candidate: Candidate) -> tuple[str, ...]:
    return section_path(candidate.chunk.heading_path, candidate.chunk.content, candidate.unit.quote)


def _under(item: Candidate, best: Candidate, within: tuple[str, ...]) -> bool:
    """``item`` sits in the best unit's section or one of its subsections, in the same document."""
    return item.chunk.document_id == best.chunk.document_id and _path(item)[: len(within)] == within


def _code_span(chunk: StoredChunk, lines: list[str]) -> list[tuple[StoredChunk, str]]:
    """Code lines quoted as the block they span (up to CODE_SPAN lines): a signature and the line three
    below it that holds the value read best together, with what is between them."""
    content = chunk.content
    at = [content.find(line) for line in lines]
    if not lines or min(at) < 0:
        return [(chunk, line) for line in lines]
    start = content.rfind("\n", 0, min(at)) + 1
    last = max(range(len(at)), key=lambda i: at[i])
    end = content.find("\n", at[last] + len(lines[last]))
    span = content[start : end if end >= 0 else len(content)].strip("\n")
    if span.count("\n") + 1 > CODE_SPAN:
        return [(chunk, line) for line in lines]
    return [(chunk, span.strip())]


def _asks_how(query: Query) -> bool:
    return query.asks_steps or (query.intent is not None and query.intent.name == "how-to")


def rows(query: Query, asked: str, row: str, chunk: StoredChunk) -> list[str]:
    """The header and the rows of ``row``'s table that the question names (by a code it holds, by a range, by
    its words); every row when it names none
    (or the table is short and it names several); just ``row`` in a long table that no row is named in."""
    table = table_of(row, chunk.content)
    if table is None:
        return [row]
    header, body = table
    coded = [r for r in body if any(fold(i) in words(fold(r)) for i in query.identifiers)]
    if coded:  # the rows of the codes the question names (ENV-202), not its neighbours (ENV-201)
        return [header, *coded]
    in_range = ranges.rows_holding(f"{query.text} {asked}", body)
    if in_range:
        return [header, *in_range]
    named = _named_rows(_question_words(query, asked), header, body)
    if query.thread and len(named) in (0, len(body)):  # a follow-up's own words name no row: its thread's may
        named = _named_rows(_question_words(query, query.thread), header, body)
    if named and len(named) < len(body):  # and the row that answers best, wherever the words point
        return [header, *(r for r in body if r in named or r == row)]
    if len(body) <= TABLE_ROWS:
        return [header, *body]
    return [header, row]


def _question_words(query: Query, asked: str) -> set[str]:
    """The folded content words of the question and of the reading it was asked in (a translation)."""
    common = stopwords(None)
    return {w for w in words(fold(f"{query.text} {asked}")) if len(w) > 2 and w not in common}


def _named_rows(wanted: set[str], header: str, body: list[str]) -> list[str]:
    """The rows the question's words name most: by their first cell, what a row is about ("Full service |
    79 | …" for "How much does a full service cost?", though "a new tube costs 6 EUR" is in another row's
    notes); else by the words of any cell that the header does not hold."""
    for held in (_key_words, lambda r: _cell_words(r, header)):
        counts = [sum(alike(w, held(r)) for w in wanted) for r in body]
        most = max(counts, default=0)
        if most:
            return [r for r, n in zip(body, counts, strict=True) if n == most]
    return []


def _key_words(row: str) -> set[str]:
    """The words of a row's first cell."""
    return {w for w in words(fold(row.strip().strip("|").split("|")[0])) if len(w) > 2}


def _cell_words(row: str, header: str) -> set[str]:
    """A row's words that tell it apart: not the header's words (every row "has" its column names)."""
    present = set(words(fold(row))) - set(words(fold(header)))
    return {w for w in present if len(w) > 2}


def _sentences(
    best: Candidate, candidates: list[Candidate], max_sentences: int, lang: str, who: bool = False
) -> list[tuple[StoredChunk, str]]:
    """The best sentence, then its strongest neighbours that share the question's words: from the same chunk
    when nearly as close in meaning, from another chunk only when nearly as good overall. ``who``: the question
    asks for a person, so a pronoun for one anywhere in a sentence ("need her approval") points back too."""
    others = sorted((c for c in candidates if c is not best), key=lambda c: -c.score)
    chosen = [best]
    for c in others:
        if len(chosen) >= max_sentences:
            break
        if c.unit.quote == best.unit.quote:
            continue
        if c.overlap == 0 and not crosses(c.chunk.lang, lang):  # filler: near in meaning, shares no word
            continue
        same_chunk = c.chunk.chunk_id == best.chunk.chunk_id
        if (
            same_chunk and c.cosine >= best.cosine - SAME_CHUNK_MARGIN
        ) or c.score >= best.score - OTHER_MARGIN:
            chosen.append(c)
    # a sentence that opens with a pronoun ("He is also the oldest quarterback ...") brings the sentence it
    # points back to, in the same chunk: the quote names who or what it is about
    by_quote = {(c.chunk.chunk_id, c.unit.quote): n for n, c in enumerate(candidates)}
    for c in list(chosen):
        n = by_quote[(c.chunk.chunk_id, c.unit.quote)]
        before = candidates[n - 1] if n > 0 else None
        if (
            before is not None
            and before.chunk.chunk_id == c.chunk.chunk_id
            and (
                _anaphoric(c.unit.quote, c.chunk.lang)
                or (who and _names_by_pronoun(c.unit.quote, c.chunk.lang))
            )
            and before not in chosen
        ):
            chosen.append(before)
    order = {id(c): n for n, c in enumerate(candidates)}
    chosen.sort(key=lambda c: (c.chunk.chunk_id != best.chunk.chunk_id, c.rank, order[id(c)]))
    return [(c.chunk, c.unit.quote) for c in chosen]


def _anaphoric(sentence: str, lang: str) -> bool:
    """Whether a prose sentence opens with a word that points back to the one before it."""
    first = sentence.split(maxsplit=1)[0].strip("\"'«(¿¡").casefold() if sentence.strip() else ""
    return first in languages.or_fallback(lang).anaphors


def _names_by_pronoun(sentence: str, lang: str) -> bool:
    """Whether a sentence speaks of a person by a pronoun anywhere in it ("need her approval")."""
    pronouns = languages.or_fallback(lang).person_pronouns
    return any(w.strip("\"'«»().,;:¿?¡!") in pronouns for w in sentence.casefold().split())


def _terminated(sentence: str) -> str:
    return sentence if sentence[-1:] in ".!?…:;" else sentence + "."


def _as_line(chunk: StoredChunk, quote: str) -> bool:
    """Code lines, table rows and list items stay lines; prose reads as sentences."""
    if chunk.kind == "code" or is_table_line(quote, chunk.content):
        return True
    return any(quote in items for items in lists_of(chunk.content).values())


def cited_text(picked: list[tuple[StoredChunk, str]]) -> tuple[str, list[Citation]]:
    """The quoted units as one text with a [n] marker after each run from the same source, and their
    citations (each with the heading of the section its quote sits in)."""
    citations: list[Citation] = []
    numbers: dict[str, int] = {}
    parts: list[tuple[int, str]] = []
    lines: list[bool] = []
    for chunk, quote in picked:
        n = numbers.setdefault(chunk.chunk_id, len(numbers) + 1)
        citation = Citation.of(n, chunk, quote)
        heading = heading_above(chunk.content, quote)
        citations.append(citation.model_copy(update={"section_title": heading}) if heading else citation)
        as_line = _as_line(chunk, quote)
        shown = _plain(" ".join(quote.split()))
        parts.append((n, quote if chunk.kind == "code" or is_table_line(quote, chunk.content) else shown))
        if not as_line:
            parts[-1] = (n, _terminated(shown))
        lines.append(as_line)
    text = "".join(
        s
        + ("" if i + 1 < len(parts) and parts[i + 1][0] == n else f" [{n}]")
        + ("" if i + 1 == len(parts) else "\n" if "\n" in s or lines[i] or lines[i + 1] else " ")
        for i, (n, s) in enumerate(parts)
    )
    return text, citations


_EMPHASIS = re.compile(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1")


def _plain(prose: str) -> str:
    """A prose quote as a reader reads it: Markdown's bold marks left out ("llevar **una maleta de hasta 23
    kg**"); the citation keeps the quote as written, for the page to find it in its document."""
    return _EMPHASIS.sub(r"\2", prose)
