"""Chunk enrichment: the offline heuristic enricher and the embedding-text format (source doc 000)."""
