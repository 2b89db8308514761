"""Retrieve and answer latency of this checkout against another commit, on the same store, in one run:
rounds alternate between the two (a fresh process each), so the machine's noise falls on both alike.
Prints p50 per round and the ratio of medians, and writes JSON.

    .venv/bin/python bench/retrieve_ab.py REF [--rounds 3] [--out bench/results/retrieve_ab.json]

The store is bench/cache/bench-3000-v2.db (`make bench`'s, built here when missing, with vectors memoised in
bench/cache/embeddings.sqlite), copied for each round; the questions are `make bench`'s 120 (FastAPI headings
es/en, XQuAD es).
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
STORE = ROOT / "bench" / "cache" / "bench-3000-v2.db"
# the code measured comes first on the path; the harness (questions, timing) is this checkout's
# bench/retrieve_latency.py
ONE_ROUND = """
import json, sys
sys.path.insert(0, sys.argv[3]); sys.path.insert(0, sys.argv[1])
from chalicelib.composition import Container
from chalicelib.settings import Settings
import retrieve_latency
c = Container(Settings(store_path=sys.argv[2]))
print(json.dumps(retrieve_latency.latency(c, retrieve_latency.queries())))
"""


def one(code: Path, store: Path) -> dict[str, dict[str, float]]:
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "s.db"
        shutil.copy(store, copy)
        out = subprocess.run(
            [sys.executable, "-c", ONE_ROUND, str(code), str(copy), str(ROOT / "bench")],
            capture_output=True,
            text=True,
        )
    if out.returncode:
        raise SystemExit(f"the round on {code} failed:\n{out.stderr[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("ref", help="the commit to compare with (e.g. HEAD~5)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--out", default=str(ROOT / "bench" / "results" / "retrieve_ab.json"))
    args = parser.parse_args()
    if not STORE.exists():
        print(f"building {STORE} ...", flush=True)
        build = (
            "import sys; sys.path.insert(0, 'bench'); import retrieve_latency as r; "
            "print(r.build_big_store(r.CACHE / 'bench-3000-v2.db'))"
        )
        env = {**__import__("os").environ, "SABIO_EMBEDDING_CACHE": str(STORE.parent / "embeddings.sqlite")}
        subprocess.run([sys.executable, "-c", build], cwd=ROOT, env=env, check=True)
    with tempfile.TemporaryDirectory() as tmp:
        other = Path(tmp) / "other"
        subprocess.run(
            ["git", "-C", str(ROOT), "worktree", "add", "-q", "--detach", str(other), args.ref], check=True
        )
        try:
            rounds: dict[str, list[dict[str, dict[str, float]]]] = {"this": [], args.ref: []}
            for n in range(args.rounds):
                for name, code in ((args.ref, other), ("this", ROOT)):
                    rounds[name].append(one(code, STORE))
                    print(
                        f"round {n + 1} {name}: "
                        + ", ".join(f"{k} p50 {v['p50_ms']} ms" for k, v in rounds[name][-1].items())
                    )
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(other)], check=False)
    summary = {}
    for stage in rounds["this"][0]:
        mine = statistics.median(r[stage]["p50_ms"] for r in rounds["this"])
        theirs = statistics.median(r[stage]["p50_ms"] for r in rounds[args.ref])
        summary[stage] = {"this_p50_ms": mine, f"{args.ref}_p50_ms": theirs, "ratio": round(mine / theirs, 3)}
        print(f"{stage}: this {mine} ms, {args.ref} {theirs} ms, ratio {mine / theirs:.3f}")
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(
        json.dumps({"ref": args.ref, "rounds": rounds, "summary": summary}, indent=2) + "\n"
    )
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
