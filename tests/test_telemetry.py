"""Lambda-native operations: every question and indexing event leaves one JSON log line (Powertools' format)
and CloudWatch metrics in EMF on stdout; the key is named, never shown, and the question is a hash."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest
from chalice.test import Client

import app as sabio_app
from chalicelib.access.keys import key_digest
from chalicelib.composition import Container
from chalicelib.enrichment.vocabulary import Vocabulary
from chalicelib.ingest.indexer import Ingestor
from chalicelib.ingest.s3_indexer import S3Indexer
from chalicelib.settings import Settings
from chalicelib.stores.sqlite import SQLiteStore
from chalicelib.telemetry import Telemetry
from tests.fakes import HashEmbedder

SECRET = "sk-telemetry-test-0123456789"
QUESTION = "¿Cuánto cuesta Faro al mes?"


def json_lines(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines() if line.startswith("{")]


def emf(blobs: list[dict[str, Any]]) -> dict[str, Any]:
    """Metric name -> value over the EMF blobs (``_aws.CloudWatchMetrics`` names them; values are top-level)."""
    values: dict[str, Any] = {}
    for blob in blobs:
        for directive in blob["_aws"]["CloudWatchMetrics"]:
            assert directive["Namespace"] == "Sabio"
            for metric in directive["Metrics"]:
                value = blob[metric["Name"]]
                values[metric["Name"]] = value[0] if isinstance(value, list) else value
    return values


def test_the_api_logs_each_question_as_json_and_emits_emf_metrics(examples_container, capsys, monkeypatch):
    monkeypatch.setenv("AWS_LAMBDA_FUNCTION_NAME", "sabio-api")  # telemetry=auto: on inside Lambda
    settings = examples_container.settings.model_copy(
        update={"auth": "keys", "api_keys": {key_digest(SECRET): {"name": "support-bot"}}}
    )
    container = Container(settings)
    container.__dict__["embedder"] = examples_container.embedder  # the model already loaded
    logs = io.StringIO()
    assert container.usage.telemetry is not None and container.usage.telemetry.on  # auto, in Lambda
    container.usage.telemetry = Telemetry("api", on=True, stream=logs)  # the same, into a buffer
    sabio_app._container = container
    try:
        with Client(sabio_app.app) as client:
            for query in (QUESTION, "zxqv wplk"):
                r = client.http.post(
                    "/retrieve",
                    headers={"Content-Type": "application/json", "x-api-key": SECRET},
                    body=json.dumps({"query": query, "top_k": 3}),
                )
                assert r.status_code == 200, r.body
    finally:
        sabio_app._container = None
    lines = json_lines(logs.getvalue())
    assert len(lines) == 2
    line = lines[0]
    assert line["service"] == "sabio-api" and line["level"] == "INFO" and line["message"] == "retrieve"
    assert line["key"] == "support-bot" and line["lang"] == "es" and line["mode"] == "documental"
    assert line["results"] == 3 and len(line["query_hash"]) == 16
    assert {"embed", "total"} <= set(line["timings_ms"]) and isinstance(line["fallbacks"], list)
    assert "request_id" in line
    everything = logs.getvalue() + capsys.readouterr().out
    assert SECRET not in everything and "Faro al mes" not in everything  # never the secret, never the text
    blobs = [b for b in json_lines(everything) if "_aws" in b]
    assert len(blobs) == 2
    first, second = emf(blobs[:1]), emf(blobs[1:])
    assert first["Latency"] > 0 and first["ZeroResults"] == 0 and first["LLMFallbacks"] == 0
    assert second["ZeroResults"] in (0, 1)  # nonsense may still match something; the metric is there
    assert blobs[0]["endpoint"] == "retrieve" and blobs[0]["service"] == "sabio-api"


def test_the_indexer_logs_each_event_and_each_failed_message(tmp_path, capsys):
    store = SQLiteStore(tmp_path / "s.db")
    ingestor = Ingestor(store, store, HashEmbedder(), Vocabulary())

    class S3:  # the one call the indexer makes
        class exceptions:  # noqa: N801
            NoSuchKey = KeyError

        def get_object(self, Bucket: str, Key: str) -> dict[str, Any]:  # noqa: N803
            return {
                "Body": io.BytesIO(b"# Faro\n\nFaro cuesta 19 euros por agente al mes.\n"),
                "Metadata": {},
            }

    logs = io.StringIO()
    indexer = S3Indexer(ingestor, store, S3(), {"docs": "docs"}, telemetry=Telemetry("indexer", True, logs))
    good = {
        "Records": [
            {
                "eventName": "ObjectCreated:Put",
                "s3": {
                    "bucket": {"name": "docs"},
                    "object": {"key": "faro.md", "sequencer": "01", "eTag": "e"},
                },
            }
        ]
    }
    result = indexer.handle_batch(
        [{"messageId": "good", "body": json.dumps(good)}, {"messageId": "bad", "body": "not json"}]
    )
    assert result == {"batchItemFailures": [{"itemIdentifier": "bad"}]}
    lines = json_lines(logs.getvalue())
    indexed = next(line for line in lines if line["message"] == "indexed")
    assert indexed["service"] == "sabio-indexer" and indexed["key"] == "faro.md" and indexed["added"] == 1
    assert indexed["chunks_written"] >= 1 and indexed["failed"] == []
    failed = next(line for line in lines if line["message"] == "message failed")
    assert failed["level"] == "ERROR" and failed["message_id"] == "bad" and failed["poison"] is True
    metrics = emf([b for b in json_lines(capsys.readouterr().out) if "_aws" in b])
    assert metrics["ChunksIndexed"] >= 1 and metrics["DocumentsFailed"] == 0


@pytest.mark.parametrize(
    ("mode", "lambda_env", "on"),
    [("auto", False, False), ("auto", True, True), ("off", True, False), ("on", False, True)],
)
def test_telemetry_is_on_in_lambda_and_when_asked(tmp_path, monkeypatch, mode, lambda_env, on):
    if lambda_env:
        monkeypatch.setenv("AWS_LAMBDA_FUNCTION_NAME", "sabio-api")
    else:
        monkeypatch.delenv("AWS_LAMBDA_FUNCTION_NAME", raising=False)
    container = Container(Settings(store_path=str(tmp_path / "s.db"), telemetry=mode))
    assert container.telemetry("api").on is on


def test_a_reranker_that_falls_back_is_logged_and_counted(examples_container, capsys):
    from tests.rerank_server import Fault, RerankTestServer

    with RerankTestServer("cohere") as server:
        settings = examples_container.settings.replaced(reranker="http", reranker_url=server.url + "/rerank")
        container = Container(settings)
        container.__dict__["embedder"] = examples_container.embedder
        logs = io.StringIO()
        container.usage.telemetry = Telemetry("api", on=True, stream=logs)
        from chalicelib.models.api import RetrieveRequest

        container.usage.retrieve(RetrieveRequest(query=QUESTION), None)  # reranked
        server.enqueue(Fault(status=503))
        container.usage.retrieve(RetrieveRequest(query=QUESTION), None)  # falls back
    ok, failed = json_lines(logs.getvalue())
    assert ok["fallbacks"] == [] and failed["fallbacks"] == [
        'rerank: server_error: HTTP 503 {"message": "scripted failure"}'
    ]
    blobs = [b for b in json_lines(logs.getvalue() + capsys.readouterr().out) if "_aws" in b]
    assert [emf([b])["RerankFailed"] for b in blobs] == [0, 1]
    assert all(emf([b])["RerankLatency"] >= 0 for b in blobs)
