"""LLMs through any OpenAI-compatible chat API: client with retries and rate limits (registered under the
name ``SABIO_LLM_CLIENT`` gives: chalicelib/registry.py), JSON repair."""
