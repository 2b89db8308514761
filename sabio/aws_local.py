"""The AWS pipeline on this machine (moto's server or LocalStack), for developers: create the resources, upload a folder.

python -m sabio.aws_local setup            # bucket + queue + S3->SQS notifications + DynamoDB table
python -m sabio.aws_local upload examples  # every file under the folder, keys relative to it
python -m sabio.aws_local demo             # all of it end to end with an in-process moto server
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

BUCKET = "sabio-docs"
QUEUE = "sabio-events"


def _clients() -> tuple[Any, Any, Any, Any]:  # the container, then its S3, SQS and DynamoDB clients
    from chalicelib.composition import Container

    c = Container()
    return c, c.aws_client("s3"), c.aws_client("sqs"), c.aws_client("dynamodb")


def notify(s3: Any, sqs: Any, bucket: str, queue: str) -> str:
    """The queue, and the bucket's notifications of created and removed objects into it (as the stack
    wires them): its URL."""
    queue_url = str(sqs.create_queue(QueueName=queue)["QueueUrl"])
    arn = sqs.get_queue_attributes(QueueUrl=queue_url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    s3.put_bucket_notification_configuration(
        Bucket=bucket,
        NotificationConfiguration={
            "QueueConfigurations": [{"QueueArn": arn, "Events": ["s3:ObjectCreated:*", "s3:ObjectRemoved:*"]}]
        },
    )
    return queue_url


def setup() -> str:
    from chalicelib.stores.aws.dynamodb import table_definition

    container, s3, sqs, dynamodb = _clients()
    region = container.settings.aws_region or os.environ.get("AWS_DEFAULT_REGION", "eu-west-1")
    existing = [b["Name"] for b in s3.list_buckets().get("Buckets", [])]
    if BUCKET not in existing:
        s3.create_bucket(Bucket=BUCKET, CreateBucketConfiguration={"LocationConstraint": region})
    queue_url = notify(s3, sqs, BUCKET, QUEUE)
    table = container.settings.dynamodb_table
    if table not in dynamodb.list_tables()["TableNames"]:
        dynamodb.create_table(**table_definition(table))
    print(f"bucket {BUCKET}, queue {queue_url}, table {table}")
    return str(queue_url)


def upload(folder: str) -> int:
    _, s3, _, _ = _clients()
    root = Path(folder)
    files = [p for p in sorted(root.rglob("*")) if p.is_file()]
    for path in files:
        s3.put_object(Bucket=BUCKET, Key=path.relative_to(root).as_posix(), Body=path.read_bytes())
    print(f"uploaded {len(files)} files to s3://{BUCKET}/")
    return len(files)


def demo() -> int:
    """moto server in-process -> setup -> upload examples -> worker drains the queue -> two questions."""
    import socket

    from moto.server import ThreadedMotoServer

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    for var, value in (
        ("AWS_ACCESS_KEY_ID", "test"),
        ("AWS_SECRET_ACCESS_KEY", "test"),
        ("AWS_DEFAULT_REGION", "eu-west-1"),
    ):
        os.environ.setdefault(var, value)
    os.environ.update(
        SABIO_AWS_ENDPOINT_URL=f"http://127.0.0.1:{port}",
        SABIO_CHUNK_STORE="dynamodb",
        SABIO_AWS_REGION="eu-west-1",
        SABIO_SOURCE_MAP=json.dumps({BUCKET: "examples"}),
    )
    os.environ.setdefault("SABIO_STORE_PATH", ".sabio/aws-local-index.db")
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    try:
        from chalicelib.composition import Container
        from chalicelib.models.api import RetrieveRequest
        from sabio.worker import run

        queue_url = setup()
        upload("examples")
        container = Container()
        indexer = container.s3_indexer()
        run(container.aws_client("sqs"), queue_url, indexer, once=True, wait_s=1)
        print(f"worker: {dict(indexer.outcomes)}")
        for question in ("¿Cuánto cuesta Faro?", "How do I restore a database to a point in time?"):
            items = container.retrieval.retrieve(RetrieveRequest(query=question, top_k=3), None).items
            print(f"Q: {question}")
            for item in items:
                print(f"  [{item.score:.4f}] {item.title} — {item.section_title}")
        return 0 if not indexer.outcomes.get("poison") and not indexer.outcomes.get("error") else 1
    finally:
        server.stop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m sabio.aws_local",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("setup")
    up = sub.add_parser("upload")
    up.add_argument("folder")
    sub.add_parser("demo")
    args = parser.parse_args(argv)
    if args.command == "setup":
        setup()
        return 0
    if args.command == "upload":
        upload(args.folder)
        return 0
    return demo()


if __name__ == "__main__":
    sys.exit(main())
