"""Questions as served: the query log, feedback, and the knowledge-gap report (insights)."""
