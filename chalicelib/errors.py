"""Sabio's one error tree: each error class carries its code and HTTP status, decided here and nowhere else."""

from __future__ import annotations

from typing import Any


class SabioError(Exception):
    """Every error Sabio raises to a caller: its code and HTTP status are the class's."""

    code = "internal_error"
    status = 500

    def __init__(self, message: str, *, field: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.field = field

    def to_dict(self) -> dict[str, str]:
        body = {"code": self.code, "message": self.message}
        if self.field:
            body["field"] = self.field
        return body


class InvalidInput(SabioError):
    code = "invalid_input"
    status = 400


class PayloadTooLarge(SabioError):
    code = "payload_too_large"
    status = 413


class Unauthorized(SabioError):
    code = "unauthorized"
    status = 401


class Forbidden(SabioError):
    code = "forbidden"
    status = 403


class UnsupportedMediaType(SabioError):
    code = "unsupported_media_type"
    status = 415


class TooManyRequests(SabioError):
    code = "too_many_requests"
    status = 429


class NotFound(SabioError):
    code = "not_found"
    status = 404


class EmbeddingModelMismatch(SabioError):
    """The index was built with another embedding model: searching it would return garbage."""

    code = "embedding_model_mismatch"
    status = 409

    @classmethod
    def check(cls, indexed: Any, configured: Any, remedy: str) -> None:
        """Raise unless the index's embedding space (None: nothing indexed yet) is the configured one."""
        if indexed is not None and indexed != configured:
            raise cls(
                f"this index was built with embedding model {indexed.model_id!r} ({indexed.dim} dims) but the "
                f"configured embedder is {configured.model_id!r} ({configured.dim} dims); {remedy}"
            )


class ExtractionError(SabioError):
    """A document could not be read; it is recorded as failed and the run goes on."""

    code = "extraction_failed"


class NotIndexed(ExtractionError):
    """A file left out on purpose (binary, empty, too large, generated): named in the report's skipped list
    with the reason, not a failure."""

    code = "not_indexed"


class UpstreamError(SabioError):
    code = "upstream_error"
    status = 502


class LLMError(UpstreamError):
    """An LLM request that did not produce a usable reply; ``reason`` is one of a few stable words (timeout,
    rate_limited, connection, server_error, client_error, bad_reply, empty), ``retry_after`` the seconds
    the server asked to wait, when it said."""

    code = "llm_error"

    def __init__(self, reason: str, detail: str = "", retry_after: float | None = None) -> None:
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason
        self.detail = detail
        self.retry_after = retry_after

    @property
    def why(self) -> str:
        """The reason and its detail, short enough for a response's note (200 characters)."""
        return f"{self.reason}: {self.detail}"[:200]


class ConfigurationError(ValueError):
    """A setting that cannot work (a model path that does not exist, a reranker with no endpoint): said
    when the component is built, before it serves anything."""


class RerankError(Exception):
    """A reranker that did not answer usefully (timeout, 5xx, throttling, a malformed or partial ranking, a
    model that failed to load): never an HTTP error, the first-stage order stands and ``reason`` says why."""

    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason
        self.detail = detail


# Codes for the errors Chalice or API Gateway raise themselves, so every error body has one shape.
_CODES_BY_STATUS = {
    400: InvalidInput.code,
    401: Unauthorized.code,
    403: Forbidden.code,
    404: NotFound.code,
    405: "method_not_allowed",
    413: PayloadTooLarge.code,
    414: "uri_too_long",
    415: UnsupportedMediaType.code,
    429: TooManyRequests.code,
    501: "not_implemented",
    502: UpstreamError.code,
}


def error_body(status: int, message: str) -> dict[str, str]:
    """Sabio's error body for an error that was not raised as a SabioError (e.g. Chalice's own 405)."""
    return {"code": _CODES_BY_STATUS.get(status, SabioError.code), "message": message}


def http_status(error: SabioError) -> int:
    return error.status


def invalid_input(exc: Any) -> InvalidInput:
    """A pydantic ValidationError of a request body as Sabio's one message (``field: what is wrong``); the
    HTTP API and the MCP tools say the same thing about the same bad input."""
    first = exc.errors()[0]
    if first["type"] == "json_invalid":
        why = first["msg"].removeprefix("Invalid JSON: ")
        if "hex escape" in why or "unicode code point" in why:  # "\ud800" alone: half a character
            why += " (a \\uD800-\\uDFFF escape must be half of a surrogate pair; send the character itself)"
        return InvalidInput(f"body is not valid JSON: {why}")
    if first["type"] == "model_type" and not first["loc"]:
        return InvalidInput("body must be a JSON object")
    field = ".".join(str(p) for p in first["loc"]) or "body"
    # our own validators' words, without pydantic's "Value error, " in front of them
    return InvalidInput(f"{field}: {first['msg'].removeprefix('Value error, ')}", field=field)
