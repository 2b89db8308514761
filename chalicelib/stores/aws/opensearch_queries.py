"""Pure builders of OpenSearch request bodies: index mapping, k-NN with filters inside, BM25, bulk, deletes."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from chalicelib import languages
from chalicelib.models.records import EmbeddingSpace, SearchFilters, StoredChunk
from chalicelib.stores.chunk_words import enrichment_words

TEXT_FIELDS = ("title^2", "section^2", "text", "enrichment")


def index_name(prefix: str, lang: str, version: int = 1) -> str:
    return f"{prefix}-{lang}-v{version}"


def alias_name(prefix: str, lang: str) -> str:
    return f"{prefix}-{lang}"


def index_body(lang: str, space: EmbeddingSpace, *, shards: int = 1) -> dict[str, Any]:
    """One index per language: that language's analyzer for BM25, HNSW (faiss, cosine) for vectors."""
    known = languages.get(lang)
    analyzer = known.opensearch_analyzer if known is not None else "standard"
    text = {"type": "text", "analyzer": analyzer}
    keyword = {"type": "keyword"}
    return {
        "settings": {"index": {"knn": True, "number_of_shards": shards}},
        "mappings": {
            "_meta": {"embedding_model": space.model_id, "embedding_dim": space.dim, "lang": lang},
            "properties": {
                "chunk_id": keyword,
                "document_id": keyword,
                "source_id": keyword,
                "key": keyword,
                "lang": keyword,
                "product": keyword,
                "content_type": keyword,
                "category": keyword,
                "tags": keyword,
                "readers": keyword,
                "kind": keyword,
                "critical": {"type": "boolean"},
                "title": text,
                "section": text,
                "text": text,
                "enrichment": text,
                "vector": {
                    "type": "knn_vector",
                    "dimension": space.dim,
                    "method": {
                        "name": "hnsw",
                        "engine": "faiss",
                        "space_type": "cosinesimil",
                        "parameters": {"m": 16, "ef_construction": 128},
                    },
                },
            },
        },
    }


def filter_clauses(filters: SearchFilters) -> list[dict[str, Any]]:
    """Metadata pre-filters as bool filter clauses (an empty allow-list matches nothing)."""
    clauses: list[dict[str, Any]] = []
    for field, values in (
        ("source_id", filters.source_ids),
        ("lang", filters.langs),
        ("product", filters.products),
        ("content_type", filters.content_types),
        ("category", filters.categories),
        ("tags", filters.tags),
        ("kind", filters.kinds),
    ):
        if values is None:
            continue
        clauses.append({"terms": {field: list(values)}} if values else {"match_none": {}})
    if filters.source_ref:
        clauses.append({"prefix": {"key": filters.source_ref}})
    if filters.allowed_refs is not None:
        clauses.append(
            {
                "bool": {
                    "should": [{"prefix": {"key": p}} for p in filters.allowed_refs] or [{"match_none": {}}],
                    "minimum_should_match": 1,
                }
            }
        )
    if filters.allowed_tags is not None:
        clauses.append(
            {"terms": {"tags": list(filters.allowed_tags)}} if filters.allowed_tags else {"match_none": {}}
        )
    if filters.allowed_readers is not None:  # who asks: a chunk whose readers share none is never seen
        clauses.append(
            {"terms": {"readers": list(filters.allowed_readers)}}
            if filters.allowed_readers
            else {"match_none": {}}
        )
    if filters.critical is not None:
        clauses.append({"term": {"critical": filters.critical}})
    return clauses


READERS_MAPPING = {"properties": {"readers": {"type": "keyword"}}}  # added to indices made before it


HIT_FIELDS = ("chunk_id", "content_type")  # what a search hit carries back (hubs are weighed before fusion)


def cosine(score: float) -> float:
    """A k-NN hit's ``_score`` back to the cosine similarity every backend reports (retrieve takes hub
    penalties off in cosine points). The k-NN plugin scores ``cosinesimil`` as 1 / (1 + d) with d = 1 - cos
    (``SpaceType.COSINESIMIL.scoreTranslation``), so cos = 2 - 1 / score."""
    return 2.0 - 1.0 / score if score > 0 else -1.0


def knn_body(vector: Any, k: int, filters: SearchFilters) -> dict[str, Any]:
    """Efficient filtering: the filter goes inside the knn clause, applied during the graph search."""
    knn: dict[str, Any] = {"vector": [float(x) for x in vector], "k": k}
    clauses = filter_clauses(filters)
    if clauses:
        knn["filter"] = {"bool": {"filter": clauses}}
    return {"size": k, "_source": list(HIT_FIELDS), "query": {"knn": {"vector": knn}}}


def bm25_body(query: str, k: int, filters: SearchFilters) -> dict[str, Any]:
    return {
        "size": k,
        "_source": list(HIT_FIELDS),
        "query": {
            "bool": {
                "must": [
                    {"multi_match": {"query": query, "fields": list(TEXT_FIELDS), "type": "best_fields"}}
                ],
                "filter": filter_clauses(filters),
            }
        },
    }


def delete_by_query_body(chunk_ids: Sequence[str]) -> dict[str, Any]:
    """Managed domains delete every copy of the chunk ids in one call; Serverless searches ids first."""
    return {"query": {"terms": {"chunk_id": list(chunk_ids)}}}


def ids_body(chunk_ids: Sequence[str], *, with_vectors: bool = False) -> dict[str, Any]:
    return {
        "size": len(chunk_ids),
        "_source": ["chunk_id", "vector"] if with_vectors else ["chunk_id"],
        "query": {"terms": {"chunk_id": list(chunk_ids)}},
    }


def document(chunk: StoredChunk) -> dict[str, Any]:
    return {
        "chunk_id": chunk.chunk_id,
        "document_id": chunk.document_id,
        "source_id": chunk.source_id,
        "key": chunk.key,
        "lang": chunk.lang,
        "product": chunk.product,
        "content_type": chunk.content_type,
        "category": chunk.category,
        "tags": chunk.tags,
        "readers": sorted(chunk.readers),
        "kind": chunk.kind,
        "critical": chunk.critical,
        "title": chunk.title,
        "section": " ".join(chunk.heading_path),
        "text": chunk.content,
        "enrichment": enrichment_words(chunk),
        "vector": chunk.vector,
    }


def bulk_actions(
    chunks: Sequence[StoredChunk], alias_for: dict[str, str], *, serverless: bool
) -> list[dict[str, Any]]:
    """Index actions; managed domains use the chunk id as ``_id`` (idempotent), Serverless assigns ids."""
    actions = []
    for c in chunks:
        action: dict[str, Any] = {"_op_type": "index", "_index": alias_for[c.lang], **document(c)}
        if not serverless:
            action["_id"] = c.chunk_id
        actions.append(action)
    return actions
