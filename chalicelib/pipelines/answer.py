"""Answer without an LLM: the sentences of the top chunks that best answer the question, with citations."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

import numpy as np

from chalicelib import languages
from chalicelib.language import detect
from chalicelib.languages import DEFAULT as DEFAULT_LANGUAGES
from chalicelib.models.api import AnswerResponse, Citation, RetrieveRequest, answer_from
from chalicelib.models.records import StoredChunk
from chalicelib.pipelines.types import Retrieval, Retrieved, require_question
from chalicelib.protocols import Embedder
from chalicelib.quotes import decode_vectors, is_table_line, quotable, scoring_texts, table_of
from chalicelib.text import stem, terms

if TYPE_CHECKING:
    from chalicelib.auth import KeyPolicy

TABLE_ROWS = 12  # a larger table keeps only the rows that answer
COVERAGE_WEIGHT = 0.2  # evidence = best sentence's cosine + this x share of the question's stems in its chunk
# XQuAD questions against their paragraph in the other language (docs/evaluation.md): the answering
# sentence's cosine is ~0.05 lower (median 0.83 vs 0.88) and its chunk shares a sixth of the question's
# stems instead of three quarters; the evidence threshold that abstains on 10 % of answerable questions
# is 0.80 instead of 0.95
CROSS_LANGUAGE_GAP = 0.05  # added to another language's sentences when choosing the best one
CROSS_LANGUAGE_ALLOWANCE = 0.14  # added to their evidence


def _terminated(sentence: str) -> str:
    return sentence if sentence[-1:] in ".!?…:;" else sentence + "."


def complete_tables(picked: list[tuple[StoredChunk, str]]) -> list[tuple[StoredChunk, str]]:
    """A quoted row brings its whole table (header first, up to TABLE_ROWS rows): "How much does Marea
    cost?" hit the Growth and Scale rows and left out Starter; a price or plan question wants every row."""
    out: dict[tuple[str, str], StoredChunk] = {}  # insertion-ordered, each (chunk, line) once
    for chunk, quote in picked:
        table = table_of(quote, chunk.content) if chunk.kind == "doc" else None
        lines = [quote] if table is None or len(table[1]) > TABLE_ROWS else [table[0], *table[1]]
        for line in lines:
            if line in chunk.content:
                out.setdefault((chunk.chunk_id, line), chunk)
    return [(chunk, line) for (_, line), chunk in out.items()]


def cited_text(picked: list[tuple[StoredChunk, str]]) -> tuple[str, list[Citation]]:
    """The quoted sentences as one text with a [n] marker after each run from the same source, and their
    citations; prose reads as sentences, code lines and table rows stay lines."""
    citations: list[Citation] = []
    numbers: dict[str, int] = {}
    parts: list[tuple[int, str]] = []
    lines: list[bool] = []
    for chunk, sentence in picked:
        n = numbers.setdefault(chunk.chunk_id, len(numbers) + 1)
        citations.append(Citation.of(n, chunk, sentence))
        as_line = chunk.kind == "code" or is_table_line(sentence, chunk.content)
        parts.append((n, sentence if as_line else _terminated(" ".join(sentence.split()))))
        lines.append(as_line)
    text = "".join(
        s
        + ("" if i + 1 < len(parts) and parts[i + 1][0] == n else f" [{n}]")
        + ("" if i + 1 == len(parts) else "\n" if "\n" in s or lines[i] or lines[i + 1] else " ")
        for i, (n, s) in enumerate(parts)
    )
    return text, citations


