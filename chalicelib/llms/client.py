"""A chat LLM behind any OpenAI-compatible API (DeepSeek, OpenAI, vLLM, llama.cpp) with retries and limits.

A reply can also be read as the model writes it (``stream``: the OpenAI API's ``stream: true``, server-sent
chunks, the last with the tokens spent as ``stream_options.include_usage`` asks). Opening the stream is retried
like any call; once the words flow a failure is the caller's. A reader that stops early (a client that hung
up) closes the HTTP response, so the server stops generating.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from typing import Any, TypeVar

from chalicelib.config.llm import LLMConfig
from chalicelib.errors import LLMError
from chalicelib.llms.ratelimit import RateLimiter
from chalicelib.llms.spans import llm_span, reply_attributes
from chalicelib.registry import LLM_CLIENTS

T = TypeVar("T")

RETRYABLE = ("timeout", "rate_limited", "server_error", "connection")


@dataclass
class LLMReply:
    text: str
    model: str
    prompt_tokens: int
    completion_tokens: int
    attempts: int

    @property
    def usage(self) -> dict[str, int]:
        """What a response reports it spent."""
        return {"prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens}


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
        with llm_span(self.model, messages, temperature, json_mode, max_tokens) as span:
            reply = self.retried(
                messages,
                lambda timeout, attempt: self._call(
                    messages, temperature, json_mode, max_tokens, timeout, attempt
                ),
                deadline=deadline,
                retries=retries,
            )
            reply_attributes(span, reply)
            self.usage.add(reply)
            return reply

    def stream(
        self,
        messages: list[dict[str, str]],
        *,
        temperature: float = 0.2,
        json_mode: bool = False,
        max_tokens: int | None = None,
    ) -> StreamedReply:
        """One chat completion as the model writes it: iterate for its text, piece by piece (StreamedReply)."""
        return StreamedReply(self, messages, temperature, json_mode, max_tokens)

    def retried(
        self,
        messages: list[dict[str, str]],
        call: Callable[[float, int], T],
        *,
        deadline: float | None = None,
        retries: int | None = None,
    ) -> T:
        """``call(timeout, attempt)`` retried on 429 / 5xx / timeouts behind the rate limiter; ``deadline``
        (monotonic) bounds it all."""
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
                return call(timeout, attempt + 1)
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

    def request(
        self,
        messages: list[dict[str, str]],
        temperature: float,
        json_mode: bool,
        max_tokens: int | None,
        timeout: float,
    ) -> dict[str, Any]:
        """The chat completion's arguments for the openai SDK."""
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
        return kwargs

    def _call(
        self,
        messages: list[dict[str, str]],
        temperature: float,
        json_mode: bool,
        max_tokens: int | None,
        timeout: float,
        attempts: int,
    ) -> LLMReply:
        kwargs = self.request(messages, temperature, json_mode, max_tokens, timeout)
        with openai_errors(timeout):
            response = self.client().chat.completions.create(**kwargs)
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


@contextmanager
def openai_errors(timeout: float) -> Iterator[None]:
    """The openai SDK's errors as LLMError, with a stable reason (and the server's Retry-After)."""
    import openai

    try:
        yield
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


class StreamedReply:
    """Iterate for the reply's text, piece by piece; ``reply`` holds the whole of it once the stream ended."""

    def __init__(
        self,
        llm: ChatLLM,
        messages: list[dict[str, str]],
        temperature: float,
        json_mode: bool,
        max_tokens: int | None,
    ) -> None:
        self.llm = llm
        self.messages = messages
        self.temperature = temperature
        self.json_mode = json_mode
        self.max_tokens = max_tokens
        self.reply: LLMReply | None = None

    def __iter__(self) -> Iterator[str]:
        llm, messages = self.llm, self.messages
        with llm_span(
            llm.model, messages, self.temperature, self.json_mode, self.max_tokens, streamed=True
        ) as span:
            stream, attempts, timeout = llm.retried(
                messages, lambda timeout, attempt: (self._open(timeout), attempt, timeout)
            )
            pieces: list[str] = []
            model, usage = llm.model, None
            try:
                with openai_errors(timeout):
                    for chunk in stream:
                        model = getattr(chunk, "model", None) or model
                        usage = getattr(chunk, "usage", None) or usage
                        delta = chunk.choices[0].delta.content if chunk.choices else None
                        if delta:
                            pieces.append(delta)
                            yield delta
            except GeneratorExit:
                span.set(
                    "sabio.cancelled", True
                )  # the reader stopped: the server is told by the closed socket
                raise
            finally:
                stream.close()
            self.reply = _whole_reply(pieces, model, usage, attempts)
            reply_attributes(span, self.reply)
            llm.usage.add(self.reply)

    def _open(self, timeout: float) -> Any:
        kwargs = self.llm.request(self.messages, self.temperature, self.json_mode, self.max_tokens, timeout)
        kwargs.update(stream=True, stream_options={"include_usage": True})
        with openai_errors(timeout):
            return self.llm.client().chat.completions.create(**kwargs)


def _whole_reply(pieces: list[str], model: str, usage: Any, attempts: int) -> LLMReply:
    text = "".join(pieces)
    if not text.strip():
        raise LLMError("empty", "the model returned no text")
    return LLMReply(
        text=text,
        model=model,
        prompt_tokens=int(getattr(usage, "prompt_tokens", 0) or 0),
        completion_tokens=int(getattr(usage, "completion_tokens", 0) or 0),
        attempts=attempts,
    )


@LLM_CLIENTS.register("openai")
def build(config: LLMConfig, model: str) -> ChatLLM:
    """SABIO_LLM_CLIENT=openai (the default): the openai SDK, for any OpenAI-compatible server."""
    return ChatLLM(config, model=model)
