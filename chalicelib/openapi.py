"""The OpenAPI 3.1 document of the HTTP API, generated from its route list (chalicelib/routes.py) and the\npydantic models (docs/openapi.json)."""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel
from pydantic.json_schema import models_json_schema

from chalicelib.models.api import (
    AnswerResponse,
    ChunkView,
    ContextResponse,
    ErrorBody,
    FeedbackRequest,
    FeedbackResponse,
    RetrieveRequest,
    RetrieveResponse,
)
from chalicelib.models.insights import InsightsReport
from chalicelib.models.records import Stats
from chalicelib.routes import ROUTES, Route

VERSION = "1.0.0"
# the models the routes name (chalicelib.routes), and the error body every route with a model may reply
MODELS: tuple[type[BaseModel], ...] = (
    RetrieveRequest,
    RetrieveResponse,
    AnswerResponse,
    ContextResponse,
    FeedbackRequest,
    FeedbackResponse,
    InsightsReport,
    Stats,
    ChunkView,
    ErrorBody,
)
_ERRORS = {
    "400": "invalid input (the field is named)",
    "404": "no such route",
    "409": "embedding model mismatch",
    "413": "request body too large",
    "502": "upstream failure",
}


def _json(model: str) -> dict[str, Any]:
    return {"content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{model}"}}}}


def _operation(route: Route, errors: dict[str, Any]) -> dict[str, Any]:
    """One route's operation: its words, its body, its reply (and then the error replies), as listed."""
    operation: dict[str, Any] = {"summary": route.summary}
    if route.description:
        operation["description"] = route.description
    if route.parameters:
        operation["parameters"] = list(route.parameters)
    if route.body:
        operation["requestBody"] = {"required": True, **_json(route.body)}
    ok = {"description": "OK", **(_json(route.reply) if route.reply else {})}
    operation["responses"] = {"200": ok, **(errors if route.reply else {})}
    return {route.methods[0].lower(): {**operation, **route.openapi}}


def build_openapi() -> dict[str, Any]:
    bodies = {route.body for route in ROUTES}
    _, schema = models_json_schema(
        [(m, "validation" if m.__name__ in bodies else "serialization") for m in MODELS],
        ref_template="#/components/schemas/{model}",
    )
    errors = {code: {"description": text, **_json("ErrorBody")} for code, text in _ERRORS.items()}
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "Sabio",
            "version": VERSION,
            "description": "Multilingual retrieval for company knowledge: retrieve, answer, context.",
        },
        "paths": {route.path: _operation(route, errors) for route in ROUTES},
        "components": {"schemas": schema.get("$defs", {}), "securitySchemes": SECURITY},
        # none when the server runs without keys (locally); a key, a user's token, or both (docs/permissions.md)
        "security": [{}, {"apiKey": []}, {"userToken": []}, {"apiKey": [], "userToken": []}],
    }


SECURITY = {
    "apiKey": {
        "type": "apiKey",
        "in": "header",
        "name": "x-api-key",
        "description": "an API key (sabio key)",
    },
    "userToken": {
        "type": "http",
        "scheme": "bearer",
        "bearerFormat": "JWT",
        "description": "the end user's token from the identity provider (SABIO_JWT_ISSUER): what they may read",
    },
    "actingUser": {
        "type": "apiKey",
        "in": "header",
        "name": "x-sabio-user",
        "description": "the user a key configured acts_for_users asks for (with x-sabio-groups)",
    },
}


def render() -> str:
    return json.dumps(build_openapi(), indent=2, ensure_ascii=False, sort_keys=True) + "\n"
