"""Bootstrap maps of a domain and what every response says beyond its items (summary, topics, follow-ups); which retrieval serves a request."""
