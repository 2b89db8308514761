"""Traces: one span per stage of a retrieve and of an answer (the SDK's in-memory exporter reads them), with
OpenInference's names and no question or passage text unless asked; the trace id in ``applied`` and in the
log line; spans exported over OTLP/HTTP to a local receiver and printed on the console by the CLI; and
nothing of OpenTelemetry imported while tracing is off."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from chalicelib import tracing
from chalicelib.composition import Container
from chalicelib.models.api import RetrieveRequest
from chalicelib.settings import Settings
from tests.conftest import ROOT
from tests.llm_server import LLMTestServer, Reply
from tests.rerank_server import RerankTestServer
from tests.test_streaming import DOCS, GOOD, QUESTION

pytest.importorskip("opentelemetry.sdk")
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider  # noqa: E402
from opentelemetry.sdk.trace.export import SimpleSpanProcessor  # noqa: E402
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter  # noqa: E402

STAGES = {
    "sabio.retrieve",
    "plan",
    "embed",
    "dense",
    "keyword",
    "fuse",
    "store.dense_search",
    "store.get_chunks",
}


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("traced") / "docs"
    folder.mkdir()
    for name, text in DOCS.items():
        (folder / name).write_text(text, encoding="utf-8")
    store = folder.parent / "sabio.db"
    assert Container(Settings(store_path=str(store))).ingestor().index_folder(folder, "docs").ok
    return store


@pytest.fixture
def exported() -> Iterator[InMemorySpanExporter]:
    """Spans recorded in memory while the test runs (tracing off again after)."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracing.use(provider)
    yield exporter
    tracing.use(None)


def by_name(spans: tuple[ReadableSpan, ...]) -> dict[str, ReadableSpan]:
    return {s.name: s for s in spans}


def texts(spans: tuple[ReadableSpan, ...]) -> str:
    return json.dumps([dict(s.attributes or {}) for s in spans], ensure_ascii=False)


def test_a_retrieve_leaves_one_span_per_stage_in_one_trace_without_its_text(indexed, exported):
    container = Container(Settings(store_path=str(indexed)))  # built while tracing is on: store calls too
    response = container.usage.retrieve(RetrieveRequest(query=QUESTION), None)
    spans = exported.get_finished_spans()
    named = by_name(spans)
    assert set(named) >= STAGES, sorted(named)
    root = named["sabio.retrieve"]
    assert {s.context.trace_id for s in spans} == {root.context.trace_id}  # BM25 ran in a thread: same trace
    assert response.applied["trace_id"] == format(root.context.trace_id, "032x")
    assert named["keyword"].parent is not None and named["dense"].parent is not None
    kinds = {name: named[name].attributes["openinference.span.kind"] for name in ("plan", "embed", "dense")}
    assert kinds == {"plan": "CHAIN", "embed": "EMBEDDING", "dense": "RETRIEVER"}
    dense = named["dense"].attributes
    assert dense["retrieval.documents.0.document.id"] in container.chunk_store.all_chunk_ids()
    assert dense["retrieval.documents.count"] >= 1 and isinstance(
        dense["retrieval.documents.0.document.score"], float
    )
    assert named["embed"].attributes["embedding.model_name"] == container.embedder.space.model_id
    assert named["store.get_chunks"].attributes["db.system"] == "sqlite"
    written = texts(spans)
    assert "oficina de Valencia" not in written and "9:00" not in written and "Valencia?" not in written


def test_an_answer_traces_the_models_call_and_the_check_of_its_quotes(indexed, exported):
    with LLMTestServer() as llm:
        llm.enqueue(Reply(json.dumps(GOOD, ensure_ascii=False)))
        container = Container(Settings(store_path=str(indexed), llm_base_url=llm.base_url, llm_model="m1"))
        response = container.usage.answer(RetrieveRequest(query=QUESTION), None)
    named = by_name(exported.get_finished_spans())
    assert {"sabio.answer", "answer", "llm.chat", "verify"} <= set(named), sorted(named)
    call = named["llm.chat"].attributes
    assert call["openinference.span.kind"] == "LLM" and call["llm.model_name"] == "m1"
    assert call["llm.token_count.prompt"] > 0 and call["gen_ai.usage.output_tokens"] > 0
    assert named["verify"].attributes["openinference.span.kind"] == "GUARDRAIL"
    assert named["verify"].attributes["sabio.citations"] == len(response.citations) == 1
    assert named["answer"].attributes["sabio.answered_by"] == "llm"
    assert named["llm.chat"].parent.span_id == named["answer"].context.span_id
    written = texts(exported.get_finished_spans())
    assert "Valencia" not in written and "numbered sources" not in written  # neither question nor prompt


def test_a_streamed_answer_is_traced_like_the_other(indexed, exported):
    from chalicelib.streaming.answering import answer_events

    with LLMTestServer() as llm:
        llm.enqueue(Reply(json.dumps(GOOD, ensure_ascii=False)))
        container = Container(Settings(store_path=str(indexed), llm_base_url=llm.base_url, llm_model="m1"))
        events = list(answer_events(container.usage, RetrieveRequest(query=QUESTION), None))
    named = by_name(exported.get_finished_spans())
    assert {"sabio.answer", "answer", "llm.chat", "verify", "dense"} <= set(named)
    assert named["llm.chat"].attributes["sabio.streamed"] is True
    assert named["llm.chat"].attributes["llm.token_count.completion"] > 0
    answer = next(e.data for e in events if e.name == "answer")
    assert answer["applied"]["trace_id"] == format(named["sabio.answer"].context.trace_id, "032x")


