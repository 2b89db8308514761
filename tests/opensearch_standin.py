"""OpenSearch over real HTTP for tests: osmem-server behind a small proxy that answers ``knn`` queries.

osmem-server (in-memory, OpenSearch's REST API) stores documents, aliases, mappings, bulk writes, BM25 and
bool filters, but has no k-NN. The proxy forwards every request unchanged, except a ``_search`` whose query
is ``{"knn": {field: {"vector", "k", "filter"}}}``: it asks osmem for every document the ``filter`` admits
(so filters are osmem's own), scores them by brute force the way the k-NN plugin scores ``cosinesimil``
(1 / (1 + d), d = 1 - cos) and answers in OpenSearch's response shape, ``_source`` projected as asked. So
the request bodies Sabio really sends travel over HTTP, SigV4 headers and all, and are answered.
"""

from __future__ import annotations

import json
import threading
import urllib.error
import urllib.request
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import numpy as np

WINDOW = 10_000  # osmem's (and OpenSearch's default) max_result_window: plenty for test corpora


def knn_score(query: np.ndarray, vectors: np.ndarray) -> np.ndarray:
    """The k-NN plugin's ``cosinesimil`` score for each row of ``vectors``."""
    norms = np.linalg.norm(vectors, axis=1) * np.linalg.norm(query)
    cos = vectors @ query / np.where(norms == 0, 1.0, norms)
    return 1.0 / (1.0 + (1.0 - cos))


def _project(source: dict[str, Any], fields: Any) -> dict[str, Any]:
    if fields is None or fields is True:
        return source
    if fields is False:
        return {}
    wanted = [fields] if isinstance(fields, str) else list(fields)
    return {k: v for k, v in source.items() if k in wanted}


class KnnStandIn:
    def __init__(self, upstream: str) -> None:
        self.upstream = upstream.rstrip("/")
        self.requests: Counter[str] = Counter()  # "knn", "search", "bulk", ... as Sabio sent them
        self.signed = 0  # requests that carried a SigV4 Authorization header
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"

    # ------------------------------------------------------------ the upstream (osmem)
    def forward(self, method: str, path: str, body: bytes | None, content_type: str) -> tuple[int, bytes]:
        request = urllib.request.Request(
            self.upstream + path, data=body, method=method, headers={"Content-Type": content_type}
        )
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return response.status, response.read()
        except urllib.error.HTTPError as error:
            return error.code, error.read()

    def knn(self, path: str, body: dict[str, Any]) -> tuple[int, bytes]:
        ((field, spec),) = body["query"]["knn"].items()
        candidates = {"size": WINDOW, "query": spec.get("filter") or {"match_all": {}}}
        status, raw = self.forward("POST", path, json.dumps(candidates).encode(), "application/json")
        if status != 200:
            return status, raw
        hits = [h for h in json.loads(raw)["hits"]["hits"] if h["_source"].get(field) is not None]
        size = min(int(spec["k"]), int(body.get("size", spec["k"])))
        ranked: list[tuple[float, dict[str, Any]]] = []
        if hits:
            vectors = np.asarray([h["_source"][field] for h in hits], dtype=np.float64)
            scores = knn_score(np.asarray(spec["vector"], dtype=np.float64), vectors)
            ranked = [(float(scores[i]), hits[i]) for i in np.argsort(-scores, kind="stable")[:size]]
        answer = {
            "took": 1,
            "timed_out": False,
            "_shards": {"total": 1, "successful": 1, "skipped": 0, "failed": 0},
            "hits": {
                "total": {"value": len(ranked), "relation": "eq"},
                "max_score": ranked[0][0] if ranked else None,
                "hits": [
                    {
                        "_index": h["_index"],
                        "_id": h["_id"],
                        "_score": score,
                        "_source": _project(h["_source"], body.get("_source")),
                    }
                    for score, h in ranked
                ],
            },
        }
        return 200, json.dumps(answer).encode()

    # ------------------------------------------------------------ the HTTP side
    def _handler(self) -> type[BaseHTTPRequestHandler]:
        standin = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def _serve(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else None
                if self.headers.get("Authorization", "").startswith("AWS4-HMAC-SHA256"):
                    standin.signed += 1
                route = self.path.split("?")[0].rstrip("/").rsplit("/", 1)[-1]
                parsed = json.loads(body) if body and route == "_search" else None
                if parsed is not None and "knn" in (parsed.get("query") or {}):
                    standin.requests["knn"] += 1
                    status, raw = standin.knn(self.path, parsed)
                else:
                    standin.requests[route.lstrip("_") or "root"] += 1
                    content_type = self.headers.get("Content-Type", "application/json")
                    status, raw = standin.forward(self.command, self.path, body, content_type)
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(raw)

            do_GET = do_POST = do_PUT = do_DELETE = do_HEAD = _serve

        return Handler

    @contextmanager
    def running(self) -> Iterator[KnnStandIn]:
        thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        thread.start()
        try:
            yield self
        finally:
            self._server.shutdown()
            self._server.server_close()


@contextmanager
def opensearch() -> Iterator[KnnStandIn]:
    """osmem-server plus the k-NN proxy in front of it; ``.url`` is what a client connects to."""
    from osmem_server import OsmemServer

    with OsmemServer.start(freeze=False) as osmem, KnnStandIn(osmem.url).running() as standin:
        yield standin
