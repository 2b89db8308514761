"""Whether the passage chosen to answer a question answers it: the evidence of its best sentence, and what
the question itself demands of an answer (the kind of answer it asks for, the names it is about).

A similarity scale alone cannot tell "answers it in other words" from "is about something else": e5 puts
both at 0.85-0.95. What the question asks for can: "How much does the espresso machine cost?" is not
answered by a sentence without an amount, nor "¿Quién es el director general?" by a passage that names no
director, nor a question about Nespresso by a store that never mentions it (docs/evaluation.md, company set).
"""

from __future__ import annotations

from dataclasses import dataclass

from chalicelib import languages
from chalicelib.models.records import StoredChunk
from chalicelib.question import answer_kinds
from chalicelib.question.names import mentioned
from chalicelib.question.query import Query
from chalicelib.text import fold, stem, terms, words

COVERAGE_WEIGHT = 0.2  # evidence = best sentence's cosine + this x share of the question's stems in its chunk
# XQuAD questions against their paragraph in the other language (docs/evaluation.md): the answering
# sentence's cosine is ~0.05 lower (median 0.83 vs 0.88) and its chunk shares a sixth of the question's
# stems instead of three quarters; the evidence threshold that abstains on 10 % of answerable questions
# is 0.80 instead of 0.95
CROSS_LANGUAGE_ALLOWANCE = 0.14  # added to another language's evidence


@dataclass(frozen=True)
class Verdict:
    answered: bool
    evidence: float
    note: str | None = None  # why not, in the question's language


def crosses(chunk_lang: str, lang: str) -> bool:
    """Text in a known language other than the question's (undetected text is neutral)."""
    return chunk_lang != lang and bool(languages.get(chunk_lang)) and bool(languages.get(lang))


def evidence(
    asked: str, lang: str, chunk: StoredChunk, cosine: float, allowance: float = CROSS_LANGUAGE_ALLOWANCE
) -> float:
    """How strongly the best sentence answers the question ``asked`` (in ``lang``): its cosine plus
    COVERAGE_WEIGHT x the share of the question's stems that its chunk holds (names, numbers and terms of the
    question found in the passage; not its title, which every chunk of a document shares). Calibrated on
    XQuAD questions asked with and without their paragraph in the pool. A chunk in another language shares
    few stems: it gets CROSS_LANGUAGE_ALLOWANCE. (Leaving out the words that frame a question, "¿Cuánto
    tiempo tengo...?", was tried: it lost XQuAD answers at matched abstention; docs/evaluation.md.)"""
    chunk_lang = chunk.lang if languages.get(chunk.lang) else lang
    asked_stems = set(stem(terms(asked, lang), lang))
    found = set(stem(terms(chunk.content, chunk_lang), chunk_lang))
    added = allowance if crosses(chunk.lang, lang) else 0.0
    return cosine + COVERAGE_WEIGHT * _share(asked_stems, found) + added


def _share(asked: set[str], found: set[str]) -> float:
    return len(asked & found) / len(asked) if asked else 0.0


def judge(
    query: Query,
    lang: str,
    chunk: StoredChunk,
    quoted: str,
    score: float,
    threshold: float,
    unmentioned: tuple[str, ...] = (),
) -> Verdict:
    """Answered only when the evidence reaches the threshold, no name of the question is one the caller's
    documents never mention, every name is in the passage, and the quote holds the kind of answer asked."""
    say = languages.or_fallback(lang)
    missing = [n for n in (*query.names, *query.identifiers) if n in unmentioned]
    if missing:
        return Verdict(False, score, say.note("not_mentioned", names=_listed(missing)))
    absent = absent_names(query, lang, chunk)
    if absent:
        return Verdict(False, score, say.note("not_in_passage", names=_listed(absent)))
    shown = f"{chunk.section_title}\n{quoted}"
    if not answer_kinds.holds(query.expects, shown, query.names, query.measure, lang):
        return Verdict(False, score, say.note("no_kind", kind=say.name_of(query.expects or "")))
    unnamed = _role_unnamed(query, lang, chunk, shown)
    if unnamed:  # "the head of finance is Laura" for "Who is the head of marketing?"
        return Verdict(False, score, say.note("not_in_passage", names=_listed([unnamed])))
    if score < threshold:
        return Verdict(
            False, score, say.note("not_answered", evidence=f"{score:.3f}", threshold=f"{threshold:.3f}")
        )
    return Verdict(True, score)


def _role_unnamed(query: Query, lang: str, chunk: StoredChunk, shown: str) -> str | None:
    """A question about who holds a role ("¿Quién es el director general?", "Who is the head of sales?"):
    the quote that answers it names that role, or a word of it or of the question that is no name ("the
    Normans' main enemy": the Normans), and what the role is of ("the head of marketing" is not "the head of
    finance"), not only some person or other. Returns what it does not name, as the question words it (None:
    nothing missing). Other who-questions ("Who fumbled the ball?") are not held to it, nor are quotes in
    another language."""
    asks = languages.or_fallback(lang).role_question
    if query.expects != "person" or crosses(chunk.lang, lang) or asks is None:
        return None
    found = asks.search(query.folded)
    if found is None:
        return None
    frame = languages.or_fallback(lang).frame_words
    present = set(stem(terms(shown, lang), lang))
    said = [t for t in terms(found.group("role"), lang) if t not in frame]  # names too: "Prime Minister"
    said += [t for t in terms(query.text, lang) if t not in frame and t not in query.name_words]
    if said and not set(stem(said, lang)) & present:
        return _as_asked(query.text, found.group("role"))
    of = found.group("of") or ""  # its names are checked as every name of the question is
    whose = [t for t in terms(of, lang) if t not in frame and t not in query.name_words]
    if whose and not set(stem(whose, lang)) & present:
        return _as_asked(query.text, of)
    return None


def _as_asked(question: str, folded_part: str) -> str:
    """The words of the question a folded part of it came from, as the question wrote them."""
    wanted = words(folded_part)
    written = question.split()
    for start in range(len(written)):
        for end in range(start + 1, len(written) + 1):
            if words(fold(" ".join(written[start:end]))) == wanted:
                return " ".join(written[start:end]).strip("¿?¡!.,;:")
    return folded_part.strip()


def absent_names(query: Query, lang: str, chunk: StoredChunk) -> list[str]:
    """The question's names and identifiers that ``chunk`` does not mention; across languages names change
    form ("Count of Melfi", "conde de Melfi"): only identifiers must be there."""
    named = query.identifiers if crosses(chunk.lang, lang) else (*query.names, *query.identifiers)
    return [n for n in named if not any(mentioned(f, chunk) for f in query.forms(n))]


def _listed(names: list[str]) -> str:
    return ", ".join(f"«{n}»" for n in names)
