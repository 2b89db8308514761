"""A chat LLM behind any OpenAI-compatible API (DeepSeek, OpenAI, vLLM, llama.cpp) with retries and limits."""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from typing import Any

from pydantic import Field, SecretStr

from chalicelib.config_section import ConfigSection
from chalicelib.errors import LLMError
from chalicelib.llms.ratelimit import RateLimiter

RETRYABLE = ("timeout", "rate_limited", "server_error", "connection")


class LLMConfig(ConfigSection):
    """LLM (optional): any OpenAI-compatible API (DeepSeek, OpenAI, vLLM, llama.cpp server); off with no base URL."""

    base_url: str | None = Field(
        None,
        alias="llm_base_url",
        description="OpenAI-compatible base URL, e.g. https://api.deepseek.com/v1; unset: no LLM",
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


@dataclass
class LLMReply:
    text: str
    model: str
    prompt_tokens: int
    completion_tokens: int
    attempts: int


@dataclass
class Usage:
    """Tokens and requests spent, summed over threads."""

    requests: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def add(self, reply: LLMReply) -> None:
        with self._lock:
            self.requests += 1
            self.prompt_tokens += reply.prompt_tokens
            self.completion_tokens += reply.completion_tokens

    def as_dict(self) -> dict[str, int]:
        return {
            "requests": self.requests,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
        }


MAX_RETRY_AFTER_S = 120.0


def backoff_delay(
    attempt: int, base: float, cap: float, retry_after: float | None, rng: random.Random
) -> float:
    """Full-jitter exponential backoff (capped); a server's ``Retry-After`` is a floor, never shortened."""
    delay = rng.uniform(0, min(cap, base * (2**attempt)))
    return max(delay, retry_after) if retry_after is not None else delay


def parse_retry_after(value: str | None) -> float | None:
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        return max(0.0, parsedate_to_datetime(value).timestamp() - time.time())
    except (TypeError, ValueError):
        return None


def estimate_tokens(messages: list[dict[str, str]]) -> int:
    return sum(len(m.get("content", "")) for m in messages) // 3 + 8


class ChatLLM:
    def __init__(
        self,
        config: LLMConfig,
        *,
        model: str | None = None,
        client: Any = None,
        limiter: RateLimiter | None = None,
        sleep: Callable[[float], None] = time.sleep,
        rng: random.Random | None = None,
    ) -> None:
        self.config = config
        self._model = model or config.model
        self._client = client
        self._lock = threading.Lock()
        self.limiter = limiter or RateLimiter(config.requests_per_minute, config.tokens_per_minute)
        self._sleep = sleep
        self._rng = rng or random.Random()
        self.usage = Usage()

    @property
    def model(self) -> str:
        return self._model

    def client(self) -> Any:
        with self._lock:
            if self._client is None:
                from openai import OpenAI  # lazy: only when an LLM is configured

                # retries are ours, so the client's own are off. Kept for a measured reason: the SDK's retries
                # cannot keep a time budget; against a 429 with Retry-After: 5, max_retries=2 took 10.0 s,
                # while complete(deadline=+2 s) gives up in 0.05 s (HyDE's budget is 2 s). Ours also pass the
                # rate limiter before each attempt and retry an empty reply (notes of issue 19)
                self._client = OpenAI(
                    base_url=self.config.base_url,
                    api_key=self.config.api_key.get_secret_value(),
                    max_retries=0,
                    timeout=self.config.timeout_s,
                )
            return self._client

    def complete(
        self,
        messages: list[dict[str, str]],
        *,
        temperature: float = 0.2,
        json_mode: bool = False,
        max_tokens: int | None = None,
        deadline: float | None = None,
        retries: int | None = None,
    ) -> LLMReply:
        """One chat completion, retried on 429 / 5xx / timeouts; ``deadline`` (monotonic) bounds it all."""
        max_retries = self.config.max_retries if retries is None else retries
        last: LLMError | None = None
        for attempt in range(max_retries + 1):
            timeout = self.config.timeout_s
            if deadline is not None:
                timeout = min(timeout, deadline - time.monotonic())
                if timeout <= 0.01:
                    raise LLMError("timeout", "time budget spent") from last
            self.limiter.acquire(estimate_tokens(messages))
            try:
                reply = self._call(messages, temperature, json_mode, max_tokens, timeout, attempt + 1)
                self.usage.add(reply)
                return reply
            except LLMError as exc:
                with self.usage._lock:
                    self.usage.requests += 1
                last = exc
                retry_after = exc.retry_after
                if (
                    exc.reason not in RETRYABLE
                    or attempt == max_retries
                    or (retry_after or 0) > MAX_RETRY_AFTER_S
                ):
                    raise
                delay = backoff_delay(
                    attempt, self.config.backoff_base_s, self.config.backoff_max_s, retry_after, self._rng
                )
                if deadline is not None and time.monotonic() + delay >= deadline:
                    raise
                self._sleep(delay)
        raise last or LLMError("server_error", "no attempt made")

    def _call(
        self,
        messages: list[dict[str, str]],
        temperature: float,
        json_mode: bool,
        max_tokens: int | None,
        timeout: float,
        attempts: int,
    ) -> LLMReply:
        import openai

        kwargs: dict[str, Any] = {
            "model": self._model,
            "messages": messages,
            "temperature": temperature,
            "timeout": timeout,
        }
        if json_mode and self.config.json_mode:  # the caller wants JSON, and the server takes the format
            kwargs["response_format"] = {"type": "json_object"}
        if max_tokens:
            kwargs["max_tokens"] = max_tokens
        try:
            response = self.client().chat.completions.create(**kwargs)
        except openai.APITimeoutError as exc:
            raise LLMError("timeout", f"no reply within {timeout:.1f}s") from exc
        except openai.RateLimitError as exc:
            wait = parse_retry_after(exc.response.headers.get("retry-after"))
            raise LLMError("rate_limited", str(exc)[:200], retry_after=wait) from exc
        except openai.APIConnectionError as exc:
            raise LLMError("connection", str(exc)[:200]) from exc
        except openai.APIStatusError as exc:
            reason = "server_error" if exc.status_code >= 500 else "client_error"
            wait = parse_retry_after(exc.response.headers.get("retry-after"))
            raise LLMError(reason, f"HTTP {exc.status_code}: {str(exc)[:200]}", retry_after=wait) from exc
        except openai.OpenAIError as exc:
            raise LLMError("bad_reply", str(exc)[:200]) from exc
        choice = response.choices[0] if response.choices else None
        text = (choice.message.content or "") if choice else ""
        if not text.strip():
            raise LLMError("empty", "the model returned no text")
        usage = response.usage
        return LLMReply(
            text=text,
            model=getattr(response, "model", None) or self._model,
            prompt_tokens=int(getattr(usage, "prompt_tokens", 0) or 0),
            completion_tokens=int(getattr(usage, "completion_tokens", 0) or 0),
            attempts=attempts,
        )