def evidence(query: str, lang: str, chunk: StoredChunk, cosine: float) -> float:
    """How strongly the best sentence answers: its cosine to the question plus COVERAGE_WEIGHT x the share
    of the question's stems that its chunk contains (names, numbers and terms of the question found in the
    passage). Calibrated on XQuAD questions asked with and without their paragraph in the pool: cosine alone
    tells 69 % of unanswerable questions apart at 10 % answerable abstained, with coverage 83-88 %.
    A chunk in another language than the question shares few stems: it gets CROSS_LANGUAGE_ALLOWANCE."""
    asked = set(stem(terms(query, lang), lang))
    chunk_lang = chunk.lang if languages.get(chunk.lang) else lang
    found = set(stem(terms(chunk.content, chunk_lang), chunk_lang))
    coverage = len(asked & found) / len(asked) if asked else 0.0
    return cosine + COVERAGE_WEIGHT * coverage + (CROSS_LANGUAGE_ALLOWANCE if _crosses(chunk, lang) else 0.0)


def _crosses(chunk: StoredChunk, lang: str) -> bool:
    """Text in a known language other than the question's: prose, or code whose comments and names are in
    it (a Spanish question about English-commented code). Undetected text is neutral."""
    return chunk.lang != lang and bool(languages.get(chunk.lang)) and bool(languages.get(lang))


def sentence_scores(
    query: str, lang: str, pool: list[tuple[int, StoredChunk, str]], dense: np.ndarray
) -> list[float]:
    """Each (chunk rank, chunk, sentence): its cosine to the question, plus the share of the question's stems
    it holds, minus a little per chunk rank; another language's sentences get CROSS_LANGUAGE_GAP."""
    q_stems: dict[str, set[str]] = {}
    scores = []
    for i, (rank, chunk, sentence) in enumerate(pool):
        code = languages.or_fallback(chunk.lang).code
        if code not in q_stems:
            q_stems[code] = set(stem(terms(query, code), code))
        qs = q_stems[code]
        overlap = len(qs & set(stem(terms(sentence, code), code))) / len(qs) if qs else 0.0
        gap = CROSS_LANGUAGE_GAP if _crosses(chunk, lang) else 0.0
        scores.append(float(dense[i]) + 0.1 * overlap - 0.04 * rank + gap)
    return scores


def _anaphoric(sentence: str, lang: str) -> bool:
    """Whether a prose sentence opens with a word that points back to the one before it."""
    first = sentence.split(maxsplit=1)[0].strip("\"'«(¿¡").casefold() if sentence.strip() else ""
    return first in languages.or_fallback(lang).anaphors


