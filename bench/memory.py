"""Peak memory of `sabio index` on a folder and on one ten times larger: indexing holds one batch of
documents at a time (IngestConfig.batch_documents), so the peak should barely move.

Each run is a fresh process (`sabio index`, the real embedder, quote vectors off to halve the time), its
peak RSS read from the kernel (ru_maxrss of the waited child). The documents are SQuAD-es paragraphs from
../shared/eval, four to a file, as Markdown.

    python bench/memory.py [--small 40] [--factor 10]    # prints both, writes bench/results/memory.json
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SQUAD_ES = ROOT.parent / "shared" / "eval" / "squad_es" / "dev-v1.1-es_small.json"


def paragraphs() -> list[tuple[str, str]]:
    data = json.loads(SQUAD_ES.read_text(encoding="utf-8"))["data"]
    return [(article["title"], p["context"]) for article in data for p in article["paragraphs"]]


def folder(into: Path, documents: int, texts: list[tuple[str, str]]) -> Path:
    """``documents`` Markdown files of four paragraphs each (paragraphs reused with a numbered heading when
    the set runs out, so every file is distinct)."""
    into.mkdir(parents=True)
    for n in range(documents):
        parts = []
        for i in range(4):
            title, text = texts[(4 * n + i) % len(texts)]
            parts.append(f"## {title.replace('_', ' ')} {n}.{i}\n\n{text}\n")
        (into / f"doc-{n:05d}.md").write_text(f"# Documento {n}\n\n" + "\n".join(parts), encoding="utf-8")
    return into


def peak_rss_of_index(path: Path, store: Path) -> dict[str, Any]:
    """`sabio index` in a fresh process; its own peak RSS (MB, from the kernel) and the chunks it wrote."""
    code = (
        "import resource, sys\n"
        "from sabio.cli import main\n"
        "status = main(['index', sys.argv[1], '--source-id', 'memory'])\n"
        # VmHWM, not ru_maxrss: Linux keeps ru_maxrss across exec, so a large parent's peak leaked in
        "hwm = [l.split()[1] for l in open('/proc/self/status') if l.startswith('VmHWM:')]\n"
        "print('PEAK', hwm[0] if hwm else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)\n"
        "sys.exit(status)\n"
    )
    env = {**os.environ, "SABIO_STORE_PATH": str(store), "SABIO_QUOTE_VECTORS": "false"}
    done = subprocess.run(
        [sys.executable, "-c", code, str(path)], env=env, capture_output=True, text=True, check=True, cwd=ROOT
    )
    peak_kb = int(next(line.split()[1] for line in done.stderr.splitlines() if line.startswith("PEAK")))
    chunks = next(
        (line.split("|")[2].strip() for line in done.stdout.splitlines() if "chunks written" in line), "?"
    )
    return {"peak_rss_mb": round(peak_kb / 1024, 1), "chunks": chunks}


def measure(small: int = 40, factor: int = 10) -> dict[str, Any]:
    texts = paragraphs()
    out: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for label, n in (("small", small), ("large", small * factor)):
            docs = folder(Path(tmp) / label, n, texts)
            out[label] = {"documents": n, **peak_rss_of_index(docs, Path(tmp) / f"{label}.db")}
    out["ratio"] = round(out["large"]["peak_rss_mb"] / out["small"]["peak_rss_mb"], 3)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--small", type=int, default=40)
    parser.add_argument("--factor", type=int, default=10)
    parser.add_argument("--out", default=str(ROOT / "bench" / "results" / "memory.json"))
    args = parser.parse_args(argv)
    result = measure(args.small, args.factor)
    for label in ("small", "large"):
        r = result[label]
        print(
            f"sabio index, {r['documents']:>5} documents ({r['chunks']} chunks): peak RSS {r['peak_rss_mb']} MB"
        )
    print(f"ratio large / small: {result['ratio']}")
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
