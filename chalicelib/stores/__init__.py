"""Storage backends: the embedded SQLite store (chunk store + vector index in one file)."""
