"""The stream function as AWS runs it: its start script (chalicelib/streaming/run.sh) starts the web server the
Lambda Web Adapter proxies to; a Function URL event (tests/events/function_url_answer.json, the version 2.0
payload) is turned into the HTTP request the adapter sends (its method, path, headers, base64 body, and the
request context in ``x-amzn-request-context``), and the answer streams back with the API's keys and errors."""

from __future__ import annotations

import base64
import http.client
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bench.load import free_port
from chalicelib.composition import Container
from chalicelib.settings import Settings
from tests.conftest import ROOT
from tests.test_streaming import DOCS, sse

EVENT = json.loads((ROOT / "tests" / "events" / "function_url_answer.json").read_text(encoding="utf-8"))
KEYS = {"ops-key": {"name": "ops", "all_documents": True}}


@pytest.fixture(scope="module")
def function(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[int, subprocess.Popen[str]]]:
    """The stream function's server, started by its handler script from another folder, as the adapter does."""
    tmp = tmp_path_factory.mktemp("stream-function")
    folder = tmp / "docs"
    folder.mkdir()
    for name, text in DOCS.items():
        (folder / name).write_text(text, encoding="utf-8")
    store = tmp / "sabio.db"
    Container(Settings(store_path=str(store), default_readers="public")).ingestor().index_folder(
        folder, "docs"
    )
    port = free_port()
    env = {
        **os.environ,
        "SABIO_PYTHON": sys.executable,
        "AWS_LWA_PORT": str(port),
        "SABIO_STORE_PATH": str(store),
        "SABIO_AUTH": "keys",
        "SABIO_API_KEYS": json.dumps(KEYS),
        "SABIO_TELEMETRY": "on",
    }
    script = ROOT / "chalicelib" / "streaming" / "run.sh"
    process = subprocess.Popen([str(script)], cwd=tmp, env=env, stdout=subprocess.PIPE, text=True)
    assert ready(port), "the server never answered the adapter's readiness check"
    yield port, process
    process.terminate()
    process.wait(timeout=10)


def ready(port: int, timeout_s: float = 60) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            status, _, _ = send(port, "GET", "/health", {}, b"")
            return status == 200
        except OSError:
            time.sleep(0.1)
    return False


def send(port: int, method: str, path: str, headers: dict[str, str], body: bytes) -> tuple[int, str, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    conn.request(method, path, body=body or None, headers=headers)
    reply = conn.getresponse()
    data = reply.read()
    conn.close()
    return reply.status, reply.getheader("Content-Type") or "", data


def adapted(event: dict[str, Any]) -> tuple[str, str, dict[str, str], bytes]:
    """The HTTP request the Lambda Web Adapter makes of a Function URL event."""
    context = event["requestContext"]
    path = event["rawPath"] + (f"?{event['rawQueryString']}" if event.get("rawQueryString") else "")
    body = event.get("body") or ""
    raw = base64.b64decode(body) if event.get("isBase64Encoded") else body.encode()
    headers = {**event["headers"], "x-amzn-request-context": json.dumps(context)}
    return context["http"]["method"], path, headers, raw


def test_a_function_url_event_streams_its_answer(function):
    port, _ = function
    status, kind, body = send(port, *adapted(EVENT))
    assert (status, kind) == (200, "text/event-stream")
    events = sse(body)
    assert [e.name for e in events] == ["sources", "delta", "answer", "end"]
    assert "9:00" in events[2].data["answer"] and events[2].data["citations"]


def test_a_function_url_event_without_a_key_is_refused_as_the_api_refuses_it(function):
    port, _ = function
    event = {**EVENT, "headers": {k: v for k, v in EVENT["headers"].items() if k != "x-api-key"}}
    status, kind, body = send(port, *adapted(event))
    assert (status, kind) == (401, "application/json") and json.loads(body)["code"] == "unauthorized"
    wrong = {**EVENT, "headers": {**EVENT["headers"], "x-api-key": "not-a-key"}}
    assert send(port, *adapted(wrong))[0] == 403
    bad = {**EVENT, "body": json.dumps({"query": "hola", "top_k": 0}), "isBase64Encoded": False}
    status, _, body = send(port, *adapted(bad))
    assert status == 400 and json.loads(body)["field"] == "top_k"


def test_only_answers_stream_here(function):
    port, _ = function
    retrieve = {**EVENT, "rawPath": "/retrieve"}
    status, kind, body = send(port, *adapted(retrieve))
    assert (status, kind) == (404, "application/json") and "streams /answer" in json.loads(body)["message"]


def test_the_answers_log_line_carries_the_function_urls_request_id(function, tmp_path: Path):
    port, process = function
    assert send(port, *adapted(EVENT))[0] == 200
    process.terminate()
    out, _ = process.communicate(timeout=10)
    lines = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    answers = [line for line in lines if line.get("message") == "answer"]  # not the metrics blobs
    assert answers, lines
    assert all(line.get("request_id") == EVENT["requestContext"]["requestId"] for line in answers), answers
