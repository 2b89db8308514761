"""The store's segments on disk, beside the SQLite file (``<store>.search/``): what a search needs that SQLite
cannot hand over quickly, so that a process opening the store loads it instead of rebuilding it.

Each segment is a folder of numpy arrays (its rows' ids and chunk-id checks, their vectors, their BM25
postings) and its vocabulary, never changed once written. ``segments.json`` names the segments that make up
the store's index; it is replaced atomically, last, after every folder it names is complete on disk; folders
it does not name are leftovers of a merge or of a write that was cut short, and are removed by the next
writer. So a process killed at any point of a write leaves either the list before or the list after it, each
naming complete folders. One process writes at a time (an advisory lock); readers take none.

A segment names rows by their SQLite row id; a row id names one text and one vector for good (ids only grow).
What is read back is still checked against the store (its id, and each row's chunk-id check) before use
(chalicelib.stores.sqlite.search.segments): the folder may have been written by another store that lived at this path,
or for rows a restored copy of the store no longer has.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import logging
import os
import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from chalicelib.stores.sqlite.search.bm25_index import Segment

log = logging.getLogger("chalicelib.stores.sqlite")
FORMAT = 1
LIST = "segments.json"
_ARRAYS = ("rids", "checks", "vectors", "lengths", "bounds", "docs", "freqs")
_MAPPED = {"vectors", "docs", "freqs"}  # read from the page cache as searches need them


class SegmentFiles:
    """The segments of the store ``owner`` in ``folder``."""

    def __init__(self, folder: Path, owner: str) -> None:
        self.folder = folder
        self.owner = owner

    def load(self) -> list[Segment]:
        """The segments ``segments.json`` names, or none when there is nothing usable (absent, another store's,
        another format, a folder missing or unreadable: those rows are then built again from SQLite)."""
        for _ in range(3):  # a writer may remove a folder between reading the list and opening it
            try:
                listed = json.loads((self.folder / LIST).read_text(encoding="utf-8"))
                if listed.get("owner") != self.owner or listed.get("format") != FORMAT:
                    return []
                return [_read(self.folder / name, name) for name in listed["segments"]]
            except FileNotFoundError as missing:
                if missing.filename and Path(missing.filename).name == LIST:
                    return []
            except (OSError, ValueError, KeyError, TypeError):
                log.warning(
                    "the search files in %s are unreadable; rebuilding them", self.folder, exc_info=True
                )
                return []
        return []

    def save(self, segments: list[Segment], wait: bool = True) -> bool:
        """``segments`` made the store's index on disk: each folder written if it is not there, then the list,
        then the leftovers removed. False when another process is writing (``wait``: after it has)."""
        self.folder.mkdir(parents=True, exist_ok=True)
        with self._locked(wait) as held:
            if not held:
                return False
            for segment in segments:
                if segment.name is None or not (self.folder / segment.name).is_dir():
                    segment.name = _write(self.folder, segment)
            names = [s.name for s in segments]
            _atomic(
                self.folder / LIST, json.dumps({"owner": self.owner, "format": FORMAT, "segments": names})
            )
            for leftover in self.folder.iterdir():
                if leftover.is_dir() and leftover.name not in names:
                    shutil.rmtree(leftover, ignore_errors=True)
                elif leftover.suffix == ".tmp":
                    leftover.unlink(missing_ok=True)
        return True

    @contextlib.contextmanager
    def _locked(self, wait: bool) -> Iterator[bool]:
        with open(self.folder / "lock", "a+b") as f:
            try:
                fcntl.flock(f, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
            except BlockingIOError:
                yield False
                return
            try:
                yield True
            finally:
                fcntl.flock(f, fcntl.LOCK_UN)


def _write(folder: Path, segment: Segment) -> str:
    """One segment's folder, complete on disk (every file synced) before it takes its name."""
    name = f"{int(segment.rids.min()) if len(segment.rids) else 0}-{len(segment.rids)}-{uuid.uuid4().hex[:8]}"
    partial = folder / f"{name}.partial"
    partial.mkdir()
    for field in _ARRAYS:
        with open(partial / f"{field}.npy", "wb") as f:
            np.save(f, np.ascontiguousarray(getattr(segment, field)))
            f.flush()
            os.fsync(f.fileno())
    _synced(partial / "vocabulary.json", json.dumps(segment.vocabulary, ensure_ascii=False))
    _sync_folder(partial)
    partial.rename(folder / name)
    _sync_folder(folder)
    return name


def _read(path: Path, name: str) -> Segment:
    arrays = {
        field: np.load(path / f"{field}.npy", mmap_mode="r" if field in _MAPPED else None, allow_pickle=False)
        for field in _ARRAYS
    }
    raw, stems = json.loads((path / "vocabulary.json").read_text(encoding="utf-8"))
    segment = Segment(**arrays, vocabulary=(raw, stems), name=name)
    n, keys = len(segment.rids), len(raw) + len(stems)
    if not (
        len(segment.checks) == len(segment.lengths) == len(segment.vectors) == n
        and len(segment.bounds) == keys + 1
        and int(segment.bounds[-1]) == len(segment.docs) == len(segment.freqs)
    ):
        raise ValueError(f"segment {name} is inconsistent")
    return segment


def _atomic(path: Path, text: str) -> None:
    partial = path.with_name(f"{path.name}.{uuid.uuid4().hex[:8]}.tmp")
    _synced(partial, text)
    os.replace(partial, path)
    _sync_folder(path.parent)


def _synced(path: Path, text: str) -> None:
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())


def _sync_folder(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
