"""Answer without an LLM: the sentence, table row or list of steps of the top chunks that answers the
question, with citations; or, when nothing there answers it, an abstention that says why."""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np

from chalicelib import languages
from chalicelib.answer import confidence
from chalicelib.answer.answerability import (
    COVERAGE_WEIGHT,
    CROSS_LANGUAGE_ALLOWANCE,
    Checks,
    absent_names,
    checks,
    coverage,
    crosses,
)
from chalicelib.answer.candidates import Candidate, Choice, margin
from chalicelib.answer.citing import cited_text, shaped
from chalicelib.answer.codes import identifier_bonus
from chalicelib.answer.reading import read_question
from chalicelib.answer.signals import signals_of
from chalicelib.answer.word_weights import held_stems, missing, rarity, weight_max
from chalicelib.enrichment.vocabulary import HUB_TYPES
from chalicelib.languages import DEFAULT as DEFAULT_LANGUAGES
from chalicelib.models.api import AnswerResponse, RetrieveRequest, answer_from
from chalicelib.models.records import StoredChunk
from chalicelib.protocols import Embedder, Translator
from chalicelib.question import answer_kinds
from chalicelib.question.query import Query, understand
from chalicelib.quotes import Unit, heading_above, scoring_texts, stored_vectors, units
from chalicelib.retrieve.results import Retrieval, Retrieved, require_question
from chalicelib.text import stem, terms

if TYPE_CHECKING:
    from chalicelib.access.keys import KeyPolicy

# another language's sentences are ~0.05 less alike to a question that means the same (docs/evaluation.md)
CROSS_LANGUAGE_GAP = 0.05
KIND_BONUS = 0.03  # a unit that holds the kind of answer asked for (a price, a date, a number) is preferred
OVERLAP_WEIGHT = 0.1  # x the share of the question's stems a unit holds
RANK_PENALTY = 0.04  # per rank of the unit's chunk
LIKELY = 0.5  # an answer this sure is likelier right than wrong: held back, it points to its passage
CHUNKS = 3  # the top chunks an answer may quote
PART_CHUNKS = 2  # more of them for a question that asks several things (each part may be in its own)
# the evidence grows with how far the best unit stands above the best unit of any other document (at most
# MARGIN_CAP): two documents that answer about equally well make an answer a guess (docs/evaluation.md)
MARGIN_WEIGHT = 1.0
MARGIN_CAP = 0.15
# another language's sentence gets CROSS_LANGUAGE_ALLOWANCE when the question's language has no documents
# (every answer crosses languages there); beside documents in the question's own language, less
ALONGSIDE_ALLOWANCE = 0.05
TRANSLATION_ALLOWANCE = 0.03
KIND_MARGIN = 0.12  # the best unit that holds the kind asked for wins when it is this close to the best
# a count answered by a number in the unit asked ("320 litros") is rivalled only by other numbers in that unit,
# its margin capped lower than MARGIN_CAP: at 0.15 XQuAD's unanswerable questions abstained 0.5 less (another
# paragraph's "24 points"); at 0.08 the company set keeps every count it gained (docs/evaluation.md)
COUNTED_MARGIN_CAP = 0.08
# a changelog line names a bit of everything ("Nuevo error TW-6120 al duplicar un ticket"): it answers what
# changed and when, not what an error means or what to do about it
HUB_PENALTY = 0.05


@dataclass(frozen=True)
class Judged:
    """One reading answered: its choice, the question's checks on it, its signals and its confidence."""

    choice: Choice
    found: Checks
    signals: confidence.Signals
    sure: float

    def unanswered(self, lang: str) -> str:
        """What an answer held back says: not sure, and where the passage it would have quoted is; found
        nothing, when no passage names what the question names or the answer is likelier wrong than right."""
        say = languages.or_fallback(lang)
        if self.found.unmentioned or self.found.absent or self.sure < LIKELY:
            return say.no_answer
        return say.note("unsure_answer", title=self.choice.best.chunk.title)


