"""Pipelines: ingest (index documents), retrieve (specific), answer (extractive)."""
