"""Index a corpus into a throwaway store with one configuration, ask a query set, score every variant.

Variants are configurations, not code forks: the store is built by the composition root from ``Settings``
(``embed_text`` raw / contextual / enriched), and each retrieval variant is a way of reading that same store
(dense, BM25, a fusion of the two, question vectors, or Sabio's whole retrieve pipeline). The yardstick
baselines read the plain documents (one per paragraph or section) with nothing of Sabio in between.
"""

from __future__ import annotations

import functools
import statistics
import time
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from chalicelib.composition import Container
from chalicelib.models.api import RetrieveRequest
from chalicelib.models.records import Hit, SearchFilters, StoredChunk
from chalicelib.protocols import Reranker
from chalicelib.retrieve.fusion import reciprocal_rank_fusion
from chalicelib.settings import Settings
from sabio.evaluation.datasets import Corpus, QuerySet
from sabio.evaluation.metrics import overlap_at, summary

DEPTH = 100  # candidates per retriever, as in the yardstick
Ranking = list[tuple[str, float]]  # (id, score), best first


@dataclass
class Built:
    corpus: Corpus
    embed_text: str
    container: Container
    chunks: dict[str, StoredChunk]
    index_s: float
    embedded: int  # vectors computed (not served by the cache) while indexing

    def target(self, chunk_id: str, relevant: Collection[str]) -> str:
        """The one qrels id a retrieved chunk counts as: the relevant one if the chunk holds it (a chunk that
        holds the asked section is a hit, whatever else it holds), else its first."""
        held = self.corpus.targets(self.chunks[chunk_id])
        return next((t for t in held if t in relevant), held[0] if held else chunk_id)

    def targets(self, ranking: Sequence[str], relevant: Collection[str]) -> list[str]:
        """Chunk ids -> qrels ids, one per chunk, first occurrence kept (a paragraph split in two counts once)."""
        return list(dict.fromkeys(self.target(cid, relevant) for cid in ranking))


@dataclass
class Outcome:
    """One variant on one query set: ranked qrels ids per query and per-query latency (ms)."""

    runs: dict[str, list[str]] = field(default_factory=dict)
    latency_ms: list[float] = field(default_factory=list)
    not_run: str | None = None
    failed: list[str] = field(default_factory=list)  # why an optional stage fell back (rerank), per query

    def row(self, qrels: dict[str, dict[str, int]], baseline: dict[str, list[str]] | None) -> dict[str, Any]:
        if self.not_run:
            return {"not_run": self.not_run}
        row: dict[str, Any] = summary(self.runs, qrels)
        if baseline is not None:
            row["overlap@10"] = overlap_at(self.runs, baseline, 10)
        if self.failed:
            row["fell_back"] = len(self.failed)  # queries answered by the first stage alone
        if self.latency_ms:
            lat = sorted(self.latency_ms)
            row["p50_ms"] = round(statistics.median(lat), 2)
            row["p95_ms"] = round(lat[min(len(lat) - 1, int(0.95 * len(lat)))], 2)
        return row


def build(corpus: Corpus, embed_text: str, workdir: Path, cache: Path | None, **overrides: Any) -> Built:
    """Index ``corpus`` exactly like an upload, through the composition root, into a fresh SQLite store."""
    path = workdir / f"{corpus.name}-{embed_text}.db"
    path.unlink(missing_ok=True)
    settings = Settings(
        store_path=str(path),
        embedding_cache=str(cache) if cache else None,
        embed_text=embed_text,
        **overrides,
    )
    container = Container(settings)
    embedder = container.embedder
    before = getattr(embedder, "misses", 0)
    started = time.perf_counter()
    report = container.ingestor().index_objects(
        "eval", [(key, functools.partial(bytes, data)) for key, data in corpus.files.items()]
    )
    index_s = time.perf_counter() - started
    if report.failed:
        raise RuntimeError(f"{corpus.name}: {len(report.failed)} files failed to index: {report.failed[:3]}")
    store = container.chunk_store
    chunks = {c.chunk_id: c for c in store.get_chunks(sorted(store.all_chunk_ids()))}
    return Built(corpus, embed_text, container, chunks, index_s, getattr(embedder, "misses", 0) - before)


# ---------------------------------------------------------------------------------------------- readers


def namespace(qs: QuerySet) -> SearchFilters:
    """What the plain retrievers search: the asked language's namespace for ``lang=auto`` in a mixed store,
    everything otherwise (single-language stores, cross-lingual sets)."""
    return (
        SearchFilters(langs=(qs.query_lang,))
        if qs.lang == "auto" and qs.corpus.endswith("+en")
        else SearchFilters()
    )


def _ms(started: float) -> float:
    return (time.perf_counter() - started) * 1000