def test_text_is_kept_only_when_the_setting_says_so(indexed):
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracing.use(provider, capture_text=True)
    try:
        Container(Settings(store_path=str(indexed))).usage.retrieve(RetrieveRequest(query=QUESTION), None)
    finally:
        tracing.use(None)
    spans = exporter.get_finished_spans()
    assert by_name(spans)["sabio.retrieve"].attributes["input.value"] == QUESTION
    assert "9:00" in by_name(spans)["fuse"].attributes["retrieval.documents.0.document.content"]
    assert QUESTION in [s.attributes.get("input.value") for s in spans if s.name == "keyword"]


class Dictionary:
    """A translator that knows one sentence (the protocol's shape, no Apertium needed)."""

    def translate(self, text: str, source: str, target: str, keep: Any = (), *, names: bool = True) -> str:
        return "¿A qué hora abre la oficina de Valencia?" if target == "es" else text

    def pairs(self) -> list[tuple[str, str]]:
        return [("en", "es"), ("es", "en")]


def test_translation_and_rerank_are_stages_of_their_own(tmp_path, exported):
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "oficina.txt").write_text(DOCS["oficina.txt"], encoding="utf-8")  # Spanish only
    store = tmp_path / "sabio.db"
    with RerankTestServer() as reranker:
        settings = Settings(store_path=str(store), reranker="http", reranker_url=reranker.url + "/rerank")
        Container(settings).ingestor().index_folder(folder, "docs")
        container = Container(settings)
        container.__dict__["translator"] = Dictionary()
        container.usage.retrieve(RetrieveRequest(query="What time does the Valencia office open?"), None)
    named = by_name(exported.get_finished_spans())
    assert (
        named["translate"].attributes["sabio.target"] == "es"
        and named["translate"].attributes["sabio.translated"]
    )
    rerank = named["rerank"].attributes
    assert rerank["openinference.span.kind"] == "RERANKER" and rerank["reranker.model_name"]
    assert rerank["reranker.output_documents.count"] >= 1 and rerank["sabio.used"] is True


def test_the_trace_id_is_in_the_questions_log_line(indexed, exported, capsys):
    container = Container(Settings(store_path=str(indexed), telemetry="on"))
    response = container.usage.retrieve(RetrieveRequest(query=QUESTION), None)
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.startswith("{")]
    line = next(line for line in lines if line.get("message") == "retrieve")
    assert line["trace_id"] == response.applied["trace_id"] and len(line["trace_id"]) == 32


class Receiver:
    """A local OTLP/HTTP collector: POST /v1/traces with protobuf bodies, the spans' names kept."""

    def __init__(self) -> None:
        self.names: list[str] = []
        self.content_types: list[str] = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                return None

            def do_POST(self) -> None:  # noqa: N802
                from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                request = ExportTraceServiceRequest.FromString(body)
                receiver.content_types.append(self.headers.get("Content-Type", ""))
                receiver.names += [
                    s.name for r in request.resource_spans for ss in r.scope_spans for s in ss.spans
                ]
                self.send_response(200 if self.path == "/v1/traces" else 404)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", "0")
                self.end_headers()

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}"


def sabio(store: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "sabio.cli", "--store", str(store), *args]
    environment = {**os.environ, "PYTHONPATH": str(ROOT), **env}
    return subprocess.run(command, cwd=ROOT, env=environment, capture_output=True, text=True, timeout=300)


def test_spans_go_to_an_otlp_http_collector_named_by_one_setting(indexed):
    receiver = Receiver()
    try:
        done = sabio(indexed, "query", QUESTION, SABIO_OTLP_ENDPOINT=receiver.url)
    finally:
        receiver.httpd.shutdown()
    assert done.returncode == 0, done.stderr
    assert {"sabio.retrieve", "plan", "embed", "dense", "keyword", "fuse", "store.dense_search"} <= set(
        receiver.names
    ), receiver.names
    assert set(receiver.content_types) == {"application/x-protobuf"}


def test_console_tracing_prints_the_spans(indexed):
    done = sabio(indexed, "query", QUESTION, SABIO_TRACING="console")
    assert done.returncode == 0, done.stderr
    printed = done.stderr
    assert '"name": "dense"' in printed and '"openinference.span.kind": "RETRIEVER"' in printed
    traces = {
        line.split('"trace_id": ')[1].strip(' ",') for line in printed.splitlines() if '"trace_id": ' in line
    }
    assert len(traces) == 1, traces  # the question's spans, one trace under its root


def test_with_tracing_off_nothing_of_opentelemetry_is_imported():
    code = (
        "import json, sys; import app; from chalicelib import tracing; "
        "from chalicelib.composition import Container; "
        "with_span = tracing.span('x'); "
        "print(json.dumps([m for m in sys.modules if m.startswith('opentelemetry')]))"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) == []
