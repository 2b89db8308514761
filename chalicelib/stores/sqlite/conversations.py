"""Conversations in SQLite (the embedded default), in the query log's file: one JSON row per thread, deleted
once past its ``expires_at`` (swept at most every few minutes; readers skip what is past it in between)."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from chalicelib.models.conversation import Conversation
from chalicelib.stores.sqlite.expiring import ExpiringTables

_SCHEMA = """
CREATE TABLE IF NOT EXISTS conversations (
    conversation_id TEXT PRIMARY KEY, expires_at INTEGER NOT NULL, data TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS conversations_by_expiry ON conversations (expires_at);
"""


class SQLiteConversations(ExpiringTables):
    """Its own connection to the store's file (WAL: a turn is written while the API reads chunks)."""

    def __init__(self, path: str | Path, clock: Callable[[], float] = time.time) -> None:
        super().__init__(path, _SCHEMA, ("conversations",), clock)

    def get_conversation(self, conversation_id: str) -> Conversation | None:
        with self._lock:
            row = self._conn.execute(
                "SELECT data FROM conversations WHERE conversation_id = ? AND expires_at >= ?",
                (conversation_id, int(self._now())),
            ).fetchone()
        return Conversation.model_validate_json(row[0]) if row else None

    def put_conversation(self, conversation: Conversation) -> None:
        with self._lock:
            self._sweep(self._now())
            self._conn.execute(
                "INSERT OR REPLACE INTO conversations VALUES (?, ?, ?)",
                (conversation.conversation_id, conversation.expires_at, conversation.model_dump_json()),
            )
