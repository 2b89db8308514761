"""The LLM's settings: which OpenAI-compatible server and model, how it is retried and rate-limited, what it costs."""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, Field, SecretStr

from chalicelib.config.section import ConfigSection
from chalicelib.registry import LLM_CLIENTS


class LLMConfig(ConfigSection):
    """LLM (optional): any OpenAI-compatible API (DeepSeek, OpenAI, vLLM, llama.cpp server); off with no base URL."""

    base_url: str | None = Field(
        None,
        alias="llm_base_url",
        description="OpenAI-compatible base URL, e.g. https://api.deepseek.com/v1; unset: no LLM",
    )
    client: Annotated[str, AfterValidator(LLM_CLIENTS.require)] = Field(
        "openai",
        alias="llm_client",
        description="the registered client that speaks to it: openai (the openai SDK, for any OpenAI-compatible API)",
    )
    api_key: SecretStr = Field(
        SecretStr("not-needed"), alias="llm_api_key", description="API key (kept secret in logs and reprs)"
    )
    model: str = Field("deepseek-chat", alias="llm_model", description="the chat model")
    fallback_model: str | None = Field(
        None,
        alias="llm_fallback_model",
        description="answers when the model fails (then the extractive answerer)",
    )
    timeout_s: float = Field(30.0, gt=0, alias="llm_timeout_s", description="per-request timeout")
    max_retries: int = Field(
        3,
        ge=0,
        le=10,
        alias="llm_max_retries",
        description="retries on 429, 5xx and timeouts, with exponential backoff",
    )
    backoff_base_s: float = 0.5
    backoff_max_s: float = 20.0
    concurrency: int = Field(
        5, ge=1, le=64, alias="llm_concurrency", description="enrichment requests in flight"
    )
    requests_per_minute: float | None = Field(
        None,
        gt=0,
        alias="llm_requests_per_minute",
        description="client-side rate limit (a token bucket); unset: unlimited",
    )
    tokens_per_minute: float | None = Field(
        None,
        gt=0,
        alias="llm_tokens_per_minute",
        description="client-side token limit (a token bucket); unset: unlimited",
    )
    json_mode: bool = Field(
        True,
        alias="llm_json_mode",
        description="send response_format: json_object when a reply must be JSON (turn off for servers that "
        "reject it)",
    )
    price_input_per_mtok: float = Field(
        0.27, ge=0, alias="llm_price_input_per_mtok", description="USD per million prompt tokens"
    )
    price_output_per_mtok: float = Field(
        1.10, ge=0, alias="llm_price_output_per_mtok", description="USD per million completion tokens"
    )
