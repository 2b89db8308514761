"""Tables of JSON rows that expire, kept in the store's file on a connection of their own (WAL: they are
written while the API reads chunks): the query log and the conversations. Expired rows are deleted at most
every SWEEP_S seconds (not a table scan per write); readers skip them in between."""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path

SWEEP_S = 600.0


class ExpiringTables:
    """Opens ``path`` (creating its folder) and its tables (``schema``); ``sweep`` deletes the expired rows of
    ``tables`` when it is time to."""

    def __init__(
        self, path: str | Path, schema: str, tables: tuple[str, ...], clock: Callable[[], float] = time.time
    ) -> None:
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self._conn = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self._lock = threading.Lock()
        self._clock = clock
        self._tables = tables
        self._swept = float("-inf")
        with self._lock:
            if self.path != ":memory:":
                self._conn.execute("PRAGMA journal_mode=WAL")
            self._conn.executescript(schema)

    def _now(self) -> float:
        return float(self._clock())

    def _sweep(self, now: float) -> None:
        """Under the lock: the expired rows deleted, when the last sweep is SWEEP_S old."""
        if now - self._swept > SWEEP_S:
            for table in self._tables:
                self._conn.execute(f"DELETE FROM {table} WHERE expires_at < ?", (int(now),))
            self._swept = now

    def close(self) -> None:
        self._conn.close()
