"""docs/performance.md, its chart and docs/performance.json (the figures `sabio plan` projects from on a
fresh clone), from the newest benchmark results: the scale curve and indexing (make bench-scale), the API
package (make bench).

Usage:  .venv/bin/python bench/publish_performance.py
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from sabio import planning  # noqa: E402

RESULTS = ROOT / "bench" / "results"
DOCS = ROOT / "docs"
PARTS = ("scale", "indexing_ceiling", "api_package")


def newest() -> dict[str, object]:
    """Each part from the newest bench-*.json that has it, with where it came from."""
    figures: dict[str, object] = {"sources": {}}
    for path in sorted(RESULTS.glob("bench-*.json"), reverse=True):
        data = json.loads(path.read_text(encoding="utf-8"))
        for part in PARTS:
            if part in data and part not in figures:
                figures[part] = data[part]
                figures["sources"][part] = {"file": path.name, "when": data.get("when")}  # type: ignore[index]
                figures.setdefault("machine", data.get("machine"))
    missing = [p for p in PARTS if p not in figures]
    if missing:
        raise SystemExit(f"no benchmark result has {missing}: run make bench-scale (and make bench)")
    return figures


def chart(scale: list[dict], out: Path) -> None:  # type: ignore[type-arg]
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sizes = [r["chunks"] for r in scale]
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2))
    for key, label in (
        ("full retrieve", "full retrieve"),
        ("retrieve besides the query embedding", "retrieve besides the query embedding"),
        ("query embedding", "query embedding"),
        ("bm25", "BM25 (FTS5) alone, all languages"),
        ("dense k-NN (vector given)", "dense k-NN alone"),
    ):
        line = left.plot(sizes, [r[key]["p50_ms"] for r in scale], marker="o", label=f"{label} p50")[0]
        if key == "full retrieve":
            left.plot(
                sizes, [r[key]["p95_ms"] for r in scale], ls="--", color=line.get_color(), label="full p95"
            )
    left.set(
        xscale="log", yscale="log", xlabel="chunks", ylabel="ms", title="Retrieve latency, embedded store"
    )
    left.legend(fontsize=7)
    right.plot(sizes, [r["peak_rss_mb"] for r in scale], marker="o", label="peak RSS (MB)")
    right.plot(sizes, [r["store_mb"] for r in scale], marker="s", label="store file (MB)")
    right.set(xscale="log", yscale="log", xlabel="chunks", title="Memory and disk")
    right.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(out, dpi=110)


def main() -> int:
    figures = newest()
    DOCS.mkdir(exist_ok=True)
    (DOCS / "performance.json").write_text(json.dumps(figures, indent=2) + "\n")
    chart(figures["scale"], DOCS / "performance.png")  # type: ignore[arg-type]
    plans = [
        planning.render(
            planning.plan(figures, n, price_in=0.27, price_out=1.10, source="docs/performance.json")
        )
        for n in (10_000, 1_000_000, 10_000_000)
    ]
    print("\n\n".join(plans))
    print("\nwrote docs/performance.json and docs/performance.png; docs/performance.md quotes them")
    return 0


if __name__ == "__main__":
    sys.exit(main())
