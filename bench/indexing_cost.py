"""DynamoDB reads per S3 event as a source grows: a bulk load through the S3 indexer on moto, the store's
API calls counted with botocore's event hooks. Flat means one event costs the same at document 2,000 as at
document 1.

    python bench/indexing_cost.py [--sizes 100,2000]    # prints figures, writes bench/results/indexing_cost.json
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import boto3

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run as a script from anywhere

from chalicelib.composition import Container
from chalicelib.settings import Settings
from chalicelib.stores.aws.dynamodb import table_definition

REGION = "eu-west-1"
READS = {"GetItem", "BatchGetItem", "Query", "Scan"}
WORDS = [
    "factura",
    "cliente",
    "plan",
    "agente",
    "ticket",
    "correo",
    "copia",
    "base",
    "datos",
    "campaña",
    "contacto",
    "segmento",
    "restauración",
    "cifrado",
    "informe",
    "panel",
    "usuario",
    "permiso",
    "equipo",
    "soporte",
    "respuesta",
    "automatización",
    "regla",
    "horario",
]


def document(n: int) -> str:
    rng = random.Random(n)
    lines = [f"# Nota {n}: {rng.choice(WORDS)} y {rng.choice(WORDS)}", ""]
    for _ in range(3):
        lines.append(" ".join(rng.choice(WORDS) for _ in range(14)).capitalize() + ".")
        lines.append("")
    return "\n".join(lines)


def s3_message(bucket: str, key: str, n: int) -> dict[str, str]:
    body = {
        "Records": [
            {
                "eventName": "ObjectCreated:Put",
                "s3": {
                    "bucket": {"name": bucket},
                    "object": {"key": key, "sequencer": f"{n:016X}", "eTag": f"etag-{n}"},
                },
            }
        ]
    }
    return {"messageId": f"m{n}", "body": json.dumps(body)}


def bulk_load(
    tmp_path: Path, count: int, order: list[int], embedder: Any
) -> tuple[Container, list[Counter[str]]]:
    """Upload ``count`` documents and deliver one S3 event each, in ``order``; the DynamoDB calls of each."""
    s3 = boto3.client("s3", region_name=REGION)
    s3.create_bucket(Bucket="docs", CreateBucketConfiguration={"LocationConstraint": REGION})
    for n in range(count):
        s3.put_object(Bucket="docs", Key=f"notas/{n:05d}.md", Body=document(n).encode())
    settings = Settings(
        store_path=str(tmp_path / "index.db"),
        chunk_store="dynamodb",
        dynamodb_table="sabio",
        aws_region=REGION,
        source_map={"docs": "docs"},
        quote_vectors=False,
    )
    container = Container(settings)
    container.__dict__["embedder"] = embedder  # the cost measured is the store's, not the model's
    container.aws_client("dynamodb").create_table(**table_definition("sabio"))
    calls: Counter[str] = Counter()
    store_client = container.chunk_store.client  # type: ignore[attr-defined]
    store_client.meta.events.register(
        "before-call.dynamodb.*", lambda model, **_: calls.update([model.name])
    )  # botocore's own hook: every API call the store makes
    indexer = container.s3_indexer()
    per_event: list[Counter[str]] = []
    for n in order:
        calls.clear()
        result = indexer.handle_batch([s3_message("docs", f"notas/{n:05d}.md", n)])
        assert result == {"batchItemFailures": []}
        per_event.append(Counter(calls))
    return container, per_event


def reads(counter: Counter[str]) -> int:
    return sum(v for k, v in counter.items() if k in READS)


def measure(count: int) -> dict[str, Any]:
    from moto import mock_aws

    from tests.fakes import HashEmbedder  # a hashing embedder: the model's cost is not what is measured

    with tempfile.TemporaryDirectory() as tmp, mock_aws():
        started = time.perf_counter()
        _, per_event = bulk_load(Path(tmp), count, list(range(count)), HashEmbedder())
        seconds = time.perf_counter() - started
    first, last = per_event[: min(20, count)], per_event[-min(20, count) :]
    return {
        "documents": count,
        "reads_first_20_mean": statistics.mean(reads(c) for c in first),
        "reads_last_20_mean": statistics.mean(reads(c) for c in last),
        "reads_max": max(reads(c) for c in per_event),
        "scans": sum(c.get("Scan", 0) for c in per_event),
        "calls_last_event": dict(per_event[-1]),
        "seconds": round(seconds, 1),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", default="100,2000")
    parser.add_argument("--out", default="bench/results/indexing_cost.json")
    args = parser.parse_args(argv)
    rows = [measure(int(n)) for n in args.sizes.split(",")]
    print(
        f"{'documents':>10} {'reads/event (first 20)':>24} {'(last 20)':>10} {'max':>5} {'scans':>6} {'s':>7}"
    )
    for r in rows:
        print(
            f"{r['documents']:>10} {r['reads_first_20_mean']:>24.2f} {r['reads_last_20_mean']:>10.2f} "
            f"{r['reads_max']:>5} {r['scans']:>6} {r['seconds']:>7}"
        )
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps({"sizes": rows}, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
