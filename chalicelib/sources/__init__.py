"""Sources beyond a folder or a bucket, brought in through the one indexing path (``Ingestor``)."""
