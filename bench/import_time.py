"""How long ``import app`` takes (the API Lambda's cold start before its first request), with tracing off, in
this tree and optionally in another one measured in the same run (runs interleaved, so both see the same
machine): ``python bench/import_time.py --against /path/to/other/checkout``.

Each run is a fresh interpreter that times ``import app`` alone (interpreter start-up excluded) and lists
whether any OpenTelemetry module was loaded. Prints the medians and the difference, writes
bench/results/import_time-<time>.json.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.results_file import write_result  # noqa: E402

PROBE = (
    "import json, sys, time; t = time.perf_counter(); import app; ms = (time.perf_counter() - t) * 1000; "
    "print(json.dumps({'ms': ms, 'otel': sorted(m for m in sys.modules if m.startswith('opentelemetry'))}))"
)


def once(tree: Path) -> dict[str, object]:
    """One fresh interpreter's ``import app`` in ``tree``, tracing off."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SABIO_TRACING", "SABIO_OTLP", "OTEL_"))}
    env["PYTHONPATH"] = str(tree)
    env["PYTHONDONTWRITEBYTECODE"] = "0"
    out = subprocess.run(
        [sys.executable, "-c", PROBE], cwd=tree, env=env, capture_output=True, text=True, check=True
    )
    result: dict[str, object] = json.loads(out.stdout)
    return result


def summary(times: list[float]) -> dict[str, float]:
    ordered = sorted(times)
    return {
        "median_ms": round(statistics.median(ordered), 2),
        "mean_ms": round(statistics.fmean(ordered), 2),
        "p10_ms": round(ordered[len(ordered) // 10], 2),
        "p90_ms": round(ordered[(len(ordered) * 9) // 10], 2),
    }


def measure(trees: dict[str, Path], runs: int) -> dict[str, object]:
    for tree in trees.values():  # warm the bytecode caches: the first import compiles
        once(tree)
    times: dict[str, list[float]] = {name: [] for name in trees}
    otel: dict[str, set[str]] = {name: set() for name in trees}
    for _ in range(runs):
        for name, tree in trees.items():  # interleaved: drift on a shared machine hits both alike
            got = once(tree)
            times[name].append(float(got["ms"]))  # type: ignore[arg-type]
            otel[name].update(got["otel"])  # type: ignore[arg-type]
    result: dict[str, object] = {
        "runs": runs,
        "python": sys.version.split()[0],
        "trees": {
            name: {"path": str(tree), **summary(times[name]), "opentelemetry_loaded": sorted(otel[name])}
            for name, tree in trees.items()
        },
        "samples_ms": {name: [round(t, 2) for t in values] for name, values in times.items()},
    }
    if len(trees) == 2:
        (a, ta), (b, tb) = ((n, statistics.median(times[n])) for n in trees)
        result["difference_ms"] = round(ta - tb, 2)
        result["ratio"] = round(ta / tb, 4)
        result["compared"] = f"{a} vs {b}"
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--against", type=Path, help="another checkout (e.g. main) measured in the same run")
    parser.add_argument("--runs", type=int, default=40, help="fresh interpreters per tree (default 40)")
    args = parser.parse_args(argv)
    trees = {"this": ROOT}
    if args.against:
        trees["against"] = args.against.resolve()
    result = measure(trees, args.runs)
    for name, figures in result["trees"].items():  # type: ignore[attr-defined]
        print(
            f"{name:8} {figures['median_ms']:7.1f} ms median  (p10 {figures['p10_ms']:.1f}, p90 {figures['p90_ms']:.1f}; "
            f"OpenTelemetry loaded: {', '.join(figures['opentelemetry_loaded']) or 'none'})  {figures['path']}"
        )
    if "ratio" in result:
        print(f"this - against: {result['difference_ms']:+.1f} ms; ratio {result['ratio']:.3f}")
    print(f"wrote {write_result('import_time', result)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
