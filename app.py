"""Sabio's HTTP API (Chalice): routes and error mapping only; the work happens in chalicelib."""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from chalice import Chalice, Response
from chalice.app import Request
from pydantic import BaseModel, ValidationError

from chalicelib.errors import (
    InvalidInput,
    NotFound,
    PayloadTooLarge,
    SabioError,
    error_body,
    http_status,
    invalid_input,
)
from chalicelib.models.api import RetrieveRequest
from chalicelib.routes import BY_PATH

if TYPE_CHECKING:
    from chalicelib.access.keys import KeyPolicy
    from chalicelib.composition import Container

M = TypeVar("M", bound=BaseModel)
app = Chalice(app_name="sabio")
_container: Container | None = None
# Chalice keeps one `app.current_request` for the whole app; under `chalice local` requests run in threads,
# so each view reads the request its own thread is serving (set by the middleware below).
_serving = threading.local()


def container() -> Container:
    """The composition root, built on the first request and kept while the Lambda is warm."""
    global _container
    if _container is None:
        from chalicelib.composition import Container

        _container = Container()
    return _container


def _error(exc: SabioError) -> Response:
    return Response(
        status_code=http_status(exc), body=exc.to_dict(), headers={"Content-Type": "application/json"}
    )


@app.middleware("http")
def sabio_errors(event: Request, get_response: Callable[[Request], Response]) -> Response:
    """Every response that Chalice itself makes (405, 415, 500, ...) leaves in Sabio's error shape."""
    _serving.request = event
    from chalicelib.telemetry import request_id

    if event.method == "POST" and not event.headers.get("content-type"):
        # as a wrong type is (Chalice's 415): a body is read as JSON only when the caller says it is JSON
        _serving.request = None
        message = "a POST needs the header Content-Type: application/json"
        return Response(
            body=error_body(415, message), status_code=415, headers={"Content-Type": "application/json"}
        )

    request_id.set(str((event.context or {}).get("requestId") or ""))  # API Gateway's id, in every log line
    try:
        response = get_response(event)
    finally:
        _serving.request = None
    body = response.body
    if response.status_code >= 400 and isinstance(body, dict) and "Code" in body:
        message = str(body.get("Message") or "")
        if response.status_code == 415:  # "Unsupported media type: text/plain": and what it should be
            message += "; send Content-Type: application/json"
        response.body = error_body(response.status_code, message)
        response.headers["Content-Type"] = "application/json"
    return response


def _request() -> Request:
    request = getattr(_serving, "request", None) or app.current_request
    assert request is not None, "only called while serving a request"
    return request


def route(path: str) -> Callable[[Callable[..., Any]], Any]:
    """``app.route`` for a path of the route list (chalicelib/routes.py, which the OpenAPI document is built
    from too), with its methods; the view may raise SabioError: it becomes that error's status and JSON body."""

    def register(view: Callable[..., Any]) -> Any:
        @functools.wraps(view)
        def handled(**params: str) -> Any:
            try:
                return view(**params)
            except SabioError as exc:
                return _error(exc)

        return app.route(path, methods=list(BY_PATH[path].methods), name=view.__name__)(handled)

    return register


def _access() -> KeyPolicy | None:
    """Who asks (chalicelib.access.keys.caller): 401 / 403 / 429 otherwise; None when the server runs without keys
    or identity provider (every document)."""
    from chalicelib.access.keys import caller

    c = container()
    return caller(_request().headers, c.authenticator, c.identity, c.local_reader)


def _raw_body() -> bytes:
    """The request's bytes, refused over SABIO_MAX_BODY_BYTES (413)."""
    body = _request().raw_body or b""
    raw = body.encode("utf-8") if isinstance(body, str) else body
    limit = container().settings.max_body_bytes
    if len(raw) > limit:
        raise PayloadTooLarge(f"request body is {len(raw):,} bytes; the limit is {limit:,}")
    return raw


def _asked() -> tuple[RetrieveRequest, KeyPolicy | None]:
    """The body as a request, and who asks (the key is checked first: 401 before 400)."""
    access = _access()
    request = _parsed(RetrieveRequest, _raw_body())
    if request.stream and _request().context.get("resourcePath") != "/answer":
        raise InvalidInput("stream: true is for POST /answer only", field="stream")
    return request, access


def _parsed(model: type[M], raw: bytes) -> M:
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as exc:  # said as it is: JSON's parser would blame a unicode code point
        raise InvalidInput(
            f"body is not valid UTF-8: byte 0x{raw[exc.start]:02x} at offset {exc.start} (send JSON as UTF-8)"
        ) from exc
    try:
        return model.model_validate_json(raw or b"{}")
    except ValidationError as exc:
        raise invalid_input(exc) from exc


