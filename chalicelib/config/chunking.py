"""How documents are cut: each chunk's token budget (chalicelib/chunking reads it)."""

from __future__ import annotations

from pydantic import Field as PField

from chalicelib.config.section import ConfigSection


class ChunkingConfig(ConfigSection):
    """Chunking: each chunk's token budget (counted by text.token_estimate)."""

    max_tokens: int = PField(
        300, ge=32, le=2000, alias="chunk_max_tokens", description="a chunk's token budget"
    )
    min_tokens: int = PField(
        60,
        ge=0,
        le=1000,
        alias="chunk_min_tokens",
        description="sections under this many tokens merge with their siblings",
    )
