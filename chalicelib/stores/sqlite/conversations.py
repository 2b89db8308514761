"""Conversations in SQLite (the embedded default), in the query log's file: one JSON row per thread, deleted
once past its ``expires_at`` (swept at most every few minutes; readers skip what is past it in between)."""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path

from chalicelib.models.conversation import Conversation

_SCHEMA = """
CREATE TABLE IF NOT EXISTS conversations (
    conversation_id TEXT PRIMARY KEY, expires_at INTEGER NOT NULL, data TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS conversations_by_expiry ON conversations (expires_at);
"""
SWEEP_S = 600.0


class SQLiteConversations:
    """Its own connection to the store's file (WAL: a turn is written while the API reads chunks)."""

    def __init__(self, path: str | Path, clock: Callable[[], float] = time.time) -> None:
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self._conn = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self._lock = threading.Lock()
        self._clock = clock
        self._swept = float("-inf")
        with self._lock:
            if self.path != ":memory:":
                self._conn.execute("PRAGMA journal_mode=WAL")
            self._conn.executescript(_SCHEMA)

    def get_conversation(self, conversation_id: str) -> Conversation | None:
        with self._lock:
            row = self._conn.execute(
                "SELECT data FROM conversations WHERE conversation_id = ? AND expires_at >= ?",
                (conversation_id, int(self._clock())),
            ).fetchone()
        return Conversation.model_validate_json(row[0]) if row else None

    def put_conversation(self, conversation: Conversation) -> None:
        with self._lock:
            now = self._clock()
            if now - self._swept > SWEEP_S:  # not a table scan per turn
                self._conn.execute("DELETE FROM conversations WHERE expires_at < ?", (int(now),))
                self._swept = now
            self._conn.execute(
                "INSERT OR REPLACE INTO conversations VALUES (?, ?, ?)",
                (conversation.conversation_id, conversation.expires_at, conversation.model_dump_json()),
            )

    def close(self) -> None:
        self._conn.close()
