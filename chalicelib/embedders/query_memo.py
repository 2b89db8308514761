"""The last query vectors, remembered: the same question comes back (an FAQ, the web page's retrieve then
answer, an agent retrying) and its embedding is most of a retrieve's time (~30 ms of a user question)."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

import numpy as np

from chalicelib.models.records import EmbeddingSpace
from chalicelib.protocols import Embedder


class QueryMemo:
    """An embedder whose ``embed_query`` remembers up to ``size`` vectors by (model, text), least recently
    used out first; passages go straight through (indexing has its own cache)."""

    def __init__(self, inner: Embedder, size: int = 1024) -> None:
        self.inner = inner
        self.size = size
        self._vectors: OrderedDict[tuple[str, str], np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    @property
    def space(self) -> EmbeddingSpace:
        return self.inner.space

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        return self.inner.embed_documents(texts)

    def embed_query(self, text: str) -> np.ndarray:
        key = (self.space.model_id, text)
        with self._lock:
            found = self._vectors.get(key)
            if found is not None:
                self._vectors.move_to_end(key)
                return found.copy()  # callers may scale or average it in place
        vector = np.asarray(self.inner.embed_query(text), dtype=np.float32)
        with self._lock:
            self._vectors[key] = vector.copy()
            while len(self._vectors) > self.size:
                self._vectors.popitem(last=False)
        return vector

    def __getattr__(self, name: str) -> Any:  # warm_up, count_tokens, ... of the model underneath
        return getattr(self.inner, name)
