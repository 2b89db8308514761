"""Hand-written fakes for plumbing tests (the real model has tests of its own)."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import numpy as np

from chalicelib.models.records import EmbeddingSpace
from chalicelib.text import fold, words


class HashEmbedder:
    """Deterministic bag-of-words vectors: texts sharing words are close; counts every call."""

    def __init__(self, dim: int = 64, model_id: str = "fake-hash") -> None:
        self._space = EmbeddingSpace(model_id, dim)
        self.embedded: list[str] = []

    @property
    def space(self) -> EmbeddingSpace:
        return self._space

    def _vector(self, text: str) -> np.ndarray:
        v = np.zeros(self._space.dim, dtype=np.float32)
        for w in words(fold(text)):
            h = int.from_bytes(hashlib.blake2b(w.encode(), digest_size=4).digest(), "little")
            v[h % self._space.dim] += 1.0
        n = np.linalg.norm(v)
        return v / n if n else v

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        self.embedded.extend(texts)
        return (
            np.vstack([self._vector(t) for t in texts])
            if texts
            else np.zeros((0, self._space.dim), np.float32)
        )

    def embed_query(self, text: str) -> np.ndarray:
        return self._vector(text)
