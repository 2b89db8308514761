"""Sabio: serverless multilingual RAG for company knowledge (the domain package)."""
