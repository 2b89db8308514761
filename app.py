"""Sabio's HTTP API (Chalice): routes and error mapping only; the work happens in chalicelib."""

from __future__ import annotations

import json
from typing import Any

from chalice import Chalice, Response
from pydantic import ValidationError

from chalicelib.errors import Forbidden, InvalidInput, NotFound, PayloadTooLarge, SabioError, http_status
from chalicelib.models import RetrieveRequest

app = Chalice(app_name="sabio")
_container: Any = None


def container() -> Any:
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


def _access() -> Any:
    """The caller's KeyPolicy (401 / 403 / 429 otherwise); None when the server runs without keys."""
    auth = container().authenticator
    if auth is None:
        return None
    headers = app.current_request.headers
    key = headers.get("x-api-key")
    bearer = headers.get("authorization") or ""
    if not key and bearer.lower().startswith("bearer "):
        key = bearer[7:].strip()
    return auth.check(key)


def _body() -> RetrieveRequest:
    access = _access()
    raw = app.current_request.raw_body or b""
    limit = container().settings.max_body_bytes
    if len(raw) > limit:
        raise PayloadTooLarge(f"request body is {len(raw):,} bytes; the limit is {limit:,}")
    try:
        data = json.loads(raw or b"{}")
    except ValueError as exc:
        raise InvalidInput(f"body is not valid JSON: {exc}") from exc
    if not isinstance(data, dict):
        raise InvalidInput("body must be a JSON object")
    try:
        return RetrieveRequest.model_validate(data).with_access(access)
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(str(p) for p in first["loc"]) or "body"
        raise InvalidInput(f"{field}: {first['msg']}", field=field) from exc


def _handle(work: Any) -> Any:
    try:
        return work()
    except SabioError as exc:
        return _error(exc)


@app.route("/health", methods=["GET"])
def health() -> dict[str, str]:
    return {"status": "ok"}


def _stats() -> Any:
    access = _access()
    if access is not None and not access.unrestricted:
        raise Forbidden("stats cover every source: this key is limited to some")
    return container().chunk_store.stats().model_dump()


@app.route("/stats", methods=["GET"])
def stats() -> Any:
    return _handle(_stats)


@app.route("/retrieve", methods=["POST"])
def retrieve() -> Any:
    return _handle(lambda: container().retriever.retrieve(_body()).model_dump())


@app.route("/answer", methods=["POST"])
def answer() -> Any:
    return _handle(lambda: container().answerer.answer(_body()).model_dump())


@app.route("/context", methods=["POST"])
def context() -> Any:
    return _handle(lambda: container().context(_body()).model_dump())


@app.route("/openapi.json", methods=["GET"])
def openapi() -> Any:
    def document() -> Any:
        from chalicelib.openapi import build_openapi

        _access()
        return build_openapi()

    return _handle(document)


def _not_found(**_: str) -> Response:
    path = app.current_request.context.get("path") or "/"
    return _error(NotFound(f"no such route: {app.current_request.method} {path}"))


# API Gateway (and Chalice's local gateway) answer unknown routes with 403; these make them a JSON 404.
_ANY = ["GET", "POST", "PUT", "DELETE", "PATCH"]
app.route("/{p1}", methods=_ANY, name="not_found_1")(_not_found)
app.route("/{p1}/{p2}", methods=_ANY, name="not_found_2")(_not_found)
app.route("/{p1}/{p2}/{p3}", methods=_ANY, name="not_found_3")(_not_found)
