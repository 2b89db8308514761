"""A real local HTTP server speaking the rerank wire protocols for tests: Cohere's ``/rerank`` shape (Jina,
vLLM), Hugging Face TEI's, and Amazon Bedrock's Rerank API (what boto3 sends to ``endpoint_url``), with
scripted faults: latency, a status (with Bedrock's error type), a body that is not what was asked."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.http_reply import send_json

Scorer = Callable[[str, str], float]


def words_in_common(query: str, document: str) -> float:
    """A stand-in relevance: how many of the query's words (4+ letters) the document holds."""
    words = {w.strip("¿?.,").lower() for w in query.split() if len(w.strip("¿?.,")) >= 4}
    text = document.lower()
    return float(sum(1 for w in words if w in text))


@dataclass
class Fault:
    status: int = 200
    delay_s: float = 0.0
    body: str | None = None  # sent as is instead of the real answer
    error_type: str | None = None  # Bedrock: x-amzn-ErrorType


@dataclass
class RerankTestServer:
    shape: str = "cohere"  # "cohere" | "tei" | "bedrock"
    scorer: Scorer = words_in_common
    script: list[Fault] = field(default_factory=list)
    requests: list[dict[str, Any]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                return None

            def do_POST(self) -> None:  # noqa: N802
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
                with server._lock:
                    server.requests.append({"path": self.path, "headers": dict(self.headers), "body": body})
                    fault = server.script.pop(0) if server.script else Fault()
                if fault.delay_s:
                    time.sleep(fault.delay_s)
                if fault.status != 200 or fault.body is not None:
                    self._send(fault.status, fault.body or json.dumps({"message": "scripted failure"}), fault)
                    return
                reply = server.answer(body)
                if reply is None:
                    self._send(422, json.dumps({"error": "missing field `texts`"}), fault)
                    return
                self._send(200, json.dumps(reply), fault)

            def _send(self, code: int, payload: str, fault: Fault) -> None:
                send_json(
                    self, code, payload, {"x-amzn-ErrorType": fault.error_type} if fault.error_type else {}
                )

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def answer(self, body: dict[str, Any]) -> Any:
        if self.shape == "bedrock":
            query = body["queries"][0]["textQuery"]["text"]
            docs = [s["inlineDocumentSource"]["textDocument"]["text"] for s in body["sources"]]
        elif self.shape == "tei":
            if "texts" not in body:  # what TEI's JSON extractor answers for a missing field
                return None
            query, docs = body["query"], body["texts"]
        else:
            query, docs = body["query"], body["documents"]
        ranked = sorted(range(len(docs)), key=lambda i: -self.scorer(query, docs[i]))
        if self.shape == "bedrock":
            return {"results": [{"index": i, "relevanceScore": self.scorer(query, docs[i])} for i in ranked]}
        if self.shape == "tei":
            return [{"index": i, "score": self.scorer(query, docs[i])} for i in ranked]
        results = [{"index": i, "relevance_score": self.scorer(query, docs[i])} for i in ranked]
        return {"id": "test", "results": results, "meta": {"billed_units": {"search_units": 1}}}

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def enqueue(self, *faults: Fault) -> None:
        with self._lock:
            self.script.extend(faults)

    def __enter__(self) -> RerankTestServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
