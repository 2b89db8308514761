"""The embedded store: manifest, chunks, BM25 and vectors in one SQLite file, reached through its facade
``SQLiteStore`` (its parts, file, rows, vectors and words, are its own), and the query log beside it."""

from chalicelib.stores.sqlite.store import SQLiteStore

__all__ = ["SQLiteStore"]
