"""The doors of a streamed answer: a request read the way app.py reads POST /answer (who asks first: 401
before 400; the body's size; its JSON), then its events written as they come to an HTTP connection, or all at
once as one response body where a gateway buffers anyway.

A client that hangs up is noticed between two events (its socket reads as closed, or a write fails): the
events are closed there, and with them the LLM's stream.
"""

from __future__ import annotations

import contextlib
import json
import logging
import select
import socket
from collections.abc import Iterator, Mapping
from http.server import BaseHTTPRequestHandler
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from chalicelib.errors import PayloadTooLarge, SabioError, UnsupportedMediaType, invalid_input
from chalicelib.models.api import RetrieveRequest
from chalicelib.streaming.events import EVENT_STREAM, Event

if TYPE_CHECKING:
    from chalicelib.composition import Container

log = logging.getLogger("sabio.streaming")
STREAM_HEADERS = {"Content-Type": EVENT_STREAM, "Cache-Control": "no-cache", "X-Accel-Buffering": "no"}


class Opened:
    """A stream whose first event is ready (the request was accepted): iterate it, close it when done."""

    def __init__(self, first: Event, rest: Iterator[Event]) -> None:
        self.first = first
        self.rest = rest

    def __iter__(self) -> Iterator[Event]:
        yield self.first
        yield from self.rest

    def close(self) -> None:
        close = getattr(self.rest, "close", None)
        if close is not None:
            close()


def read_request(container: Container, headers: Mapping[str, str], raw: bytes) -> tuple[Any, RetrieveRequest]:
    """Who asks and what, as app.py reads POST /answer; a SabioError (401, 403, 413, 415, 400, 429) if not."""
    from chalicelib.access.keys import caller

    lower = {k.lower(): v for k, v in headers.items()}
    access = caller(lower, container.authenticator, container.identity, container.local_reader)
    limit = container.settings.max_body_bytes
    if len(raw) > limit:
        raise PayloadTooLarge(f"request body is {len(raw):,} bytes; the limit is {limit:,}")
    media = (lower.get("content-type") or "application/json").split(";")[0].strip().lower()
    if media != "application/json":
        raise UnsupportedMediaType(f"Unsupported media type: {media}")
    try:
        return access, RetrieveRequest.model_validate_json(raw or b"{}")
    except ValidationError as exc:
        raise invalid_input(exc) from exc


def opened(container: Container, access: Any, request: RetrieveRequest) -> Opened:
    """The answer's events, its first one made (raises the SabioError of a request that cannot be answered)."""
    from chalicelib.streaming.answering import answer_events

    events = answer_events(container.usage, request, access)
    try:
        first = next(events)
    except BaseException:
        events.close()  # type: ignore[attr-defined]
        raise
    return Opened(first, events)


def stream_body(container: Container, access: Any, request: RetrieveRequest) -> str:
    """The whole stream as one text/event-stream body, for a door that cannot flush (API Gateway's REST API)."""
    stream = opened(container, access, request)
    with contextlib.closing(stream):
        return "".join(event.sse().decode() for event in stream)


def serve(
    handler: BaseHTTPRequestHandler, container: Container, headers: Mapping[str, str], raw: bytes
) -> None:
    """POST /answer as a stream on ``handler``'s connection: the 4xx JSON of a bad request, else 200 and
    each event as soon as it is made; the connection closes after the last."""
    try:
        access, request = read_request(container, headers, raw)
        stream = opened(container, access, request)
    except SabioError as exc:
        send_error(handler, exc)
        return
    handler.close_connection = True  # no length to announce: the stream ends with the connection
    handler.send_response(200)
    for name, value in {**STREAM_HEADERS, "Connection": "close"}.items():
        handler.send_header(name, value)
    handler.end_headers()
    with contextlib.closing(stream):
        for event in stream:
            if hung_up(handler.connection) or not _sent(handler, event.sse()):
                log.info("the client left a streamed answer; its events (and LLM call) are closed")
                return


def send_error(handler: BaseHTTPRequestHandler, exc: SabioError) -> None:
    body = json.dumps(exc.to_dict(), separators=(",", ":")).encode()
    handler.send_response(exc.status)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    handler.wfile.write(body)


def hung_up(connection: socket.socket) -> bool:
    """Whether the client closed its side (a readable socket with nothing to read); never blocks."""
    try:
        readable, _, _ = select.select([connection], [], [], 0)
        return bool(readable) and connection.recv(1, socket.MSG_PEEK) == b""
    except (OSError, ValueError):
        return True


def _sent(handler: BaseHTTPRequestHandler, data: bytes) -> bool:
    try:
        handler.wfile.write(data)
        handler.wfile.flush()
        return True
    except (BrokenPipeError, ConnectionResetError):
        return False
