"""OpenSearch vector index: one index per language behind an alias, k-NN (faiss HNSW, cosine) + BM25.

Works with a managed domain (SigV4 service ``es``), OpenSearch Serverless (``aoss``: no custom document
ids, no ``_refresh``, no ``_delete_by_query`` — deletes search the ids first) or a plain cluster (basic auth
or none). The client is created on first use; query bodies come from ``opensearch_queries`` (pure).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from chalicelib.errors import EmbeddingModelMismatch, UpstreamError
from chalicelib.languages import DEFAULT as DEFAULT_LANGUAGES
from chalicelib.models.records import EmbeddingSpace, Hit, SearchFilters, StoredChunk
from chalicelib.stores.aws import opensearch_queries as q

RETRYABLE_STATUS = {429, 502, 503, 504}


def build_client(
    url: str,
    *,
    auth: str = "none",
    service: str = "es",
    region: str | None = None,
    username: str | None = None,
    password: str | None = None,
) -> Any:
    """An opensearch-py client: SigV4 (managed ``es`` or Serverless ``aoss``), basic auth, or none."""
    from opensearchpy import OpenSearch, RequestsHttpConnection

    kwargs: dict[str, Any] = {"hosts": [url], "timeout": 30, "connection_class": RequestsHttpConnection}
    if auth == "sigv4":
        import boto3
        from requests_aws4auth import AWS4Auth

        session = boto3.Session(region_name=region)
        credentials = session.get_credentials()
        kwargs["http_auth"] = AWS4Auth(
            region=session.region_name, service=service, refreshable_credentials=credentials
        )
    elif auth == "basic":
        kwargs["http_auth"] = (username or "", password or "")
    return OpenSearch(**kwargs)


class OpenSearchIndex:
    def __init__(
        self,
        *,
        prefix: str = "sabio",
        languages: Sequence[str] = DEFAULT_LANGUAGES,
        serverless: bool = False,
        client: Any = None,
        client_factory: Any = None,
        refresh: bool = True,
        sleep: Any = time.sleep,
    ) -> None:
        self.prefix = prefix
        self.namespaces = (*languages, "other")
        self.serverless = serverless
        self._client = client
        self._client_factory = client_factory
        self.refresh = refresh and not serverless  # Serverless has no _refresh (writes show up in seconds)
        self._sleep = sleep
        self._space: EmbeddingSpace | None = None
        self._mapped = False

    @property
    def client(self) -> Any:
        if self._client is None:
            self._client = self._client_factory()
        return self._client

    # ------------------------------------------------------------ indices and the model check
    def alias(self, lang: str) -> str:
        return q.alias_name(self.prefix, lang if lang in self.namespaces else "other")

    def ensure_indices(self, space: EmbeddingSpace) -> None:
        """Create every language's index and alias if missing; refuse an index built with another model."""
        for lang in self.namespaces:
            alias = q.alias_name(self.prefix, lang)
            if not self.client.indices.exists_alias(name=alias):
                index = q.index_name(self.prefix, lang)
                if not self.client.indices.exists(index=index):
                    self.client.indices.create(index=index, body=q.index_body(lang, space))
                self.client.indices.put_alias(index=index, name=alias)
            elif not self._mapped:  # an index made before chunks had readers gains the field (keyword)
                self.client.indices.put_mapping(index=alias, body=q.READERS_MAPPING)
        self._mapped = True
        self._check_space(space)

    def space(self) -> EmbeddingSpace | None:
        if self._space is None:
            alias = q.alias_name(self.prefix, self.namespaces[0])
            if not self.client.indices.exists_alias(name=alias):
                return None
            for mapping in self.client.indices.get_mapping(index=alias).values():
                meta = mapping.get("mappings", {}).get("_meta", {})
                if "embedding_model" in meta:
                    self._space = EmbeddingSpace(meta["embedding_model"], int(meta["embedding_dim"]))
        return self._space

    def _check_space(self, space: EmbeddingSpace) -> None:
        EmbeddingModelMismatch.check(self.space(), space, "re-index into a new prefix.")

    # ------------------------------------------------------------ writes
    def upsert_chunks(self, chunks: Sequence[StoredChunk], space: EmbeddingSpace) -> None:
        if not chunks:
            return
        self.ensure_indices(space)
        if self.serverless:  # no custom ids: replace by deleting the chunk ids' current documents first
            self.delete_chunks([c.chunk_id for c in chunks])
        actions = q.bulk_actions(
            chunks, {c.lang: self.alias(c.lang) for c in chunks}, serverless=self.serverless
        )
        self._bulk(actions)
        self._refresh()

    def delete_chunks(self, chunk_ids: Sequence[str]) -> None:
        ids = list(dict.fromkeys(chunk_ids))
        if not ids or self.space() is None:
            return
        pattern = f"{self.prefix}-*"
        if not self.serverless:
            self.client.delete_by_query(
                index=pattern,
                body=q.delete_by_query_body(ids),
                params={"conflicts": "proceed", "refresh": "true" if self.refresh else "false"},
            )
            return
        found = self.client.search(index=pattern, body=q.ids_body(ids))["hits"]["hits"]
        self._bulk([{"_op_type": "delete", "_index": h["_index"], "_id": h["_id"]} for h in found])

    def set_readers(self, chunk_ids: Sequence[str], readers: Sequence[str]) -> None:
        """Partial updates of the chunks' documents (found by chunk id: Serverless assigns its own ids)."""
        ids = list(dict.fromkeys(chunk_ids))
        if not ids or self.space() is None:
            return
        found = self.client.search(index=f"{self.prefix}-*", body=q.ids_body(ids))["hits"]["hits"]
        doc = {"readers": sorted(readers)}
        self._bulk(
            [{"_op_type": "update", "_index": h["_index"], "_id": h["_id"], "doc": doc} for h in found]
        )
        self._refresh()

    def _bulk(self, actions: list[dict[str, Any]], attempts: int = 4) -> None:
        """Bulk with per-item errors surfaced: throttled items are retried, the rest raise with their reasons."""
        from opensearchpy import helpers

        pending = actions
        for attempt in range(attempts):
            _, errors = helpers.bulk(self.client, pending, raise_on_error=False, raise_on_exception=False)
            if not errors:
                return
            retry, fatal = [], []
            for error in errors:
                ((op, info),) = error.items()
                item = next(
                    (
                        a
                        for a in pending
                        if a.get("_id") == info.get("_id")
                        or a.get("chunk_id") == info.get("data", {}).get("chunk_id")
                    ),
                    None,
                )
                if info.get("status") in RETRYABLE_STATUS and item is not None:
                    retry.append(item)
                elif not (op == "delete" and info.get("status") == 404):
                    fatal.append(f"{info.get('_id')}: {_reason(info)}")
            if fatal:
                raise UpstreamError(f"OpenSearch refused {len(fatal)} of {len(pending)} writes: {fatal[:3]}")
            if not retry:
                return
            pending = retry
            self._sleep(min(5.0, 0.2 * 2**attempt))
        raise UpstreamError(f"OpenSearch kept throttling {len(pending)} writes")

    def _refresh(self) -> None:
        if self.refresh:
            self.client.indices.refresh(index=f"{self.prefix}-*")

    # ------------------------------------------------------------ reads
    def _indices(self, filters: SearchFilters) -> str:
        langs = filters.langs if filters.langs is not None else self.namespaces
        return ",".join(dict.fromkeys(self.alias(lang) for lang in langs)) or self.alias("other")

    def get_vectors(self, chunk_ids: Sequence[str]) -> dict[str, np.ndarray]:
        if not chunk_ids or self.space() is None:
            return {}
        hits = self.client.search(index=f"{self.prefix}-*", body=q.ids_body(chunk_ids, with_vectors=True))
        return {
            h["_source"]["chunk_id"]: np.asarray(h["_source"]["vector"], dtype=np.float32)
            for h in hits["hits"]["hits"]
        }

    def chunk_ids(self, filters: SearchFilters) -> set[str]:
        """Every chunk id matching ``filters`` (scrolled), for verification."""
        if self.space() is None:
            return set()
        from opensearchpy import helpers

        query = {"query": {"bool": {"filter": q.filter_clauses(filters)}}, "_source": ["chunk_id"]}
        return {
            h["_source"]["chunk_id"]
            for h in helpers.scan(self.client, query=query, index=self._indices(filters))
        }

    def dense_search(
        self, vector: np.ndarray, space: EmbeddingSpace, filters: SearchFilters, k: int, hubness: float = 0.0
    ) -> list[Hit]:
        """k-NN by cosine. ``hubness`` is not applied yet: the rows' neighbours are not kept in OpenSearch
        (the embedded store keeps them; docs/evaluation.md measures what they are worth)."""
        self._check_space(space)
        if self.space() is None:
            return []
        response = self.client.search(index=self._indices(filters), body=q.knn_body(vector, k, filters))
        return [
            Hit(h["_source"]["chunk_id"], q.cosine(float(h["_score"])), h["_source"].get("content_type"))
            for h in response["hits"]["hits"]
        ]

    def keyword_search(self, query: str, filters: SearchFilters, k: int) -> list[Hit]:
        if not query.strip() or self.space() is None:
            return []
        response = self.client.search(index=self._indices(filters), body=q.bm25_body(query, k, filters))
        return [
            Hit(h["_source"]["chunk_id"], float(h["_score"]), h["_source"].get("content_type"))
            for h in response["hits"]["hits"]
        ]


def _reason(info: dict[str, Any]) -> str:
    error = info.get("error") or {}
    if not isinstance(error, dict):
        return str(error)
    cause = (error.get("caused_by") or {}).get("reason")
    return f"{error.get('reason', info.get('status'))}" + (f" ({cause})" if cause else "")
