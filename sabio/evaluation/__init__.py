"""Retrieval evaluation: BEIR-shaped datasets, metrics, and the runner that compares configurations."""
