"""The store's rows in segments (``bm25_index.Segment``: their vectors and their BM25 postings), built for rows
first seen, merged as arrays when small ones pile up or deleted rows do, and kept beside the SQLite file
(segment_files.py) so that the next process to open the store reads them instead of rebuilding them: at
100,000 chunks that rebuild (the matrix row by row, every row's words analysed) took minutes.

What is read back is checked against the store before use: a segment any of whose rows the store holds with
another chunk id (a restored copy of the store, which hands row ids out again) is dropped whole, and its rows
are built again from SQLite.
"""

from __future__ import annotations

import atexit
import logging
import math
import threading
import weakref
import zlib
from collections.abc import Callable

import numpy as np

from chalicelib.stores.sqlite.search.bm25_index import Segment, View, positions
from chalicelib.stores.sqlite.search.segment_files import SegmentFiles

log = logging.getLogger("chalicelib.stores.sqlite")
SEGMENT_ROWS = 32_768  # rows a segment is built with at most (building one holds its arrays twice)
TIER = 4  # small segments of about the same size (a factor of this) merged when there are this many
STALE = 0.25  # a segment is merged away past this share of rows the store no longer has


_OPEN: weakref.WeakSet[Segments] = weakref.WeakSet()


@atexit.register
def _settle_all() -> None:
    """A process that ends (``sabio query``) lets a save in flight finish: it would leave a folder half
    written, harmless but rebuilt by the next process."""
    for segments in list(_OPEN):
        segments.settle()


def check(chunk_id: str) -> int:
    """A row's chunk-id check, kept with it in its segment."""
    return zlib.crc32(chunk_id.encode("utf-8"))


class Segments:
    """The segments of one store, shared by its vectors and its words; safe to share between threads."""

    def __init__(self, files: SegmentFiles | None) -> None:
        self.files = files
        self.opened = False
        self._list: list[Segment] = []
        self._dirty = False  # the list changed since it was last saved
        self._lock = threading.Lock()
        self._saving = threading.Lock()
        _OPEN.add(self)

    def open(self, rids: np.ndarray, checks: np.ndarray, dim: int, next_rid: int) -> None:
        """Once: the segments saved beside the store whose rows the store holds as they were saved (``rids``
        sorted, ``checks`` their chunk-id checks), and none it has not handed out yet (``next_rid``: a
        restored copy hands them out again, to other texts); the others are dropped."""
        if self.opened:
            return
        self.opened = True
        if self.files is None:
            return
        kept, loaded = [], self.files.load()
        for segment in loaded:
            at = positions(rids, segment.rids)
            live = at >= 0
            same = np.array_equal(checks[at[live]], np.asarray(segment.checks)[live])
            handed_out = not len(segment.rids) or int(segment.rids.max()) < next_rid
            if same and handed_out and segment.vectors.shape[1:] == (dim,):
                kept.append(segment)
            else:
                log.warning("search files of other rows beside the store (%s); rebuilding them", segment.name)
        with self._lock:
            self._list = kept
            self._dirty = len(kept) < len(loaded)

    def fill(self, rids: np.ndarray, matrix: np.ndarray) -> np.ndarray:
        """The vectors the segments hold for ``rids`` copied into ``matrix``'s rows; which rows got one."""
        filled = np.zeros(len(rids), dtype=bool)
        with self._lock:
            segments = list(self._list)
        for segment in segments:
            at = positions(rids, segment.rids)
            live = at >= 0
            matrix[at[live]] = segment.vectors[live]
            filled[at[live]] = True
        return filled

    def uncovered(self, rids: np.ndarray) -> np.ndarray:
        """The rows of ``rids`` no segment holds yet."""
        with self._lock:
            if not self._list:
                return rids
            covered = np.concatenate([s.rids for s in self._list])
        return np.setdiff1d(rids, covered, assume_unique=True)

    def view(self, rids: np.ndarray, build: Callable[[np.ndarray], Segment]) -> View:
        """The BM25 view of ``rids``: rows no segment holds yet are built into new segments (``build``), then
        small segments and mostly deleted ones are merged."""
        new = self.uncovered(rids)
        for start in range(0, len(new), SEGMENT_ROWS):  # bounded parts: building one holds its arrays twice
            segment = build(new[start : start + SEGMENT_ROWS])
            with self._lock:
                self._list.append(segment)
                self._dirty = True
        self._tidy(rids)
        with self._lock:
            return View(rids, [(s, positions(rids, s.rids)) for s in self._list])

    def _tidy(self, rids: np.ndarray) -> None:
        """Segments whose rows are all gone dropped; those mostly gone merged away; and small segments of
        about the same size (within a factor of ``TIER``) merged once there are ``TIER`` of them, so that a
        row is merged again a few times at most (from their arrays: nothing is analysed again)."""
        with self._lock:
            parts = [(s, positions(rids, s.rids) >= 0) for s in self._list]
        parts = [(s, keep) for s, keep in parts if keep.any()]
        stale = [(s, keep) for s, keep in parts if (~keep).mean() > STALE]
        tiers: dict[int, list[tuple[Segment, np.ndarray]]] = {}
        for s, keep in parts:
            if len(s.rids) < SEGMENT_ROWS and (~keep).mean() <= STALE:
                tiers.setdefault(int(math.log(len(s.rids), TIER)), []).append((s, keep))
        groups = [tier for tier in tiers.values() if len(tier) >= TIER] + ([stale] if stale else [])
        merged = {id(s) for group in groups for s, _ in group}
        kept = [s for s, _ in parts if id(s) not in merged] + [Segment.merged(group) for group in groups]
        with self._lock:
            if len(kept) != len(self._list) or groups:
                self._list = kept
                self._dirty = True

    def persist(self, wait: bool = False) -> None:
        """The segments saved beside the store, if they changed: in a background thread, or now (``wait``:
        after a save in flight, if any). A failure is logged (a read-only store serves from memory); another
        process writing skips this save (the next change saves)."""
        if self.files is None:
            return
        if wait:
            self._save(True)
        elif self._dirty:
            threading.Thread(target=self._save, args=(False,), name="sabio-segments", daemon=True).start()

    def settle(self) -> None:
        """Wait for a save in flight (the store is closing)."""
        with self._saving:
            pass

    def _save(self, wait: bool) -> None:
        if not self._saving.acquire(blocking=wait):
            return
        try:
            while self._dirty and self.files is not None:
                with self._lock:
                    snapshot, self._dirty = list(self._list), False
                if not self.files.save(snapshot, wait=wait):
                    self._dirty = True
                    return
        except OSError:
            log.warning(
                "could not save the search files beside the store; serving from memory", exc_info=True
            )
            self.files = None
        finally:
            self._saving.release()
