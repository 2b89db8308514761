"""The stream function's web server on AWS: POST /answer as server-sent events, behind a Lambda Function URL
in RESPONSE_STREAM mode through the Lambda Web Adapter (API Gateway's REST API and Chalice buffer a whole
response; Python Lambdas stream only this way). The adapter starts ``run.sh`` beside this file, waits for
GET /health, then turns each invocation into an HTTP request to this server and streams its reply back.

The request is read as the API reads it (keys, JWTs, scopes, body limit: chalicelib/streaming/doors.py), on
the same stores and settings (the stack gives this function the API's environment). The Function URL's
request context arrives in the ``x-amzn-request-context`` header: its request id goes into every log line.
"""

from __future__ import annotations

import json
import os
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING, Any

from chalicelib.errors import NotFound, SabioError

if TYPE_CHECKING:
    from chalicelib.composition import Container

_lock = threading.Lock()
_built: list[Container] = []


def container() -> Container:
    """The composition root, built on the first request and kept while the function is warm."""
    with _lock:
        if not _built:
            from chalicelib.composition import Container

            _built.append(Container())
        return _built[0]


class StreamHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self) -> None:  # noqa: N802 - the adapter's readiness check
        if self.path.split("?")[0] == "/health":
            self._json(200, {"status": "ok"})
        else:
            self._error(NotFound(f"no such route: GET {self.path.split('?')[0]}"))

    def do_POST(self) -> None:  # noqa: N802
        from chalicelib.streaming.doors import serve
        from chalicelib.telemetry import request_id

        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        if self.path.split("?")[0] != "/answer":
            self._error(
                NotFound(f"no such route: POST {self.path.split('?')[0]} (this function streams /answer)")
            )
            return
        request_id.set(_request_id(self.headers.get("x-amzn-request-context")))
        serve(self, container(), dict(self.headers.items()), body)

    def _error(self, exc: SabioError) -> None:
        self._json(exc.status, exc.to_dict())

    def _json(self, status: int, data: dict[str, Any]) -> None:
        body = json.dumps(data, separators=(",", ":")).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
        return None  # the telemetry line of each question is the log; no access log on stdout


def _request_id(context: str | None) -> str:
    """The Function URL's request id, from the context the adapter forwards."""
    try:
        return str(json.loads(context or "{}").get("requestId") or "")
    except (ValueError, AttributeError):
        return ""


def main() -> None:
    port = int(os.environ.get("AWS_LWA_PORT") or os.environ.get("PORT") or 8080)
    server = ThreadingHTTPServer(("127.0.0.1", port), StreamHandler)
    server.daemon_threads = True
    server.serve_forever()


if __name__ == "__main__":
    main()
