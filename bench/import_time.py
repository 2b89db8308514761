"""How long ``import app`` takes (the API Lambda's cold start before its first request), with tracing off, in
this tree and optionally in another one measured in the same run (runs interleaved, so both see the same
machine): ``python bench/import_time.py --against /path/to/other/checkout``.

Each run is a fresh interpreter that times ``import app`` alone (interpreter start-up excluded): wall time,
and the process's CPU time, which other processes on a shared machine inflate far less; it lists the modules
loaded and whether any is OpenTelemetry's. Prints the medians and their differences, writes
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
    "import json, sys, time; t, c = time.perf_counter(), time.process_time(); import app; "
    "ms, cpu = (time.perf_counter() - t) * 1000, (time.process_time() - c) * 1000; "
    "print(json.dumps({'ms': ms, 'cpu_ms': cpu, 'modules': len(sys.modules), "
    "'otel': sorted(m for m in sys.modules if m.startswith('opentelemetry'))}))"
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
    samples: dict[str, dict[str, list[float]]] = {name: {"ms": [], "cpu_ms": []} for name in trees}
    seen: dict[str, dict[str, object]] = {name: {"otel": set(), "modules": set()} for name in trees}
    for _ in range(runs):
        for name, tree in trees.items():  # interleaved: drift on a shared machine hits both alike
            got = once(tree)
            for key in ("ms", "cpu_ms"):
                samples[name][key].append(float(got[key]))  # type: ignore[arg-type]
            seen[name]["otel"].update(got["otel"])  # type: ignore[attr-defined]
            seen[name]["modules"].add(got["modules"])  # type: ignore[attr-defined]
    result: dict[str, object] = {
        "runs": runs,
        "python": sys.version.split()[0],
        "load_average": os.getloadavg()[0],
        "trees": {
            name: {
                "path": str(tree),
                "wall": summary(samples[name]["ms"]),
                "cpu": summary(samples[name]["cpu_ms"]),
                "modules": sorted(seen[name]["modules"]),  # type: ignore[call-overload]
                "opentelemetry_loaded": sorted(seen[name]["otel"]),  # type: ignore[call-overload]
            }
            for name, tree in trees.items()
        },
        "samples_ms": samples,
    }
    if len(trees) == 2:
        a, b = trees
        for kind, key in (("wall", "ms"), ("cpu", "cpu_ms")):
            ta, tb = statistics.median(samples[a][key]), statistics.median(samples[b][key])
            result[f"{kind}_difference_ms"] = round(ta - tb, 2)
            result[f"{kind}_ratio"] = round(ta / tb, 4)
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
        wall, cpu = figures["wall"], figures["cpu"]
        print(
            f"{name:8} wall {wall['median_ms']:6.1f} ms (p10 {wall['p10_ms']:.1f}, p90 {wall['p90_ms']:.1f})  "
            f"cpu {cpu['median_ms']:6.1f} ms (p10 {cpu['p10_ms']:.1f}, p90 {cpu['p90_ms']:.1f})  "
            f"modules {figures['modules']}  OpenTelemetry: {', '.join(figures['opentelemetry_loaded']) or 'none'}"
            f"  {figures['path']}"
        )
    if "cpu_ratio" in result:
        print(
            f"this - against: wall {result['wall_difference_ms']:+.1f} ms (ratio {result['wall_ratio']:.3f}), "
            f"cpu {result['cpu_difference_ms']:+.1f} ms (ratio {result['cpu_ratio']:.3f}); "
            f"load average {result['load_average']:.1f}"
        )
    print(f"wrote {write_result('import_time', result)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