class ExtractiveAnswerer:
    def __init__(
        self,
        retrieval: Retrieval,
        embedder: Embedder,
        max_sentences: int = 3,
        chunks: int | None = None,
        min_confidence: float | None = None,
        languages: tuple[str, ...] = DEFAULT_LANGUAGES,
        model: confidence.Model | None = None,
        translator: Translator | None = None,  # puts a follow-up read as typed into the languages searched
    ) -> None:
        self.retrieval = retrieval
        self.embedder = embedder
        self.max_sentences = max_sentences
        self.chunks = CHUNKS if chunks is None else chunks
        self.model = model or confidence.shipped()
        self.min_confidence = self.model.threshold if min_confidence is None else min_confidence
        self.languages = languages
        self.translator = translator

    def answer(self, request: RetrieveRequest, access: KeyPolicy | None) -> AnswerResponse:
        require_question(request)
        return self.answer_retrieved(request, self.retrieval.run(request, access))

    def answer_retrieved(self, request: RetrieveRequest, retrieved: Retrieved) -> AnswerResponse:
        return self.answer_with_signals(request, retrieved)[0]

    def answer_with_signals(
        self, request: RetrieveRequest, retrieved: Retrieved
    ) -> tuple[AnswerResponse, confidence.Signals | None]:
        """The answer, and the signals its confidence was read from (None: nothing could be quoted)."""
        response = retrieved.response
        timings = dict(response.timings_ms)
        t = time.perf_counter()
        query = read_question(request, retrieved, self.languages, self.translator)
        vector = retrieved.query_vector
        if vector is None:  # a bootstrap map has no query vector of its own
            vector = self.embedder.embed_query(query.text)
        lang = response.lang if languages.get(response.lang) else query.guess
        allowance = CROSS_LANGUAGE_ALLOWANCE if retrieved.broadened else ALONGSIDE_ALLOWANCE
        judged = self._judged(query, lang, retrieved, vector, allowance)
        notes = list(response.notes)
        picked: list[tuple[StoredChunk, str]] = []
        score = sure = signals = None
        text = languages.or_fallback(lang).no_answer
        if judged:
            weakest = min(judged, key=lambda j: j.sure)
            score, sure, signals = weakest.choice.evidence, weakest.sure, weakest.signals
            if sure >= self.min_confidence:
                quotes = {(c.chunk_id, q): (c, q) for j in judged for c, q in j.choice.picked}
                picked = list(quotes.values())
            else:
                notes.append(weakest.found.first_note or self._unsure(lang, sure))
                text = weakest.unanswered(lang)
        timings["extract"] = round((time.perf_counter() - t) * 1000, 2)
        quoted, citations = cited_text(picked)
        text = quoted if citations else text
        timings["total"] = round(timings.get("total", 0) + timings["extract"], 2)
        answer = answer_from(
            response,
            query.text,
            answer=text,
            answered_by="extractive",
            answered=bool(citations),
            evidence=round(score, 4) if score is not None else None,
            confidence=round(sure, 4) if sure is not None else None,
            extractive=True,
            notes=notes,
            citations=citations,
            timings_ms=timings,
        )
        return answer, signals

    def confidence_of(
        self, request: RetrieveRequest, retrieved: Retrieved
    ) -> tuple[float | None, str | None, str | None]:
        """How sure an answer quoted from ``retrieved``'s chunks would be, why not when it falls short and what
        it says when held back (a generated answer is judged on the passages it cites this way)."""
        query = retrieved.query or understand(request, self.languages)
        vector = (
            retrieved.query_vector
            if retrieved.query_vector is not None
            else self.embedder.embed_query(query.text)
        )
        lang = retrieved.response.lang if languages.get(retrieved.response.lang) else query.guess
        allowance = CROSS_LANGUAGE_ALLOWANCE if retrieved.broadened else ALONGSIDE_ALLOWANCE
        judged = self._judged(query, lang, retrieved, vector, allowance)
        if not judged:
            return None, None, None
        weakest = min(judged, key=lambda j: j.sure)
        why = weakest.found.first_note or self._unsure(lang, weakest.sure)
        return weakest.sure, why, weakest.unanswered(lang)

    def _judged(
        self, query: Query, lang: str, retrieved: Retrieved, vector: object, allowance: float
    ) -> list[Judged]:
        """The answer to each thing the question asks (one, or each of its parts: every part must be answered
        for the whole to be), with its checks, signals and confidence; empty when nothing can be quoted."""
        chunks = retrieved.chunks[: self.chunks + (PART_CHUNKS if query.parts else 0)]
        asked = [(query, vector)]
        if query.parts:
            asked = [(query.part(p), self.embedder.embed_query(p)) for p in query.parts]
        out = []
        for reading, read_vector in asked:
            choice = self._choose(reading, lang, chunks, read_vector, allowance)
            if choice is None:
                return []
            found = checks(reading, lang, choice.best.chunk, _shown(choice.picked), retrieved.unmentioned)
            signals = replace(signals_of(reading, lang, choice, found, retrieved), parts=float(len(asked)))
            out.append(Judged(choice, found, signals, self.model.probability(signals)))
        return out

    def _unsure(self, lang: str, sure: float) -> str:
        say = languages.or_fallback(lang)
        shown, under = confidence.apart(sure, self.min_confidence)
        return say.note("not_answered", confidence=shown, threshold=under)

    def _choose(
        self, query: Query, lang: str, chunks: list[StoredChunk], vector: object, allowance: float
    ) -> Choice | None:
        """The question's own reading; when retrieval also asked it in the best chunk's language, the
        translation's reading too: the stronger evidence of the two."""
        choice = self._select(query, query.text, lang, chunks, vector, allowance, measure=query.measure)
        if choice is None:
            return None
        for asked in query.translations:
            if not any(c.lang == asked.lang for c in chunks):
                continue
            # the translation reads its own language's chunks; the others stay as rivals for the margin
            other = self._select(
                query,
                asked.text,
                asked.lang,
                chunks,
                asked.vector,
                among=asked.lang,
                judged_in=lang,
                measure=asked.measure,
            )
            # a machine translation is rough ("¿Cuánto tiempo es la Faro prueba libre?"): its sentence is
            # less alike to the document's than the question in the document's own words would be
            if other is not None and asked.lang == chunks[0].lang:
                other = replace(other, evidence=other.evidence + TRANSLATION_ALLOWANCE)
            if other is not None and other.evidence > choice.evidence:
                choice = other
        return choice

    def _select(
        self,
        query: Query,
        asked: str,
        lang: str,
        chunks: list[StoredChunk],
        vector: object,
        allowance: float = CROSS_LANGUAGE_ALLOWANCE,
        among: str | None = None,
        judged_in: str | None = None,
        measure: str | None = None,
    ) -> Choice | None:
        """The best unit (meaning, shared stems, the kind of answer asked for, chunk rank) and the quotes
        that answer with it (its row and header, its list of steps, or its sentence and close neighbours).
        ``among``: only units of chunks in this language may answer; ``judged_in``: the question's language
        (its names are checked as the verdict will check them), when this reading is a translation;
        ``measure``: what the count asked for is counted in, in this reading's language."""
        pool = [(rank, c, u) for rank, c in enumerate(chunks) for u in units(c.kind, c.content)]
        if not pool:
            return None
        vectors = np.vstack([self._quote_vectors(c) for c in chunks])
        dense = vectors @ np.asarray(vector, dtype=np.float32)
        candidates = self._scored(query, asked, lang, pool, dense)
        eligible = [c for c in candidates if among is None or c.chunk.lang == among]
        if not eligible:
            return None
        # the passages that name what the question names (Monterrey's canteen, not Valencia's), when some do:
        # the others could only be judged unanswered, and are no rival readings either
        if query.names or query.identifiers:
            passages = {c.chunk.chunk_id: c.chunk for c in eligible}.values()
            naming = {p.chunk_id for p in passages if not absent_names(query, judged_in or lang, p)}
            eligible = [c for c in eligible if c.chunk.chunk_id in naming] or eligible
        best, counted = _best_unit(query, lang, eligible, measure)
        # a sibling page (the same page for another plant or country) neither adds to the quote nor rivals it
        rivals = [c for c in candidates if not query.tells_apart(best.chunk.title, c.chunk.title)]
        picked = shaped(query, asked, lang, best, rivals, self.max_sentences)
        # a count is rivalled only by other numbers in its unit
        contenders = [c for c in rivals if c in counted] if counted else rivals
        cap = COUNTED_MARGIN_CAP if counted and measure != answer_kinds.DURATION else MARGIN_CAP
        share = coverage(asked, lang, best.chunk)
        lead = margin(best, contenders, cap)
        added = allowance if crosses(best.chunk.lang, lang) else 0.0
        found = best.cosine + COVERAGE_WEIGHT * share + added + MARGIN_WEIGHT * lead
        runner_up = max(
            (c.score for c in eligible if c is not best and c.unit.quote != best.unit.quote), default=None
        )
        apart = min(MARGIN_CAP, best.score - runner_up) if runner_up is not None else MARGIN_CAP
        return Choice(best, picked, found, asked, lang, lead, share, missing(asked, lang, best, pool), apart)

    def _scored(
        self,
        query: Query,
        asked: str,
        lang: str,
        pool: list[tuple[int, StoredChunk, Unit]],
        dense: np.ndarray,
    ) -> list[Candidate]:
        """Each unit: its cosine to the question, plus the share of the question's stems it holds, plus a
        little when it holds the kind of answer asked for, minus a little per chunk rank; another language's
        units get CROSS_LANGUAGE_GAP."""
        frame = languages.or_fallback(lang).frame_words
        topic = [t for t in terms(asked, lang) if t not in frame]
        topic += [t.replace("-", "") for t in topic if "-" in t]  # non-profit ~ nonprofit
        held = [held_stems(chunk, unit) for _, chunk, unit in pool]
        weight = rarity(held)  # a word every unit of the top chunks shares (their subject) tells little
        stems: dict[str, set[str]] = {}
        out = []
        for i, (rank, chunk, unit) in enumerate(pool):
            code = languages.or_fallback(chunk.lang).code
            if code not in stems:
                stems[code] = set(stem(topic, code))
            asked_stems = stems[code]
            total = sum(weight.get(t, weight_max(weight)) for t in asked_stems)
            overlap = sum(weight.get(t, 1.0) for t in asked_stems & held[i]) / total if total else 0.0
            kind = (
                KIND_BONUS
                if answer_kinds.clearly_holds(query.expects, _kind_text(chunk, unit, query))
                else 0.0
            )
            gap = CROSS_LANGUAGE_GAP if crosses(chunk.lang, lang) else 0.0
            ident = identifier_bonus(query, chunk, unit)
            hub = HUB_PENALTY if chunk.content_type in HUB_TYPES and not _asks_history(query) else 0.0
            score = (
                float(dense[i]) + OVERLAP_WEIGHT * overlap - RANK_PENALTY * rank + gap + kind + ident - hub
            )
            out.append(Candidate(rank, chunk, unit, float(dense[i]), score, overlap))
        return out

    def _quote_vectors(self, chunk: StoredChunk) -> np.ndarray:
        """The chunk's quote vectors as stored at index time; embedded now only for chunks indexed without."""
        texts = scoring_texts(chunk.section_title, chunk.kind, chunk.content)
        space = self.embedder.space
        stored = stored_vectors(chunk, space)
        if stored is not None and len(stored) == len(texts):
            return stored
        if not texts:
            return np.zeros((0, space.dim), dtype=np.float32)
        return np.asarray(self.embedder.embed_documents(texts), dtype=np.float32)


