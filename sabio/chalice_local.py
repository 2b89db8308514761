"""``chalice local`` with a listen queue fit for concurrent clients, and the HTTP server's own errors in
Sabio's JSON shape: what ``sabio serve`` runs.

Chalice's local server is a ``socketserver`` whose listen backlog is five connections. More clients than
that connecting at once (a web page's requests, an agent's parallel tool calls, bench/load.py at concurrency
60) overflowed it and their connections were reset: 14 to 56 of 600 requests failed. The server is
otherwise Chalice's own, but for the errors ``http.server`` answers before a request reaches the app (a
URL over 65,536 characters: 414, a malformed request line: 400, an unknown method: 501): they were an HTML
page, they are Sabio's ``{"code", "message"}`` like every other error.
"""

from __future__ import annotations

import json
import sys
from http.server import BaseHTTPRequestHandler

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


def main() -> int:
    from chalice import local
    from chalice.cli import main as chalice_main

    local.ThreadedHTTPServer.request_queue_size = LISTEN_BACKLOG
    local.ChaliceRequestHandler.send_error = send_error
    return int(chalice_main() or 0)


if __name__ == "__main__":
    sys.exit(main())
