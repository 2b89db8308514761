"""What a search of the embedded store needs besides SQLite, held in memory and saved beside the store file:
the vectors and BM25 postings in segments, the approximate k-NN index past the brute-force range, each
chunk's hubness."""