def _asks_history(query: Query) -> bool:
    """The question asks about versions or changes (a changelog answers it)."""
    return query.expects == "version" or (query.intent is not None and query.intent.name == "history")


def _best_unit(
    query: Query, lang: str, eligible: list[Candidate], measure: str | None
) -> tuple[Candidate, list[Candidate]]:
    """The unit that answers, and the units that hold a number in the unit asked. The best scored; for a
    question that asks for an amount, a date or a number, the best unit that holds one and shares a word
    with the question when it is nearly as close ("What is the minimum price you pay?": the sentence with
    the price); for a count, the best number in the unit asked wherever it stands in the top chunks
    ("¿Cuántos litros de aceite lleva la prensa?": its 320 litres, not its 400 tonnes)."""
    best = max(eligible, key=lambda c: c.score)
    counted = [c for c in eligible if _counts(measure, lang, c)] if measure else []
    if counted:
        return max(counted, key=lambda c: c.score), counted
    # a unit that holds an amount but shares no word with the question ("dos bebidas gratis y un 30 % de
    # descuento" for "How much does the espresso machine cost?") says nothing about what was asked; across
    # languages words cannot be compared
    holders = [
        c
        for c in eligible
        if answer_kinds.clearly_holds(query.expects, _kind_text(c.chunk, c.unit, query))
        and (c.overlap > 0 or crosses(c.chunk.lang, lang))
    ]
    if holders and best not in holders:
        held = max(holders, key=lambda c: c.score)
        best = held if held.score >= best.score - KIND_MARGIN else best
    return best, counted


def _shown(picked: list[tuple[StoredChunk, str]]) -> str:
    """The quotes as a reader sees them: each under the heading its citation shows."""
    return "\n".join(f"{heading_above(c.content, q) or c.section_title}\n{q}" for c, q in picked)


def _kind_text(chunk: StoredChunk, unit: Unit, query: Query) -> str:
    """What tells whether a unit holds the kind of answer asked: the unit, its table's header (the unit or the
    currency of a bare number: "Precio (EUR)"), and for a version the heading above it (a changelog's
    "## 4.4.0")."""
    text = f"{unit.header}\n{unit.quote}" if unit.header else unit.quote
    if query.expects == "version":
        text = f"{heading_above(chunk.content, unit.quote) or chunk.section_title}\n{text}"
    return text


def _counts(measure: str, lang: str, candidate: Candidate) -> bool:
    """The candidate holds a number counted in ``measure`` (a unit's word in ``lang``; a span of time in any
    language)."""
    if measure != answer_kinds.DURATION and crosses(candidate.chunk.lang, lang):
        return False
    return answer_kinds.measures(measure, lang, candidate.unit.quote)
