"""Indexing throughput on code: one repository of the code set (files as they are) indexed from nothing, no
embedding cache, by this checkout and, for comparison, by another one (``--against``: a git worktree of the
commit to compare with), alternating, in one run. Figures are files and source kilobytes a second; chunks a
second would flatter whichever cuts bigger chunks.

    python bench/code_indexing.py [--repo anyhow] [--rounds 2] [--against /tmp/base]
Prints each run and the median ratio, and writes bench/results/code-indexing-<UTC time>.json.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.results_file import write_result  # noqa: E402

RUN = """
import json, sys, tempfile, time
from pathlib import Path
from chalicelib.composition import Container
from chalicelib.settings import Settings
folder = Path(sys.argv[1])
with tempfile.TemporaryDirectory() as tmp:
    container = Container(Settings(store_path=f"{tmp}/s.db"))
    t = time.perf_counter()
    report = container.ingestor().index_folder(folder, "code")
    seconds = time.perf_counter() - t
print(json.dumps({"seconds": seconds, "chunks": report.chunks_written, "files": report.added}))
"""


def one(checkout: Path, folder: Path) -> dict[str, float]:
    done = subprocess.run(
        [sys.executable, "-c", RUN, str(folder)],
        cwd=checkout,
        env={**os.environ, "PYTHONPATH": str(checkout)},
        capture_output=True,
        text=True,
        check=True,
    )
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repo", default="anyhow", help="a repository of datasets/code/repos")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--against", help="another checkout (a git worktree) to compare with")
    args = parser.parse_args(argv)
    archive = next((ROOT / "datasets" / "code" / "repos").glob(f"{args.repo}-*.tar.gz"))
    with tempfile.TemporaryDirectory() as tmp:
        with tarfile.open(archive) as tar:
            tar.extractall(tmp, filter="data")
        folder = Path(tmp) / args.repo
        kb = sum(p.stat().st_size for p in folder.rglob("*") if p.is_file()) / 1024
        checkouts = {"this": ROOT, **({"against": Path(args.against)} if args.against else {})}
        runs: dict[str, list[dict[str, float]]] = {name: [] for name in checkouts}
        for _ in range(args.rounds):
            for name, checkout in checkouts.items():
                run = one(checkout, folder)
                run["files_per_s"] = run["files"] / run["seconds"]
                run["kb_per_s"] = kb / run["seconds"]
                runs[name].append(run)
                print(
                    f"{name}: {run['files']:.0f} files, {run['chunks']:.0f} chunks in {run['seconds']:.1f} s"
                    f" ({run['files_per_s']:.2f} files/s, {run['kb_per_s']:.1f} KB/s)",
                    flush=True,
                )
    result = {"repo": args.repo, "kb": round(kb, 1), "runs": runs}
    if "against" in runs:
        ratio = statistics.median(
            a["seconds"] / b["seconds"] for a, b in zip(runs["against"], runs["this"], strict=True)
        )
        result["throughput_ratio"] = round(ratio, 3)
        print(f"throughput, this / against: {ratio:.3f} (median of {args.rounds} rounds)")
    path = write_result("code-indexing", result)
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
