"""Any local sentence-transformers model (indexer image only: imports torch lazily, on first use)."""

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


class SentenceTransformerEmbedder:
    def __init__(
        self,
        model: str,
        *,
        query_prefix: str = "",
        passage_prefix: str = "",
        batch_size: int = 32,
        device: str = "cpu",
    ) -> None:
        self.model_name = model
        self.query_prefix = query_prefix
        self.passage_prefix = passage_prefix
        self.batch_size = batch_size
        self.device = device
        self._model: Any = None
        self._lock = threading.Lock()

    def warm_up(self) -> Any:
        with self._lock:
            if self._model is None:
                os.environ.setdefault("HF_HUB_OFFLINE", "1")  # weights must be local; never download
                from sentence_transformers import SentenceTransformer

                self._model = SentenceTransformer(self.model_name, device=self.device)
            return self._model

    @property
    def space(self) -> EmbeddingSpace:
        model = self.warm_up()
        get_dim = getattr(model, "get_embedding_dimension", None) or model.get_sentence_embedding_dimension
        dim = get_dim()
        return EmbeddingSpace(
            f"sentence-transformers:{os.path.basename(self.model_name.rstrip('/'))}", int(dim)
        )

    def _encode(self, texts: list[str]) -> np.ndarray:
        vectors = self.warm_up().encode(
            texts, batch_size=self.batch_size, normalize_embeddings=True, convert_to_numpy=True
        )
        return np.asarray(vectors, dtype=np.float32)

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        return self._encode([self.passage_prefix + t for t in texts])

    def embed_query(self, text: str) -> np.ndarray:
        return self._encode([self.query_prefix + text])[0]


@EMBEDDERS.register("sentence-transformers")
def build(config: EmbedderConfig) -> SentenceTransformerEmbedder:
    """SABIO_EMBEDDER=sentence-transformers: the local model SABIO_EMBEDDER_MODEL names, with its prefixes."""
    if not config.model:
        raise ValueError("SABIO_EMBEDDER_MODEL must name a local model path for sentence-transformers")
    return SentenceTransformerEmbedder(
        config.model, query_prefix=config.query_prefix, passage_prefix=config.passage_prefix
    )
