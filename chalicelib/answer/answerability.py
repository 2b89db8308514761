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
class Checks:
    """What the question demands of the passage that answers it, each check and the note a user reads when
    it fails (in the question's language). They are signals of the answer confidence, not gates."""

    unmentioned: str | None = None  # a name no document the caller may read mentions
    absent: str | None = None  # a name the passage does not mention
    kind_missing: str | None = None  # the kind of answer asked for is not in the quote
    role_unnamed: str | None = None  # a who-question's role is not what the quote names

    @property
    def first_note(self) -> str | None:
        """Why the answer is doubtful, the strongest reason first (None: every check holds)."""
        return self.unmentioned or self.absent or self.kind_missing or self.role_unnamed


def crosses(chunk_lang: str, lang: str) -> bool:
    """Text in a known language other than the question's (undetected text is neutral)."""
    return chunk_lang != lang and bool(languages.get(chunk_lang)) and bool(languages.get(lang))


def coverage(asked: str, lang: str, chunk: StoredChunk) -> float:
    """The share of the question's stems (``asked``, in ``lang``) that the chunk holds: its names, numbers and
    terms found in the passage (not its title, which every chunk of a document shares)."""
    chunk_lang = chunk.lang if languages.get(chunk.lang) else lang
    asked_stems = set(stem(terms(asked, lang), lang))
    found = set(stem(terms(chunk.content, chunk_lang), chunk_lang))
    return _share(asked_stems, found)


def evidence(
    asked: str, lang: str, chunk: StoredChunk, cosine: float, allowance: float = CROSS_LANGUAGE_ALLOWANCE
) -> float:
    """How strongly the best sentence answers the question ``asked`` (in ``lang``): its cosine plus
    COVERAGE_WEIGHT x the share of the question's stems that its chunk holds. A chunk in another language
    shares few stems: it gets CROSS_LANGUAGE_ALLOWANCE. One signal of the answer confidence among others."""
    added = allowance if crosses(chunk.lang, lang) else 0.0
    return cosine + COVERAGE_WEIGHT * coverage(asked, lang, chunk) + added


def _share(asked: set[str], found: set[str]) -> float:
    return len(asked & found) / len(asked) if asked else 0.0


def checks(
    query: Query, lang: str, chunk: StoredChunk, quoted: str, unmentioned: tuple[str, ...] = ()
) -> Checks:
    """The question's demands on the chosen passage: no name of the question is one the caller's documents
    never mention, every name is in the passage, the quote holds the kind of answer asked, and a who-question's
    quote names its role."""
    say = languages.or_fallback(lang)
    missing = [n for n in (*query.names, *query.identifiers) if n in unmentioned]
    absent = absent_names(query, lang, chunk)
    shown = f"{chunk.section_title}\n{quoted}"
    held = answer_kinds.holds(query.expects, shown, query.names, query.measure, lang)
    unnamed = _role_unnamed(query, lang, chunk, shown)
    return Checks(
        unmentioned=say.note("not_mentioned", names=_listed(missing)) if missing else None,
        absent=say.note("not_in_passage", names=_listed(absent)) if absent else None,
        kind_missing=None if held else say.note("no_kind", kind=say.name_of(query.expects or "")),
        role_unnamed=say.note("not_in_passage", names=_listed([unnamed])) if unnamed else None,
    )


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
