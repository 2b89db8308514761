"""``sabio serve`` as a user runs it: the store they name, concurrent requests during re-indexes, a clean stop.

These start the real command (which starts ``chalice local``) on a free port on 127.0.0.1 and talk HTTP.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from bench.load import HOURS, SABIO, Server, free_port, post, prepare, run_load, served_hour
from tests.conftest import ROOT

pytestmark = pytest.mark.slow


def port_open(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(0.5)
        return s.connect_ex(("127.0.0.1", port)) == 0


def wait_closed(port: int, seconds: float = 10) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not port_open(port):
            return True
        time.sleep(0.1)
    return False


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return prepare(tmp_path_factory.mktemp("serve"))


def test_serves_the_named_store_under_load_while_it_is_reindexed(corpus):
    store, folder = corpus
    server = Server(store)
    try:
        assert str(store) in server.banner and "documents" in server.banner, server.banner
        assert served_hour(server.url) == HOURS[0]
        result = run_load(server.url, store, folder, n=60, concurrency=10, reindexes=2)
        after = served_hour(server.url)
    finally:
        assert server.stop() == 0
    summary = result.summary()
    assert summary["failed"] == 0, summary["failures"]
    assert all(r["returncode"] == 0 for r in result.reindexes), result.reindexes
    assert len(result.outcomes) >= 60 and after == HOURS[2]  # the served answers follow the re-indexes
    assert wait_closed(server.port), "chalice local outlived sabio serve"


def test_sixty_clients_at_once_are_all_answered(corpus):
    """A web page's requests or an agent's parallel tool calls arrive together: chalice local's listen
    queue of five reset up to a tenth of them (bench/load.py at concurrency 60)."""
    store, _ = corpus
    server = Server(store)
    clients = 60
    start = threading.Barrier(clients)

    def ask(i: int) -> object:
        start.wait()
        try:
            return post(server.url, "/retrieve", {"query": f"¿A qué hora abre la oficina? {i}"})[0]
        except OSError as exc:
            return repr(exc)

    try:
        with ThreadPoolExecutor(clients) as pool:
            statuses = list(pool.map(ask, range(clients))) + list(pool.map(ask, range(clients)))
    finally:
        assert server.stop() == 0
    assert statuses == [200] * (2 * clients), [s for s in statuses if s != 200][:5]


def test_sabio_store_path_is_honoured_and_errors_have_sabios_shape(corpus, tmp_path):
    store, _ = corpus
    env = dict(os.environ, SABIO_STORE_PATH=str(store))
    port = free_port()
    process = subprocess.Popen(
        [*SABIO, "serve", "--port", str(port)], cwd=tmp_path, env=env, stdout=subprocess.PIPE, text=True
    )
    try:
        assert process.stdout is not None
        banner = next(line for line in process.stdout if line.startswith("Sabio is serving "))
        assert str(store) in banner
        url = f"http://127.0.0.1:{port}"
        status, body, _ = post(url, "/retrieve", {"query": "x", "top_k": True})
        assert status == 400 and body["code"] == "invalid_input" and body["field"] == "top_k"
        status, body, _ = post(url, "/nope/a/b/c", {})
        assert status == 404 and body["code"] == "not_found"
        # what the HTTP server refuses before the app sees it: JSON too, not an HTML page
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(f"{url}/chunks/{'a' * 100_000}", timeout=30)
        assert refused.value.code == 414
        assert refused.value.headers["Content-Type"] == "application/json"
        assert json.loads(refused.value.read())["code"] == "uri_too_long"
        # half a surrogate pair is named as such
        request = urllib.request.Request(
            f"{url}/retrieve", data=b'{"query": "\\ud800 hola"}', headers={"Content-Type": "application/json"}
        )
        with pytest.raises(urllib.error.HTTPError) as bad:
            urllib.request.urlopen(request, timeout=30)
        answer = json.loads(bad.value.read())
        assert bad.value.code == 400 and answer["code"] == "invalid_input"
        assert "surrogate pair" in answer["message"], answer
        # JSON nested past the parser's depth, on /answer too (read there first to see whether it streams)
        for path in ("/retrieve", "/answer"):
            status, body = post_raw(url, path, b"[" * 5000 + b"]" * 5000)
            assert status == 400 and body["code"] == "invalid_input", (path, body)
    finally:
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=30) == 0
    assert wait_closed(port)


def post_raw(url: str, path: str, data: bytes) -> tuple[int, dict]:
    """A POST of bytes as they are (``post`` sends a JSON value): its status and its JSON body."""
    request = urllib.request.Request(f"{url}{path}", data=data, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as refused:
        return refused.code, json.loads(refused.read())


def test_a_killed_sabio_serve_takes_chalice_local_with_it(corpus):
    store, _ = corpus
    server = Server(store)
    assert port_open(server.port)
    server.process.kill()  # SIGKILL: no handler runs; the child must still go (parent-death signal)
    server.process.wait()
    assert wait_closed(server.port), "chalice local was left orphaned, still serving"


def test_serve_help_names_the_reload_option():
    out = subprocess.run(
        [sys.executable, "-m", "sabio.cli", "serve", "--help"], cwd=ROOT, capture_output=True, text=True
    )
    assert "--reload" in out.stdout
