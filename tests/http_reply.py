"""The reply every local test server sends: a JSON body with its length and any extra headers, and no
complaint when the client has already gone (timeout and budget tests hang up on purpose)."""

from __future__ import annotations

from http.server import BaseHTTPRequestHandler


def send_json(handler: BaseHTTPRequestHandler, code: int, payload: str, headers: dict[str, str]) -> None:
    data = payload.encode()
    try:
        handler.send_response(code)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(data)))
        for k, v in headers.items():
            handler.send_header(k, v)
        handler.end_headers()
        handler.wfile.write(data)
    except (BrokenPipeError, ConnectionResetError):
        pass  # the client gave up
