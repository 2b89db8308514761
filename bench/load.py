"""Load on a real ``sabio serve``: N requests at concurrency C, with re-indexes of the store during the load.

Usage:  .venv/bin/python bench/load.py [--requests 500] [--concurrency 20] [--reindexes 2]
(``make bench`` runs it too.) Prints failures, p50/p95 per route, and whether the served answers changed to
the re-indexed text; writes bench/results/load-<UTC time>.json. Traffic goes to 127.0.0.1 only.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SABIO = [sys.executable, "-m", "sabio.cli"]
QUESTIONS = [
    "¿Cuánto cuesta Faro?",
    "How much does Marea cost?",
    "¿Cómo funcionan las automatizaciones de Marea?",
    "How do I restore a database to a point in time?",
    "¿Qué hago si Faro no recibe correos?",
    "¿A qué hora abre la oficina de Altamar?",
]
OFFICE = "# Horario de la oficina\n\nLa oficina de Altamar abre a las {hour} de lunes a viernes.\n"
HOURS = ["9:00", "8:30", "7:45", "10:15"]


@dataclass
class Outcome:
    route: str
    status: int
    ms: float
    error: str = ""


@dataclass
class LoadResult:
    outcomes: list[Outcome] = field(default_factory=list)
    reindexes: list[dict[str, object]] = field(default_factory=list)

    @property
    def failed(self) -> list[Outcome]:
        return [o for o in self.outcomes if o.status != 200]

    def summary(self) -> dict[str, object]:
        by_route: dict[str, object] = {}
        for route in sorted({o.route for o in self.outcomes}):
            ms = sorted(o.ms for o in self.outcomes if o.route == route and o.status == 200)
            if ms:
                by_route[route] = {
                    "n": len(ms),
                    "p50_ms": round(statistics.median(ms), 1),
                    "p95_ms": round(ms[min(len(ms) - 1, round(0.95 * (len(ms) - 1)))], 1),
                }
        return {
            "requests": len(self.outcomes),
            "failed": len(self.failed),
            "failures": [f"{o.route} {o.status} {o.error}"[:200] for o in self.failed[:10]],
            "by_route": by_route,
            "reindexes": self.reindexes,
        }


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def post(url: str, route: str, body: dict[str, object], timeout: float = 60.0) -> tuple[int, dict, float]:  # type: ignore[type-arg]
    data = json.dumps(body).encode()
    request = urllib.request.Request(url + route, data=data, headers={"Content-Type": "application/json"})
    t = time.perf_counter()
    try:
        with urllib.request.urlopen(request, timeout=timeout) as r:
            return r.status, json.load(r), (time.perf_counter() - t) * 1000
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read() or b"{}"), (time.perf_counter() - t) * 1000


def write_corpus(folder: Path, hour: str) -> None:
    (folder / "oficina.md").write_text(OFFICE.format(hour=hour), encoding="utf-8")


def reindex(store: Path, folder: Path) -> dict[str, object]:
    t = time.perf_counter()
    done = subprocess.run(
        [*SABIO, "--store", str(store), "index", str(folder), "--source-id", "examples"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    return {"returncode": done.returncode, "seconds": round(time.perf_counter() - t, 1)}


class Server:
    """``sabio --store STORE serve`` on a free port, as a user starts it."""

    def __init__(self, store: Path, env: dict[str, str] | None = None) -> None:
        self.store = store
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.process = subprocess.Popen(
            [*SABIO, "--store", str(store), "serve", "--port", str(self.port)],
            cwd=ROOT,
            env={**os.environ, **(env or {})},
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        self.banner = ""
        assert self.process.stdout is not None
        deadline = time.monotonic() + 120
        for line in self.process.stdout:  # wait for the line that says where and what it serves
            if line.startswith("Sabio is serving "):
                self.banner = line.strip()
                break
            if time.monotonic() > deadline:
                break
        threading.Thread(target=self._drain, daemon=True).start()

    def _drain(self) -> None:
        assert self.process.stdout is not None
        for _ in self.process.stdout:
            pass

    def stop(self) -> int:
        self.process.terminate()
        return self.process.wait(timeout=30)


def run_load(url: str, store: Path, folder: Path, n: int, concurrency: int, reindexes: int) -> LoadResult:
    """At least ``n`` requests (retrieve / answer in turn) at ``concurrency``; the k-th of ``reindexes``
    re-indexes (each changes the office hours) starts k/(reindexes+1) of the way through, and the load goes
    on until every re-index has finished, so each one runs under load."""
    result = LoadResult()
    lock = threading.Lock()
    issued = 0
    reindexing_done = threading.Event()
    if reindexes == 0:
        reindexing_done.set()

    def next_index() -> int | None:
        nonlocal issued
        with lock:
            if issued >= n and reindexing_done.is_set():
                return None
            issued += 1
            return issued - 1

    def worker() -> None:
        while (i := next_index()) is not None:
            route = "/retrieve" if i % 2 == 0 else "/answer"
            try:
                status, body, ms = post(url, route, {"query": QUESTIONS[i % len(QUESTIONS)], "top_k": 3})
                outcome = Outcome(route, status, ms, "" if status == 200 else str(body)[:200])
            except OSError as exc:
                outcome = Outcome(route, 0, 0.0, repr(exc))
            with lock:
                result.outcomes.append(outcome)

    def reindexer() -> None:
        for k in range(1, reindexes + 1):
            while True:
                with lock:
                    if len(result.outcomes) >= n * k // (reindexes + 1):
                        break
                time.sleep(0.05)
            write_corpus(folder, HOURS[k])
            result.reindexes.append(
                {"hour": HOURS[k], "during_request": len(result.outcomes), **reindex(store, folder)}
            )
        reindexing_done.set()

    threads = [threading.Thread(target=worker) for _ in range(concurrency)]
    background = threading.Thread(target=reindexer)
    for t in [*threads, background]:
        t.start()
    for t in [*threads, background]:
        t.join()
    return result


def prepare(tmp: Path) -> tuple[Path, Path]:
    """A copy of examples/ plus the office-hours page, indexed into a fresh store with the CLI."""
    folder = tmp / "corpus"
    shutil.copytree(ROOT / "examples", folder)
    write_corpus(folder, HOURS[0])
    store = tmp / "sabio.db"
    first = reindex(store, folder)
    assert first["returncode"] == 0, first
    return store, folder


def served_hour(url: str) -> str:
    _, body, _ = post(url, "/answer", {"query": "¿A qué hora abre la oficina de Altamar?"})
    answer = str(body.get("answer", ""))
    return next((h for h in HOURS if h in answer), answer[:80])


def measure(requests: int, concurrency: int, reindexes: int) -> dict[str, object]:
    """The load run on a fresh copy of examples/; its summary (failures, p50/p95, what was served after)."""
    with tempfile.TemporaryDirectory() as tmp:
        store, folder = prepare(Path(tmp))
        server = Server(store)
        try:
            before = served_hour(server.url)
            result = run_load(server.url, store, folder, requests, concurrency, reindexes)
            after = served_hour(server.url)
        finally:
            server.stop()
    return {
        "command": "bench/load.py",
        "when": datetime.now(UTC).isoformat(timespec="seconds"),
        "concurrency": concurrency,
        **result.summary(),
        "served_before": before,
        "served_after": after,
        "expected_after": HOURS[reindexes],
    }


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--requests", type=int, default=500)
    parser.add_argument("--concurrency", type=int, default=20)
    parser.add_argument("--reindexes", type=int, default=2)
    args = parser.parse_args()
    summary = measure(args.requests, args.concurrency, args.reindexes)
    out = ROOT / "bench" / "results" / f"load-{datetime.now(UTC).strftime('%Y%m%dT%H%M%SZ')}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(summary, indent=2, ensure_ascii=False))
    print(
        f"{summary['requests']} requests at concurrency {args.concurrency}, {args.reindexes} re-indexes: "
        f"{summary['failed']} failed"
    )
    for route, p in summary["by_route"].items():  # type: ignore[attr-defined]
        print(f"  {route:<10} p50 {p['p50_ms']:>7} ms   p95 {p['p95_ms']:>7} ms   (n={p['n']})")
    print(
        f"  office hours served: before {summary['served_before']}, after {summary['served_after']} "
        f"(expected {summary['expected_after']})"
    )
    print(f"wrote {out.relative_to(ROOT)}")
    return 0 if not summary["failed"] and summary["served_after"] == summary["expected_after"] else 1


if __name__ == "__main__":
    sys.exit(main())
