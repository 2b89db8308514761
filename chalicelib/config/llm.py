"""The LLM's settings: which OpenAI-compatible server and model, how it is retried and rate-limited, what it costs."""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, SecretStr

from chalicelib.config.section import ConfigSection, setting
from chalicelib.registry import LLM_CLIENTS


class LLMConfig(ConfigSection):
    """LLM (optional): any OpenAI-compatible API (DeepSeek, OpenAI, vLLM, llama.cpp server); off with no base URL."""

    base_url: str | None = setting(
        "llm_base_url", None, "OpenAI-compatible base URL, e.g. https://api.deepseek.com/v1; unset: no LLM"
    )
    client: Annotated[str, AfterValidator(LLM_CLIENTS.require)] = setting(
        "llm_client",
        "openai",
        "the registered client that speaks to it: openai (the openai SDK, for any OpenAI-compatible API)",
    )
    api_key: SecretStr = setting(
        "llm_api_key", SecretStr("not-needed"), "API key (kept secret in logs and reprs)"
    )
    model: str = setting("llm_model", "deepseek-chat", "the chat model")
    fallback_model: str | None = setting(
        "llm_fallback_model", None, "answers when the model fails (then the extractive answerer)"
    )
    timeout_s: float = setting("llm_timeout_s", 30.0, "per-request timeout", gt=0)
    max_retries: int = setting(
        "llm_max_retries", 3, "retries on 429, 5xx and timeouts, with exponential backoff", ge=0, le=10
    )
    backoff_base_s: float = 0.5
    backoff_max_s: float = 20.0
    concurrency: int = setting("llm_concurrency", 5, "enrichment requests in flight", ge=1, le=64)
    requests_per_minute: float | None = setting(
        "llm_requests_per_minute", None, "client-side rate limit (a token bucket); unset: unlimited", gt=0
    )
    tokens_per_minute: float | None = setting(
        "llm_tokens_per_minute", None, "client-side token limit (a token bucket); unset: unlimited", gt=0
    )
    json_mode: bool = setting(
        "llm_json_mode",
        True,
        "send response_format: json_object when a reply must be JSON (turn off for servers that reject it)",
    )
    price_input_per_mtok: float = setting(
        "llm_price_input_per_mtok", 0.27, "USD per million prompt tokens", ge=0
    )
    price_output_per_mtok: float = setting(
        "llm_price_output_per_mtok", 1.10, "USD per million completion tokens", ge=0
    )
