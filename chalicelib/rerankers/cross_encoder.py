"""A cross-encoder run in this process: ``sentence_transformers.CrossEncoder`` from a local path (or a
model baked into the image), loaded once per process, batched, its input bounded by ``max_length``.
Multilingual default to bake in: ``BAAI/bge-reranker-v2-m3``."""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from chalicelib.errors import ConfigurationError, RerankError
from chalicelib.protocols import Reranking
from chalicelib.registry import RERANKERS

if TYPE_CHECKING:
    from chalicelib.config.retrieval import RerankConfig
    from chalicelib.registry import Wiring

log = logging.getLogger(__name__)
_LOADED: dict[tuple[str, int], Any] = {}  # one model per process, whatever builds the reranker
_LOCK = threading.Lock()


class CrossEncoderReranker:
    def __init__(self, model: str, max_length: int = 512, batch_size: int = 16) -> None:
        if not Path(model).exists():
            raise ConfigurationError(
                f"SABIO_RERANKER_MODEL={model!r}: no model there. The cross-encoder loads from a local "
                "path (download it into the image, e.g. BAAI/bge-reranker-v2-m3); nothing is downloaded "
                "at run time"
            )
        self.model = model
        self.max_length = max_length
        self.batch_size = batch_size

    @property
    def name(self) -> str:
        return Path(self.model).name

    def loaded(self) -> Any:
        key = (self.model, self.max_length)
        with _LOCK:
            if key not in _LOADED:
                try:
                    from sentence_transformers import CrossEncoder

                    _LOADED[key] = CrossEncoder(
                        self.model, max_length=self.max_length, device="cpu", local_files_only=True
                    )
                except Exception as exc:  # a broken model directory must not fail the request
                    log.error("the cross-encoder at %s did not load: %s", self.model, exc)
                    raise RerankError("load_failed", type(exc).__name__) from exc  # no paths to callers
            return _LOADED[key]

    def rerank(self, question: str, passages: Sequence[str], timeout_s: float) -> Reranking:
        if not passages:
            return Reranking([])
        model = self.loaded()
        scores = model.predict(
            [(question, p) for p in passages], batch_size=self.batch_size, show_progress_bar=False
        )
        return Reranking([float(s) for s in scores])


@RERANKERS.register("cross-encoder")
def build(config: RerankConfig, wiring: Wiring) -> CrossEncoderReranker:
    """SABIO_RERANKER=cross-encoder: the model directory SABIO_RERANKER_MODEL names."""
    if not config.model:
        raise ConfigurationError(
            "SABIO_RERANKER=cross-encoder needs SABIO_RERANKER_MODEL (a local model path)"
        )
    return CrossEncoderReranker(config.model, max_length=config.max_length)
