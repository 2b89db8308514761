"""The composition root's base: where chunks, vectors, the query log and conversations live, each chosen by
setting (the embedded SQLite file, or DynamoDB and OpenSearch). Only chalicelib/composition.py builds on it."""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from chalicelib.protocols import ChunkStore, ConversationStore, EnrichmentCache, QueryLog, VectorIndex
    from chalicelib.settings import Settings
    from chalicelib.stores.sqlite import SQLiteStore


class Storage:
    """Where chunks, vectors, the query log and conversations live: the embedded SQLite file, or DynamoDB and
    OpenSearch."""

    settings: Settings

    @cached_property
    def store(self) -> SQLiteStore:
        from chalicelib.stores.sqlite import SQLiteStore

        return SQLiteStore(self.settings.store_path, self.settings.languages, self.settings.ann_min_rows)

    @cached_property
    def chunk_store(self) -> ChunkStore:
        """SQLite (embedded) or DynamoDB (AWS): manifest, chunks with enrichment JSON, enrichment cache."""
        s = self.settings
        if s.chunk_store == "dynamodb":
            from chalicelib.stores.aws.dynamodb import DynamoDBChunkStore

            return DynamoDBChunkStore(s.dynamodb_table, client=self.aws_client("dynamodb"))
        return self.store

    @property
    def enrichment_cache(self) -> EnrichmentCache:
        """The LLM enrichments remembered, beside the chunks in the chunk store (SQLite or DynamoDB)."""
        from chalicelib.protocols import EnrichmentCache

        store = self.chunk_store
        assert isinstance(store, EnrichmentCache), f"{type(store).__name__} keeps no enrichment cache"
        return store

    @cached_property
    def vector_index(self) -> VectorIndex:
        """The embedded SQLite index, or OpenSearch (managed domain, Serverless, or a plain cluster)."""
        s = self.settings
        if s.vector_index == "opensearch":
            from chalicelib.stores.aws.opensearch import OpenSearchIndex, build_client

            if not s.opensearch_url:
                raise ValueError("SABIO_VECTOR_INDEX=opensearch needs SABIO_OPENSEARCH_URL")
            password = s.opensearch_password.get_secret_value() if s.opensearch_password else None
            return OpenSearchIndex(
                prefix=s.opensearch_prefix,
                languages=s.languages,
                serverless=s.opensearch_service == "aoss",
                client_factory=lambda: build_client(
                    s.opensearch_url or "",
                    auth=s.opensearch_auth,
                    service=s.opensearch_service,
                    region=s.aws_region,
                    username=s.opensearch_username,
                    password=password,
                ),
            )
        return self.store

    def aws_client(self, service: str) -> Any:
        import boto3

        s = self.settings
        return boto3.client(service, region_name=s.aws_region, endpoint_url=s.aws_endpoint_url)

    @cached_property
    def query_log(self) -> QueryLog | None:
        """Questions and feedback: beside the chunks (the SQLite file, or the DynamoDB table); None when off."""
        s = self.settings
        if not s.log.enabled:
            return None
        if s.chunk_store == "dynamodb":
            from chalicelib.stores.aws.dynamodb_query_log import DynamoDBQueryLog

            return DynamoDBQueryLog(s.dynamodb_table, client=self.aws_client("dynamodb"))
        from chalicelib.stores.sqlite.query_log import SQLiteQueryLog

        return SQLiteQueryLog(s.store_path)

    @cached_property
    def conversation_store(self) -> ConversationStore | None:
        """Conversations, beside the query log (the SQLite file, or the DynamoDB table); None when off, and
        when questions' text may not be kept (SABIO_LOG_QUERY_TEXT=0): a thread is its questions."""
        s = self.settings
        if not s.conversation.enabled or not s.log.keep_text:
            return None
        if s.chunk_store == "dynamodb":
            from chalicelib.stores.aws.dynamodb_conversations import DynamoDBConversations

            return DynamoDBConversations(s.dynamodb_table, client=self.aws_client("dynamodb"))
        from chalicelib.stores.sqlite.conversations import SQLiteConversations

        return SQLiteConversations(s.store_path)