class ExtractiveAnswerer:
    def __init__(
        self,
        retrieval: Retrieval,
        embedder: Embedder,
        max_sentences: int = 3,
        chunks: int = 3,
        min_evidence: dict[str, float] | None = None,
        languages: tuple[str, ...] = DEFAULT_LANGUAGES,
    ) -> None:
        self.retrieval = retrieval
        self.embedder = embedder
        self.max_sentences = max_sentences
        self.chunks = chunks
        self.min_evidence = min_evidence or {}
        self.languages = languages

    def answer(self, request: RetrieveRequest, access: KeyPolicy | None) -> AnswerResponse:
        require_question(request)
        return self.answer_retrieved(request, self.retrieval.run(request, access))

    def answer_retrieved(self, request: RetrieveRequest, retrieved: Retrieved) -> AnswerResponse:
        response = retrieved.response
        timings = dict(response.timings_ms)
        t = time.perf_counter()
        vector = retrieved.query_vector
        if vector is None:  # a bootstrap map has no query vector of its own
            vector = self.embedder.embed_query(request.query or "")
        # the question's language ("auto" and "all" are not one)
        lang = (
            response.lang
            if languages.get(response.lang)
            else detect(request.query or "", self.languages).lang
        )
        chunks = retrieved.chunks[: self.chunks]
        picked, score = self._select(request.query or "", lang, chunks, vector)
        # the question was also asked in the best chunk's language (retrieval translated it): the stronger
        # evidence of the two
        for asked in retrieved.translations:
            if score is not None and asked.lang == chunks[0].lang:
                t_picked, t_score = self._select(asked.text, asked.lang, chunks, asked.vector)
                if t_score is not None and t_score > score:
                    picked, score = t_picked, t_score
        notes = list(response.notes)
        threshold = self.threshold(lang)
        if picked and score is not None and score < threshold:
            notes.append(
                f"not answered: the best sentence's evidence {score:.3f} is under {threshold:.3f}; "
                "the nearest passages are in items"
            )
            picked = []
        timings["extract"] = round((time.perf_counter() - t) * 1000, 2)

        text, citations = cited_text(picked)
        if not citations:
            text = languages.or_fallback(lang).no_answer
        timings["total"] = round(timings.get("total", 0) + timings["extract"], 2)
        return answer_from(
            response,
            request.query or "",
            answer=text,
            answered_by="extractive",
            answered=bool(citations),
            evidence=round(score, 4) if score is not None else None,
            extractive=True,
            notes=notes,
            citations=citations,
            timings_ms=timings,
        )

    def threshold(self, lang: str) -> float:
        """The evidence under which a question in ``lang`` is not answered (a language not calibrated gets
        the most lenient threshold)."""
        given = self.min_evidence
        return given.get(lang, given.get("*", min(given.values(), default=0.0)))

    def _quote_vectors(self, chunk: StoredChunk) -> np.ndarray:
        """The chunk's quote vectors as stored at index time; embedded now only for chunks indexed without."""
        texts = scoring_texts(chunk.section_title, chunk.kind, chunk.content)
        space = self.embedder.space
        if chunk.quote_vectors and chunk.quote_space == space.model_id:
            stored = decode_vectors(chunk.quote_vectors, space.dim)
            if len(stored) == len(texts):
                return stored
        if not texts:
            return np.zeros((0, space.dim), dtype=np.float32)
        return np.asarray(self.embedder.embed_documents(texts), dtype=np.float32)

    def _select(
        self, query: str, lang: str, chunks: list[StoredChunk], query_vector: object
    ) -> tuple[list[tuple[StoredChunk, str]], float | None]:
        """The best sentence (meaning + shared stems + chunk rank), then its strongest neighbours, and the
        evidence that the best sentence answers (see ``evidence``).

        Neighbours come from the same chunk (a coherent passage, e.g. the rows of a price table);
        another chunk contributes only a sentence nearly as good as the best one.
        """
        pool = [(rank, c, s, ctx) for rank, c in enumerate(chunks) for s, ctx in quotable(c.kind, c.content)]
        if not pool:
            return [], None
        vectors = np.vstack([self._quote_vectors(c) for c in chunks])
        dense = vectors @ np.asarray(query_vector, dtype=np.float32)
        scores = sentence_scores(query, lang, [(rank, c, s) for rank, c, s, _ in pool], dense)
        best = max(range(len(pool)), key=lambda i: scores[i])
        best_rank = pool[best][0]
        others = sorted((i for i in range(len(pool)) if i != best), key=lambda i: -scores[i])
        chosen = [best]
        for i in others:
            if len(chosen) >= self.max_sentences:
                break
            same_chunk = pool[i][0] == best_rank
            if (same_chunk and dense[i] >= dense[best] - 0.05) or scores[i] >= scores[best] - 0.01:
                chosen.append(i)
        # a sentence that opens with a pronoun ("He is also the oldest quarterback ...") brings the sentence
        # it points back to, in the same chunk: the quote names who or what it is about
        chosen += [
            i - 1
            for i in chosen
            if i > 0
            and pool[i - 1][0] == pool[i][0]
            and _anaphoric(pool[i][2], pool[i][1].lang)
            and i - 1 not in chosen
        ]
        chosen.sort(key=lambda i: (pool[i][0] != best_rank, pool[i][0], i))  # best chunk first, reading order
        picked = complete_tables([(pool[i][1], pool[i][2]) for i in chosen])
        return picked, evidence(query, lang, pool[best][1], float(dense[best]))
