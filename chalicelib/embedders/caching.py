"""An embedder wrapper that remembers vectors by text (SQLite), so variants and reruns never re-embed."""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from chalicelib.models.records import EmbeddingSpace
from chalicelib.protocols import Embedder


class CachingEmbedder:
    def __init__(self, inner: Embedder, path: str | Path) -> None:
        self.inner = inner
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(str(path), timeout=120, check_same_thread=False)
        self._db.execute("CREATE TABLE IF NOT EXISTS vectors (key TEXT PRIMARY KEY, vector BLOB NOT NULL)")
        self.hits = 0
        self.misses = 0

    @property
    def space(self) -> EmbeddingSpace:
        return self.inner.space

    def _key(self, kind: str, text: str) -> str:
        return hashlib.sha256(f"{self.space.model_id}\x00{kind}\x00{text}".encode()).hexdigest()

    def _get(self, keys: list[str]) -> dict[str, np.ndarray]:
        found: dict[str, np.ndarray] = {}
        for start in range(0, len(keys), 500):
            part = keys[start : start + 500]
            rows = self._db.execute(
                f"SELECT key, vector FROM vectors WHERE key IN ({','.join('?' * len(part))})", part
            ).fetchall()
            found.update({k: np.frombuffer(v, dtype=np.float32) for k, v in rows})
        return found

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        keys = [self._key("passage", t) for t in texts]
        found = self._get(keys)
        todo = [i for i, k in enumerate(keys) if k not in found]
        if todo:
            vectors = self.inner.embed_documents([texts[i] for i in todo])
            self._db.executemany(
                "INSERT OR REPLACE INTO vectors VALUES (?, ?)",
                [
                    (keys[i], np.asarray(v, dtype=np.float32).tobytes())
                    for i, v in zip(todo, vectors, strict=True)
                ],
            )
            self._db.commit()
            found.update(
                {keys[i]: np.asarray(v, dtype=np.float32) for i, v in zip(todo, vectors, strict=True)}
            )
        self.hits += len(keys) - len(todo)
        self.misses += len(todo)
        return (
            np.vstack([found[k] for k in keys]) if keys else np.zeros((0, self.space.dim), dtype=np.float32)
        )

    def embed_query(self, text: str) -> np.ndarray:
        key = self._key("query", text)
        found = self._get([key])
        if key not in found:
            vector = np.asarray(self.inner.embed_query(text), dtype=np.float32)
            self._db.execute("INSERT OR REPLACE INTO vectors VALUES (?, ?)", (key, vector.tobytes()))
            self._db.commit()
            return vector
        return found[key]
