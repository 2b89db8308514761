"""Structure-aware chunking (see chunker.py)."""

from chalicelib.chunking.chunker import ChunkingConfig, chunk_document

__all__ = ["ChunkingConfig", "chunk_document"]
