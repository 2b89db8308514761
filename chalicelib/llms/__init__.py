"""LLMs through any OpenAI-compatible chat API: client with retries and rate limits, JSON repair."""
