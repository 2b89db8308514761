"""A streamed answer from ``sabio serve`` as a client sees it over HTTP, against a local OpenAI-compatible
server that streams its tokens: the sources first, the words as they are written (not all at the end), the
same answer as without streaming, a client that hangs up stopping the model, bad input refused with the same
JSON as without streaming. Starts the real command (chalice local) on a free port."""

from __future__ import annotations

import http.client
import json
import time
from collections.abc import Iterator
from typing import Any

import pytest

from bench.load import Server, reindex
from tests.llm_server import LLMTestServer, Reply
from tests.test_streaming import DOCS, GOOD, QUESTION

pytestmark = pytest.mark.slow
KEYS = {"ops-key": {"name": "ops", "all_documents": True}}
DELAY_S = 0.04


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Server, LLMTestServer]]:
    tmp = tmp_path_factory.mktemp("serve-stream")
    folder = tmp / "docs"
    folder.mkdir()
    for name, text in DOCS.items():
        (folder / name).write_text(text, encoding="utf-8")
    (folder / ".sabio-read").write_text("public\n", encoding="utf-8")
    store = tmp / "sabio.db"
    assert reindex(store, folder)["returncode"] == 0
    with LLMTestServer(token_delay_s=DELAY_S) as llm:
        env = {
            "SABIO_LLM_BASE_URL": llm.base_url,
            "SABIO_LLM_MODEL": "primary",
            "SABIO_AUTH": "keys",
            "SABIO_API_KEYS": json.dumps(KEYS),
        }
        server = Server(store, env=env)
        assert server.banner, "sabio serve did not start"
        yield server, llm
        server.stop()


def connect(
    server: Server, body: object, accept: str = "text/event-stream", key: str | None = "ops-key"
) -> Any:
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
    headers = {"Content-Type": "application/json", "Accept": accept}
    if key:
        headers["x-api-key"] = key
    conn.request(
        "POST", "/answer", body=body if isinstance(body, bytes) else json.dumps(body), headers=headers
    )
    return conn, conn.getresponse()


def events_of(reply: Any) -> Iterator[tuple[float, str, dict[str, Any]]]:
    """Each event with the time it arrived."""
    name = ""
    while line := reply.fp.readline():
        text = line.decode().rstrip("\n")
        if text.startswith("event: "):
            name = text[7:]
        elif text.startswith("data: "):
            yield time.monotonic(), name, json.loads(text[6:])


def test_the_words_arrive_as_the_model_writes_them_and_the_answer_is_the_unstreamed_one(served):
    server, llm = served
    llm.enqueue(Reply(json.dumps(GOOD, ensure_ascii=False)), Reply(json.dumps(GOOD, ensure_ascii=False)))
    conn, reply = connect(server, {"query": QUESTION})
    assert reply.status == 200 and reply.getheader("Content-Type") == "text/event-stream"
    got = list(events_of(reply))
    conn.close()
    names = [name for _, name, _ in got]
    assert names[0] == "sources" and names[-2:] == ["answer", "end"] and set(names[1:-2]) == {"delta"}, names
    deltas = [at for at, name, _ in got if name == "delta"]
    answered_at = next(at for at, name, _ in got if name == "answer")
    # the first words arrive while the model is still writing the rest of its reply (its citations take
    # ~20 more pieces, DELAY_S apart), not all at once at the end
    assert answered_at - deltas[0] > 8 * DELAY_S, (deltas, answered_at)
    answer = got[-2][2]
    _, plain_reply = connect(server, {"query": QUESTION}, accept="application/json")
    plain = json.loads(plain_reply.read())
    assert answer["answer"] == plain["answer"] and answer["citations"] == plain["citations"]
    assert answer["answered_by"] == "llm" and answer["withdrawn"] is None
    assert "".join(d["text"] for _, name, d in got if name == "delta") == GOOD["answer"]


def test_a_client_that_hangs_up_stops_the_models_stream(served):
    server, llm = served
    llm.enqueue(Reply(json.dumps({**GOOD, "answer": GOOD["answer"] * 8}, ensure_ascii=False)))
    before = len(llm.streams)
    conn, reply = connect(server, {"query": QUESTION, "stream": True})
    seen = 0
    for _, name, _ in events_of(reply):
        seen += name == "delta"
        if seen == 2:
            break
    reply.close()  # the socket goes with the response that holds it
    conn.close()
    deadline = time.monotonic() + 10
    while len(llm.streams) <= before or not llm.streams[before].done.is_set():
        assert time.monotonic() < deadline, "the model's stream never ended"
        time.sleep(0.05)
    stream = llm.streams[before]
    assert stream.cancelled and stream.sent < stream.total / 2, stream


@pytest.mark.parametrize(
    ("body", "key", "status"),
    [
        ({"query": QUESTION}, None, 401),
        ({"query": QUESTION}, "wrong-key", 403),
        ({"quer": "x"}, "ops-key", 400),
        (b"{not json", "ops-key", 400),
        ({"query": "hola", "lang": "xx"}, "ops-key", 400),
        ({"query": "x" * 70_000}, "ops-key", 413),
    ],
)
def test_bad_input_gets_the_same_json_as_without_streaming_and_no_event(served, body, key, status):
    server, llm = served
    asked = len(llm.requests)
    replies = [connect(server, body, accept=accept, key=key)[1] for accept in ("text/event-stream", "*/*")]
    statuses = [r.status for r in replies]
    kinds = [r.getheader("Content-Type") for r in replies]
    bodies = [json.loads(r.read()) for r in replies]
    assert statuses == [status, status] and kinds == ["application/json"] * 2, (statuses, kinds)
    assert bodies[0] == bodies[1] and bodies[0]["code"], bodies
    assert len(llm.requests) == asked


def test_a_body_that_is_not_json_by_its_type_is_refused_as_the_route_refuses_it(served):
    server, _ = served
    for accept in ("text/event-stream", "application/json"):
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
        headers = {"Content-Type": "text/plain", "Accept": accept, "x-api-key": "ops-key"}
        conn.request("POST", "/answer", body=json.dumps({"query": QUESTION}), headers=headers)
        reply = conn.getresponse()
        assert reply.status == 415 and json.loads(reply.read())["code"] == "unsupported_media_type"