def _rankings(
    qs: QuerySet, prepare: Callable[[str], Any], search: Callable[[Any], list[Hit]]
) -> tuple[dict[str, Ranking], list[float]]:
    """Run ``search`` for every query; only the search is timed (``prepare``, e.g. embedding, is not)."""
    out: dict[str, Ranking] = {}
    lat: list[float] = []
    for qid, text in qs.queries.items():
        arg = prepare(text)
        started = time.perf_counter()
        hits = search(arg)
        lat.append(_ms(started))
        out[qid] = [(h.chunk_id, h.score) for h in hits]
    return out, lat


def dense_rankings(built: Built, qs: QuerySet) -> tuple[dict[str, Ranking], list[float]]:
    c, filters = built.container, namespace(qs)
    return _rankings(
        qs, c.embedder.embed_query, lambda v: c.vector_index.dense_search(v, c.embedder.space, filters, DEPTH)
    )


def bm25_rankings(built: Built, qs: QuerySet) -> tuple[dict[str, Ranking], list[float]]:
    c, filters = built.container, namespace(qs)
    return _rankings(qs, lambda t: t, lambda t: c.vector_index.keyword_search(t, filters, DEPTH))


def by_target(built: Built, ranking: Ranking, relevant: Collection[str]) -> Ranking:
    """A chunk ranking read as qrels ids (each keeps its best chunk's score), so that a paragraph or section
    split into several chunks counts once per list and fusion does not favour long ones."""
    out: dict[str, float] = {}
    for cid, score in ranking:
        out.setdefault(built.target(cid, relevant), score)
    return list(out.items())


def rrf(lists: Sequence[Ranking], k: int = 60) -> list[str]:
    return [d for d, _ in reciprocal_rank_fusion([[d for d, _ in ranking] for ranking in lists], k)]


def question_vector_rankings(built: Built, qs: QuerySet) -> tuple[dict[str, Ranking], list[float]]:
    """Multi-vector: a chunk scores the best cosine of the query against the chunk's own vector and against
    the vector of each of its hypothetical questions (brute force over the whole store)."""
    c = built.container
    ids = list(built.chunks)
    vectors = c.vector_index.get_vectors(ids)
    matrix = np.vstack([np.asarray(vectors[i], dtype=np.float32) for i in ids])
    owners, questions = [], []
    for n, cid in enumerate(ids):
        for q in built.chunks[cid].enrichment.questions:
            owners.append(n)
            questions.append(q)
    qmatrix = c.embedder.embed_documents(questions) if questions else np.zeros((0, matrix.shape[1]))
    owner = np.asarray(owners, dtype=np.int64)
    langs = namespace(qs).langs
    allowed = np.asarray([langs is None or built.chunks[i].lang in langs for i in ids])
    out, lat = {}, []
    for qid, text in qs.queries.items():
        vector = np.asarray(c.embedder.embed_query(text), dtype=np.float32)
        started = time.perf_counter()
        best = matrix @ vector
        if len(owner):
            np.maximum.at(best, owner, qmatrix @ vector)
        best = np.where(allowed, best, -np.inf)
        top = np.argsort(-best)[:DEPTH]
        out[qid] = [(ids[j], float(best[j])) for j in top if np.isfinite(best[j])]
        lat.append((time.perf_counter() - started) * 1000)
    return out, lat


def pipeline(built: Built, qs: QuerySet, reranker: Reranker | None = None, **config: Any) -> Outcome:
    """Sabio's retrieve, exactly as the API runs it (intents, boosts, near-duplicate suppression); ``config``
    overrides RetrievalConfig fields for this run only; ``reranker`` adds the second stage."""
    retriever = built.container.retriever
    if config or reranker is not None:
        retriever = retriever.reconfigured(**config)
        retriever.reranker = reranker
    outcome = Outcome()
    for qid, text in qs.queries.items():
        started = time.perf_counter()
        response = retriever.run(RetrieveRequest(query=text, top_k=20, lang=qs.lang), None).response
        outcome.latency_ms.append(_ms(started))
        outcome.runs[qid] = built.targets([i.chunk_id for i in response.items], qs.qrels.get(qid, {}))
        if response.rerank is not None and not response.rerank.used:
            outcome.failed.append(response.rerank.reason or "failed")
    if outcome.failed and len(outcome.failed) == len(qs.queries):
        return Outcome(not_run=f"the reranker failed on every query: {outcome.failed[0]}")
    return outcome


# ---------------------------------------------------------------------------------------------- yardstick