def _days(value: str) -> float:
    try:
        days = float(value)
    except ValueError:
        days = -1.0
    if not 0 < days <= 3650:
        raise InvalidInput("days must be a number of days between 0 and 3650", field="days")
    return days


@route("/")
def page() -> Response:
    """The web page: ask, explore, status (one self-contained HTML document; the API calls need a key)."""
    from chalicelib.web import page_response

    body, headers = page_response()
    return Response(body=body, status_code=200, headers=dict[str, str | list[str]](headers))


@route("/health")
def health() -> dict[str, str]:
    return {"status": "ok"}


@route("/stats")
def stats() -> Any:
    from chalicelib.access.keys import require_all_sources

    require_all_sources(_access(), "stats")
    return container().index_status().model_dump()


@route("/chunks/{chunk_id}")
def chunk(chunk_id: str) -> Any:
    """One chunk with its document, heading path, lines and enrichment, if this key may read it."""
    from urllib.parse import unquote

    from chalicelib.access.keys import visible
    from chalicelib.models.api import ChunkView

    access = _access()
    chunk_id = unquote(
        chunk_id
    )  # API Gateway decodes path parameters, chalice local does not; ids hold no '%'
    found = container().chunk_store.get_chunks([chunk_id])
    if not found or not visible(access, found[0]):
        raise NotFound(f"no chunk {chunk_id!r}")  # another key's chunk is not confirmed to exist
    return ChunkView.of(found[0]).model_dump()


@route("/retrieve")
def retrieve() -> Any:
    return container().usage.retrieve(*_asked()).model_dump()


@route("/answer")
def answer() -> Any:
    """The answer; as server-sent events when asked (``"stream": true`` or Accept: text/event-stream): here
    the whole stream in one response, since API Gateway buffers it (``sabio serve`` and the stream function
    flush each event: chalicelib/streaming)."""
    request, access = _asked()
    from chalicelib.streaming.events import wants_stream

    if not wants_stream(_request().headers, request.stream):
        return container().usage.answer(request, access).model_dump()
    from chalicelib.streaming.doors import STREAM_HEADERS, stream_body

    headers: dict[str, str | list[str]] = {**STREAM_HEADERS}
    return Response(body=stream_body(container(), access, request), status_code=200, headers=headers)


@route("/context")
def context() -> Any:
    return container().usage.context(*_asked()).model_dump()


@route("/feedback")
def feedback() -> Any:
    """Whether an answer helped, for the key that asked (or an unrestricted one)."""
    from chalicelib.models.api import FeedbackRequest

    access = _access()
    return container().usage.feedback(_parsed(FeedbackRequest, _raw_body()), access).model_dump()


@route("/insights")
def insights() -> Any:
    """The knowledge-gap report of what the caller may read: ?days=7 by default."""
    from chalicelib.usage.insights import gap_report

    access = _access()
    c = container()
    params = dict(_request().query_params or {})
    days = _days(params.get("days", "7"))
    return gap_report(c.query_log, c.chunk_store, c.embedder.space, days, access=access).model_dump()


@route("/mcp")
def mcp() -> Response:
    """MCP over streamable HTTP, stateless with JSON responses (no session, no stream: one request, one
    answer, as API Gateway and Lambda serve them); the same API keys and scopes as every other route."""
    from chalicelib.agents.mcp_server import serve_http

    access = _access()
    request = _request()
    if request.method != "POST":  # no event stream to open and no session to end: stateless, one reply each
        message = "MCP here is stateless: POST one JSON-RPC message per request"
        return Response(body=error_body(405, message), status_code=405, headers={"Allow": "POST"})
    status, headers, body = serve_http(
        container(), access, request.method, dict(request.headers), _raw_body()
    )
    return Response(
        body=body.decode("utf-8"), status_code=status, headers=dict[str, str | list[str]](headers)
    )


@route("/openapi.json")
def openapi() -> Any:
    from chalicelib.openapi import build_openapi

    _access()
    return build_openapi()


def _not_found(**_: str) -> Response:
    request = _request()
    path = request.context.get("path") or "/"
    return _error(NotFound(f"no such route: {request.method} {path}"))


# API Gateway (and Chalice's local gateway) answer unknown routes with 403; these make them a JSON 404.
_ANY = ["GET", "POST", "PUT", "DELETE", "PATCH"]
for _depth in range(1, 7):
    _path = "".join(f"/{{p{i}}}" for i in range(1, _depth + 1))
    app.route(_path, methods=_ANY, name=f"not_found_{_depth}")(_not_found)
