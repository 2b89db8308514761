"""``chalice local`` with a listen queue fit for concurrent clients, and the HTTP server's own errors in
Sabio's JSON shape: what ``sabio serve`` runs.

Chalice's local server is a ``socketserver`` whose listen backlog is five connections. More clients than
that connecting at once (a web page's requests, an agent's parallel tool calls, bench/load.py at concurrency
60) overflowed it and their connections were reset: 14 to 56 of 600 requests failed. The server is
otherwise Chalice's own, but for the errors ``http.server`` answers before a request reaches the app (a
URL over 65,536 characters: 414, a malformed request line: 400, an unknown method: 501): they were an HTML
page, they are Sabio's ``{"code", "message"}`` like every other error.

And a streamed answer (POST /answer asking for server-sent events) is written event by event: Chalice's
local gateway returns a response whole, so such a request is served by chalicelib/streaming/doors.py on the
same connection, with the same keys, checks and errors as the route.
"""

from __future__ import annotations

import json
import sys
from http.server import BaseHTTPRequestHandler
from typing import Any

from chalicelib.errors import error_body

LISTEN_BACKLOG = 256


def send_error(
    self: BaseHTTPRequestHandler, code: int, message: str | None = None, explain: str | None = None
) -> None:
    """``BaseHTTPRequestHandler.send_error`` with Sabio's error body instead of an HTML page."""
    short, long = self.responses.get(code, ("Error", ""))
    text = f"{message or short}: {explain or long}" if (explain or long) else (message or short)
    self.log_error("code %d, message %s", code, message)
    self.send_response(code, message)
    self.send_header("Connection", "close")
    body = b""
    if code >= 200 and code not in (204, 205, 304):
        body = json.dumps(error_body(code, text)).encode("utf-8")
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
    self.end_headers()
    if getattr(self, "command", None) != "HEAD" and body:
        self.wfile.write(body)


def do_post(self: Any) -> None:
    """``ChaliceRequestHandler.do_POST``: a streamed answer flushed event by event, every other request to
    Chalice's gateway as before."""
    headers, body = self._parse_payload()
    if self.path.split("?")[0] == "/answer" and _streamed(headers, body or b""):
        import app
        from chalicelib.streaming.doors import serve

        serve(self, app.container(), headers, body or b"")
        return
    from chalice.local import LocalGatewayException

    try:
        response = self.local_gateway.handle_request(
            method=self.command, path=self.path, headers=headers, body=body
        )
        reply_headers = {**response["headers"], **response["multiValueHeaders"]}
        response = self._handle_binary(response)
        self._send_http_response(response["statusCode"], reply_headers, response["body"])
    except LocalGatewayException as e:
        self._send_error_response(e)


def _streamed(headers: dict[str, str], body: bytes) -> bool:
    """Whether a POST /answer asks for events: Accept: text/event-stream, or ``"stream": true`` in its body."""
    from chalicelib.streaming.events import wants_stream

    try:
        asked = json.loads(body or b"{}")
    except (ValueError, RecursionError):
        asked = None  # not JSON, or nested past the parser's depth: the route says so
    return wants_stream(headers, isinstance(asked, dict) and asked.get("stream") is True)


def main() -> int:
    from chalice import local
    from chalice.cli import main as chalice_main

    local.ThreadedHTTPServer.request_queue_size = LISTEN_BACKLOG
    local.ChaliceRequestHandler.send_error = send_error
    local.ChaliceRequestHandler.do_POST = do_post
    return int(chalice_main() or 0)


if __name__ == "__main__":
    sys.exit(main())
