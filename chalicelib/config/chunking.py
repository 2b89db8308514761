"""How documents are cut: each chunk's token budget (chalicelib/chunking reads it)."""

from __future__ import annotations

from chalicelib.config.section import ConfigSection, setting


class ChunkingConfig(ConfigSection):
    """Chunking: each chunk's token budget (counted by text.token_estimate)."""

    max_tokens: int = setting("chunk_max_tokens", 300, "a chunk's token budget", ge=32, le=2000)
    min_tokens: int = setting(
        "chunk_min_tokens", 60, "sections under this many tokens merge with their siblings", ge=0, le=1000
    )
