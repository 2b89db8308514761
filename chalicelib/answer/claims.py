"""A generated answer held to what its citations say: each sentence must cite a source whose quote supports
it (its numbers, names and identifiers occur in that quote), and the whole must pass the checks an
extractive answer passes (no name the documents never mention, the kind of answer the question asks for).
What fails is cut; an answer with nothing left abstains."""

from __future__ import annotations

import re
from dataclasses import dataclass

from chalicelib import languages
from chalicelib.models.api import Citation
from chalicelib.question import answer_kinds
from chalicelib.question.query import Query, identifiers, names
from chalicelib.text import fold, sentences

_MARKER = re.compile(r"\[(\d{1,3})\]")
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_WORD = re.compile(r"\w")


@dataclass(frozen=True)
class Supported:
    answer: str  # the sentences the citations support, markers kept
    citations: list[Citation]  # those the kept sentences cite
    cut: list[str]  # the sentences dropped
    note: str | None = None  # why the answer abstains, in the question's language (None: it answers)


def supported(
    query: Query, lang: str, answer: str, citations: list[Citation], unmentioned: tuple[str, ...]
) -> Supported:
    """The sentences of ``answer`` whose claims the quotes they cite hold; the checks of an extractive
    answer on what remains."""
    say = languages.or_fallback(lang)
    missing = [n for n in (*query.names, *query.identifiers) if n in unmentioned]
    if missing:
        return Supported(
            "", [], [answer], say.note("not_mentioned", names=", ".join(f"«{n}»" for n in missing))
        )
    quotes: dict[int, str] = {}
    for c in citations:
        quotes[c.n] = f"{quotes.get(c.n, '')}\n{c.quote}"
    kept: list[str] = []
    cut: list[str] = []
    for sentence in _claims(answer, quotes):
        cited = [int(n) for n in _MARKER.findall(sentence)]
        evidence = "\n".join(quotes.get(n, "") for n in cited)
        (kept if cited and _holds(sentence, evidence) else cut).append(sentence)
    used = {int(n) for s in kept for n in _MARKER.findall(s)}
    kept_citations = [c for c in citations if c.n in used]
    text = " ".join(kept)
    if not kept:
        return Supported("", [], cut, say.note("unsupported"))
    quoted = "\n".join(c.quote for c in kept_citations)
    if not answer_kinds.holds(query.expects, quoted, query.names, query.measure, lang):
        return Supported("", [], [*kept, *cut], say.note("no_kind", kind=say.name_of(query.expects or "")))
    return Supported(text, kept_citations, cut)


def _claims(answer: str, quotes: dict[int, str]) -> list[str]:
    """The answer's sentences, a bare "[1]" after a sentence joined to it ("… al mes. [1]"); an answer that
    opens with bare markers (a terse model pointing at its sources) says what their quotes say, or nothing."""
    out: list[str] = []
    for sentence in sentences(answer):
        cited = list(dict.fromkeys(int(n) for n in _MARKER.findall(sentence)))
        if not cited or _WORD.search(_MARKER.sub(" ", sentence)):
            out.append(sentence)
        elif out:
            out[-1] = f"{out[-1]} {sentence}"
        else:
            out.extend(f"{' '.join(quotes[n].split())} [{n}]" for n in cited if n in quotes)
    return out


def _holds(sentence: str, evidence: str) -> bool:
    """Every number, identifier and name the sentence states (beyond its own markers) is in the quotes it
    cites: "El plan Profesional cuesta 59 euros [1]" is not supported by a quote that says 49."""
    claim = _MARKER.sub(" ", sentence)
    folded = fold(evidence)
    stated = [*_NUMBER.findall(claim), *identifiers(claim), *names(claim)]
    return all(fold(s) in folded for s in stated)
