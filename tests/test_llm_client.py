"""The OpenAI-compatible client over real HTTP: timeouts, 429 with Retry-After, 5xx, and what is not retried."""

from __future__ import annotations

import random

import pytest

from chalicelib.llms.client import ChatLLM, LLMConfig, LLMError, backoff_delay, parse_retry_after
from chalicelib.llms.json_repair import JSONReplyError, parse_json_object
from chalicelib.llms.ratelimit import RateLimiter
from tests.llm_server import LLMTestServer, Reply, Status

MESSAGES = [{"role": "user", "content": "hola"}]


@pytest.fixture
def server():  # type: ignore[no-untyped-def]
    with LLMTestServer() as s:
        yield s


def client(server: LLMTestServer, sleeps: list[float] | None = None, **kw: object) -> ChatLLM:
    config = LLMConfig(base_url=server.base_url, model="test-model", **kw)  # type: ignore[arg-type]
    record = sleeps.append if sleeps is not None else (lambda s: None)
    return ChatLLM(config, sleep=record, rng=random.Random(0))


def test_a_reply_slower_than_the_timeout_is_retried_then_reported(server):
    server.enqueue(Reply("late", delay_s=1.5), Reply("late", delay_s=1.5))
    llm = client(server, timeout_s=0.3, max_retries=1)
    with pytest.raises(LLMError) as err:
        llm.complete(MESSAGES)
    assert err.value.reason == "timeout" and server.count() == 2


def test_429_honours_retry_after_then_succeeds(server):
    server.enqueue(Status(429, {"Retry-After": "2"}), Reply("done"))
    sleeps: list[float] = []
    reply = client(server, sleeps, max_retries=2).complete(MESSAGES)
    assert reply.text == "done" and server.count() == 2
    assert sleeps and sleeps[0] >= 2.0  # never sooner than the server asked


def test_500_is_retried_with_backoff_and_gives_up_after_max_retries(server):
    server.enqueue(Status(500), Status(502), Reply("recovered"))
    sleeps: list[float] = []
    assert client(server, sleeps, max_retries=3).complete(MESSAGES).text == "recovered"
    assert len(sleeps) == 2
    server.enqueue(*[Status(500)] * 3)
    with pytest.raises(LLMError) as err:
        client(server, max_retries=2).complete(MESSAGES)
    assert err.value.reason == "server_error" and server.count() == 3 + 3


def test_client_errors_are_not_retried(server):
    server.enqueue(Status(400, message="bad model"))
    llm = client(server, max_retries=3)
    with pytest.raises(LLMError) as err:
        llm.complete(MESSAGES)
    assert err.value.reason == "client_error" and server.count() == 1
    assert llm.usage.requests == 1


def test_usage_counts_tokens_and_requests(server):
    llm = client(server)
    llm.complete(MESSAGES)
    llm.complete(MESSAGES)
    assert llm.usage.requests == 2 and llm.usage.prompt_tokens >= 0 and llm.usage.completion_tokens >= 2


def test_backoff_is_bounded_jittered_and_respects_retry_after():
    rng = random.Random(1)
    delays = [backoff_delay(a, 0.5, 8.0, None, rng) for a in range(10)]
    assert all(0 <= d <= 8.0 for d in delays) and len(set(delays)) > 5
    assert backoff_delay(0, 0.5, 8.0, 30.0, rng) == 30.0
    assert (
        parse_retry_after("3") == 3.0
        and parse_retry_after(None) is None
        and parse_retry_after("soon") is None
    )


def test_rate_limiter_spaces_requests_and_tokens():
    now = [0.0]
    waits: list[float] = []

    def sleep(s: float) -> None:
        waits.append(s)
        now[0] += s

    limiter = RateLimiter(requests_per_minute=60, tokens_per_minute=600, clock=lambda: now[0], sleep=sleep)
    for _ in range(60):
        limiter.acquire(5)
    assert now[0] == 0.0  # a full bucket lets the first minute's burst through
    limiter.acquire(5)
    assert now[0] == pytest.approx(1.0, abs=0.01)  # then one request per second
    limiter.acquire(600)
    # 305 of 600 tokens were used, refilling at 10/s: a 600-token request waits for a full bucket
    assert now[0] == pytest.approx(1.0 + 295 / 10, abs=0.05)


@pytest.mark.parametrize(
    "reply",
    [
        '{"a": 1}',
        '```json\n{"a": 1}\n```',
        'Here you go:\n```\n{"a": 1,}\n```\nAnything else?',
        'Sure! {"a": 1} hope it helps',
        "{\u201ca\u201d: 1}",
        'Here: {"a": 1} and, for the next chunk, {"b": 2}',  # the first of two objects
    ],
)
def test_json_replies_are_repaired(reply):
    assert parse_json_object(reply) == {"a": 1}


def test_a_valid_object_with_code_fences_inside_a_string_is_kept():
    reply = '{"summary": "Instala con:\\n```bash\\npip install x\\n```", "a": 1}'
    assert parse_json_object(reply)["a"] == 1
    assert parse_json_object("```json\n" + reply + "\n```")["a"] == 1


@pytest.mark.parametrize("reply", ["", "no json here", "[1, 2]", '{"a": '])
def test_hopeless_replies_are_refused(reply):
    with pytest.raises(JSONReplyError):
        parse_json_object(reply)


def test_an_llm_failure_is_an_upstream_error_with_the_wait_the_server_asked_for(server):
    from chalicelib.errors import UpstreamError, http_status

    server.enqueue(Status(429, {"Retry-After": "7"}))
    with pytest.raises(LLMError) as err:
        client(server, max_retries=0).complete(MESSAGES)
    assert err.value.reason == "rate_limited" and err.value.retry_after == 7.0
    # should it reach a caller (an MCP tool, a route), it is said as any upstream failure is
    assert isinstance(err.value, UpstreamError) and http_status(err.value) == 502
    assert err.value.to_dict()["code"] == "llm_error"
