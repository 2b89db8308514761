"""Indexing: walking a folder, cutting and enriching documents, writing their chunks, the mass-delete guard, S3 events, reconciliation and verification."""
