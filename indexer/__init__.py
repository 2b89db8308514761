"""The indexer job: entry points that feed documents to chalicelib.ingest.indexer."""
