"""The scale curve's tables and its run: sizes measured by bench/scale.py, with this checkout's code, and with
another commit's in turn (``--against``), then printed and written to bench/results/scale-<UTC time>.json."""

from __future__ import annotations

import argparse
import os
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
Row = dict[str, Any]


def table(rows: list[Row]) -> str:
    """Latency, memory and opening, one row per size."""
    head = (
        "| chunks | query embedding p50 | dense k-NN p50 / p95 | BM25 p50 / p95 | full retrieve p50 / p95 "
        "| p95 / p50 | besides the embedding p50 / p95 | peak RSS MB | open s (reopen s) | CLI query s |"
    )
    lines = [head, "|" + "---|" * 10]
    for r in rows:
        f = lambda k, r=r: f"{r[k]['p50_ms']} / {r[k]['p95_ms']}"  # noqa: E731
        full = r["full retrieve"]
        lines.append(
            f"| {r['chunks']:,} | {r['query embedding']['p50_ms']} | {f('dense k-NN (vector given)')} | {f('bm25')} "
            f"| {f('full retrieve')} | {full['p95_ms'] / full['p50_ms']:.2f} "
            f"| {f('retrieve besides the query embedding')} | {r['peak_rss_mb']} "
            f"| {r.get('open_s', r.get('load_s', ''))} ({r.get('reopen_s', '')}) | {r.get('cli_query_s', '')} |"
        )
    return "\n".join(lines)


def disk_and_translations(rows: list[Row]) -> str:
    """Bytes per chunk, and what the translated search did."""
    head = (
        "| chunks | SQLite KB / chunk | beside it KB / chunk | JSON item bytes | index end s "
        "| translated (changed top 5) |"
    )
    lines = [head, "|" + "---|" * 6]
    for r in rows:
        t = r.get("translated", {})
        lines.append(
            f"| {r['chunks']:,} | {r.get('sqlite_kb_per_chunk', '')} | {r.get('beside_kb_per_chunk', '')} "
            f"| {r.get('chunk_item_bytes', '')} | {r.get('index_end_s', '-')} "
            f"| {t.get('translated', '')} of {t.get('questions', '')} ({t.get('changed_top5', '')}) |"
        )
    return "\n".join(lines)


RATIOS = (
    ("full retrieve p50", lambda r: r["full retrieve"]["p50_ms"]),
    ("full retrieve p95", lambda r: r["full retrieve"]["p95_ms"]),
    ("besides the embedding p50", lambda r: r["retrieve besides the query embedding"]["p50_ms"]),
    ("open s", lambda r: r["open_s"]),
    ("reopen s", lambda r: r["reopen_s"]),
    ("CLI query s", lambda r: r["cli_query_s"]),
    ("SQLite KB / chunk", lambda r: r["sqlite_kb_per_chunk"]),
    ("peak RSS MB", lambda r: r["peak_rss_mb"]),
)


def ratios(mine: list[Row], theirs: list[Row], ref: str) -> str:
    lines = [f"| chunks | figure | this | {ref} | this / {ref} |", "|---|---|---|---|---|"]
    for a, b in zip(mine, theirs, strict=True):
        for name, get in RATIOS:
            x, y = float(get(a)), float(get(b))
            lines.append(f"| {a['chunks']:,} | {name} | {x:g} | {y:g} | {x / y if y else float('nan'):.2f} |")
    return "\n".join(lines)


def run(args: argparse.Namespace, curve: Callable[..., list[list[Row]]]) -> int:
    from results_file import write_result  # bench/, beside this file

    with tempfile.TemporaryDirectory() as tmp:
        other = Path(tmp) / "other"
        if args.against:
            subprocess.run(
                ["git", "-C", str(ROOT), "worktree", "add", "-q", "--detach", str(other), args.against],
                check=True,
            )
        try:
            measured = curve(
                args.sizes, args.queries, args.rounds, (ROOT, other) if args.against else (ROOT,)
            )
        finally:
            if args.against:
                subprocess.run(
                    ["git", "-C", str(ROOT), "worktree", "remove", "--force", str(other)], check=False
                )
    rows = measured[0]
    theirs = measured[1] if args.against else []
    print(table(rows))
    print()
    print(disk_and_translations(rows))
    for r in rows:
        print(f"{r['chunks']:,} chunks, full retrieve stages (p50 ms): {r['stages_p50_ms']}")
        print(f"{r['chunks']:,} chunks, full retrieve p50 of each round (ms): {r['rounds_full_p50_ms']}")
    if len(rows) > 1:
        p50 = [r["full retrieve"]["p50_ms"] for r in rows]
        print(f"p50 {rows[-1]['chunks']:,} / {rows[-2]['chunks']:,}: {p50[-1] / p50[-2]:.2f}")
    if theirs:
        print(f"\nwith the code of {args.against}:\n{table(theirs)}\n\n{disk_and_translations(theirs)}\n")
        print(ratios(rows, theirs, args.against))
    result = {"machine": os.cpu_count(), "rows": rows, "against": args.against, "their_rows": theirs}
    out = write_result("scale", result)
    print(f"wrote {out.relative_to(ROOT)}")
    return 0