def as_run(hits: Iterable[tuple[str, float]]) -> Ranking:
    """A top-k (best first) kept the way BEIR and pytrec_eval keep a run, as ``{doc id: score}``, then read
    best first: an id met twice keeps the score it was given last, its lower one. On corpora whose ids are
    unique this is the top-k itself; where one id names several documents (the English FastAPI release
    notes) it keeps that id from filling the list, which is the reading that reproduces the yardstick."""
    run = dict(hits)
    return sorted(run.items(), key=lambda item: -item[1])


class Yardstick:
    """The issue's baselines on the plain documents: dense cosine, bm25s (k1 1.5, b 0.75, lowercase, accents
    stripped, stop-words, Snowball stems; and without stems), and RRF (k 60) of dense and stemmed top-100."""

    RRF_K = 60

    STEMMERS = {"es": "spanish", "en": "english"}

    def __init__(self, corpus: Corpus, embedder: Any) -> None:
        self.corpus = corpus
        self.ids = [doc for doc, _ in corpus.plain]
        self.texts = [text for _, text in corpus.plain]
        self.position: dict[str, int] = {}  # an id's first place in the corpus: the hybrid's tie-break
        for doc in self.ids:
            self.position.setdefault(doc, len(self.position))
        self.embedder = embedder
        self._matrix: np.ndarray | None = None
        self._bm25: dict[tuple[str, bool], Any] = {}

    def matrix(self) -> np.ndarray:
        if self._matrix is None:
            texts = self.texts
            self._matrix = np.vstack(
                [self.embedder.embed_documents(texts[s : s + 256]) for s in range(0, len(texts), 256)]
            )
        return self._matrix

    def dense(self, qs: QuerySet) -> tuple[dict[str, Ranking], list[float]]:
        m = self.matrix()
        out, lat = {}, []
        for qid, text in qs.queries.items():
            v = np.asarray(self.embedder.embed_query(text), dtype=np.float32)
            started = time.perf_counter()
            scores = m @ v
            top = np.argsort(-scores)[:DEPTH]
            out[qid] = as_run((self.ids[j], float(scores[j])) for j in top)
            lat.append((time.perf_counter() - started) * 1000)
        return out, lat

    def hybrid(self, dense: Ranking, bm25: Ranking) -> list[str]:
        """The simple hybrid: RRF of the two top-100s scored over corpus positions, as a vectorised
        implementation does, so that equal fused scores go to the document listed first in the corpus. With
        two lists ties are common (ranks (1, 3) and (3, 1); rank 1 in one list and absent from the other), and
        this tie-break is what reproduces the yardstick's figures; see docs/evaluation.md for what it is worth."""
        fused = reciprocal_rank_fusion([[d for d, _ in dense], [d for d, _ in bm25]], self.RRF_K)
        return [d for d, _ in sorted(fused, key=lambda item: (-item[1], self.position[item[0]]))]

    def _analyzer(self, lang: str, stem: bool) -> tuple[list[str], Any]:
        import Stemmer

        from chalicelib.text import fold, stopwords

        return sorted({fold(w) for w in stopwords(lang)}), Stemmer.Stemmer(
            self.STEMMERS[lang]
        ) if stem else None

    def bm25(self, qs: QuerySet, stem: bool) -> tuple[dict[str, Ranking], list[float]]:
        """Each side analysed in its own language: the documents with the corpus's analyser, the question with
        its language's (so a cross-lingual set only meets on words the two languages share, like names)."""
        import bm25s

        from chalicelib.text import fold

        doc_lang = self.corpus.lang if self.corpus.lang in self.STEMMERS else qs.query_lang
        if (doc_lang, stem) not in self._bm25:
            stop, stemmer = self._analyzer(doc_lang, stem)
            tokens = bm25s.tokenize(
                [fold(text) for text in self.texts],
                stopwords=stop,
                stemmer=stemmer,
                show_progress=False,
            )
            index = bm25s.BM25(k1=1.5, b=0.75)
            index.index(tokens, show_progress=False)
            self._bm25[(doc_lang, stem)] = index
        index = self._bm25[(doc_lang, stem)]
        stop, stemmer = self._analyzer(qs.query_lang, stem)
        out: dict[str, Ranking] = {}
        lat: list[float] = []
        for qid, text in qs.queries.items():
            started = time.perf_counter()
            words = bm25s.tokenize(
                [fold(text)], stopwords=stop, stemmer=stemmer, return_ids=False, show_progress=False
            )
            known = [w for w in words[0] if w in index.vocab_dict]
            if not known:
                out[qid] = []
            else:
                docs, scores = index.retrieve([known], k=min(DEPTH, len(self.ids)), show_progress=False)
                out[qid] = as_run(
                    (self.ids[j], float(s)) for j, s in zip(docs[0], scores[0], strict=True) if s > 0
                )
            lat.append((time.perf_counter() - started) * 1000)
        return out, lat
