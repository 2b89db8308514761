"""The query log in SQLite (the embedded default): questions and feedback as JSON rows, swept on expiry."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from chalicelib.models.records import FeedbackRecord, QueryRecord
from chalicelib.stores.sqlite.expiring import ExpiringTables

_SCHEMA = """
CREATE TABLE IF NOT EXISTS query_log (
    query_id TEXT PRIMARY KEY, created_at REAL NOT NULL, expires_at INTEGER NOT NULL, data TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS query_log_by_time ON query_log (created_at);
CREATE TABLE IF NOT EXISTS query_feedback (
    id INTEGER PRIMARY KEY, query_id TEXT NOT NULL, created_at REAL NOT NULL, expires_at INTEGER NOT NULL,
    data TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS query_feedback_by_time ON query_feedback (created_at);
"""


class SQLiteQueryLog(ExpiringTables):
    """Its own connection to the store's file (or any other): WAL lets the API log while it reads chunks."""

    def __init__(self, path: str | Path, clock: Callable[[], float] = time.time) -> None:
        super().__init__(path, _SCHEMA, ("query_log", "query_feedback"), clock)

    def log_query(self, record: QueryRecord) -> None:
        with self._lock:
            self._sweep(self._now())
            self._conn.execute(
                "INSERT OR REPLACE INTO query_log VALUES (?, ?, ?, ?)",
                (record.query_id, record.created_at, record.expires_at, record.model_dump_json()),
            )

    def get_query(self, query_id: str) -> QueryRecord | None:
        with self._lock:
            row = self._conn.execute(
                "SELECT data FROM query_log WHERE query_id = ? AND expires_at >= ?",
                (query_id, int(self._now())),
            ).fetchone()
        return QueryRecord.model_validate_json(row[0]) if row else None

    def add_feedback(self, record: FeedbackRecord) -> None:
        with self._lock:
            self._conn.execute(
                "INSERT INTO query_feedback (query_id, created_at, expires_at, data) VALUES (?, ?, ?, ?)",
                (record.query_id, record.created_at, record.expires_at, record.model_dump_json()),
            )

    def queries(self, since: float) -> list[QueryRecord]:
        return [QueryRecord.model_validate_json(d) for d in self._rows("query_log", since)]

    def feedback(self, since: float) -> list[FeedbackRecord]:
        return [FeedbackRecord.model_validate_json(d) for d in self._rows("query_feedback", since)]

    def _rows(self, table: str, since: float) -> list[str]:
        with self._lock:
            rows = self._conn.execute(
                f"SELECT data FROM {table} WHERE created_at >= ? AND expires_at >= ? ORDER BY created_at",
                (since, int(self._now())),
            ).fetchall()
        return [r[0] for r in rows]
