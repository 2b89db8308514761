"""The OpenAPI 3.1 document of the HTTP API, generated from the pydantic models (docs/openapi.json)."""

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
    InsightsReport,
    RetrieveRequest,
    RetrieveResponse,
)
from chalicelib.models.records import Stats

VERSION = "1.0.0"
_ERRORS = {
    "400": "invalid input (the field is named)",
    "404": "no such route",
    "409": "embedding model mismatch",
    "413": "request body too large",
    "502": "upstream failure",
}


def _json(ref: str) -> dict[str, Any]:
    return {"content": {"application/json": {"schema": {"$ref": ref}}}}


def build_openapi() -> dict[str, Any]:
    models: list[type[BaseModel]] = [
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
    ]
    requests = (RetrieveRequest, FeedbackRequest)
    _, schema = models_json_schema(
        [(m, "validation" if m in requests else "serialization") for m in models],
        ref_template="#/components/schemas/{model}",
    )
    ref = "#/components/schemas/{}".format
    errors = {code: {"description": text, **_json(ref("ErrorBody"))} for code, text in _ERRORS.items()}

    def post(summary: str, response: str) -> dict[str, Any]:
        return {
            "post": {
                "summary": summary,
                "requestBody": {"required": True, **_json(ref("RetrieveRequest"))},
                "responses": {"200": {"description": "OK", **_json(ref(response))}, **errors},
            }
        }

    return {
        "openapi": "3.1.0",
        "info": {
            "title": "Sabio",
            "version": VERSION,
            "description": "Multilingual retrieval for company knowledge: retrieve, answer, context.",
        },
        "paths": {
            "/retrieve": post(
                "Context for an agent: specific chunks for a question, or a bootstrap map", "RetrieveResponse"
            ),
            "/answer": post("A grounded answer with verified citations", "AnswerResponse"),
            "/context": post("Retrieved context plus a summary, ready for a prompt", "ContextResponse"),
            "/feedback": {
                "post": {
                    "summary": "Whether an answer helped: for the key that asked (or an unrestricted one)",
                    "description": "query_id comes from a /retrieve, /answer or /context response. Feedback "
                    "from more than one key on similar questions becomes a small, capped ranking prior "
                    "(SABIO_FEEDBACK_RANKING=0 turns it off). 404 when the id is unknown or past its retention.",
                    "requestBody": {"required": True, **_json(ref("FeedbackRequest"))},
                    "responses": {"200": {"description": "OK", **_json(ref("FeedbackResponse"))}, **errors},
                }
            },
            "/insights": {
                "get": {
                    "summary": "Knowledge gaps: questions the documents do not answer, grouped by meaning; "
                    "what to translate; most cited, never retrieved and failed documents",
                    "description": "For keys that see every source.",
                    "parameters": [
                        {
                            "name": "days",
                            "in": "query",
                            "required": False,
                            "schema": {
                                "type": "number",
                                "default": 7,
                                "exclusiveMinimum": 0,
                                "maximum": 3650,
                            },
                        }
                    ],
                    "responses": {"200": {"description": "OK", **_json(ref("InsightsReport"))}, **errors},
                }
            },
            "/stats": {
                "get": {
                    "summary": "Counts by source, language, product, content type, category; failed documents "
                    "with their reasons (keys that see every source)",
                    "responses": {"200": {"description": "OK", **_json(ref("Stats"))}, **errors},
                }
            },
            "/chunks/{chunk_id}": {
                "get": {
                    "summary": "One chunk with its document, heading path, lines and enrichment",
                    "description": "For a chunk_id from /retrieve, /answer or /context; 404 when the key may "
                    "not read it (another key's chunk is not confirmed to exist).",
                    "parameters": [
                        {"name": "chunk_id", "in": "path", "required": True, "schema": {"type": "string"}}
                    ],
                    "responses": {"200": {"description": "OK", **_json(ref("ChunkView"))}, **errors},
                }
            },
            "/": {
                "get": {
                    "summary": "The web page: ask, explore a domain, index status (open; its calls need a key)",
                    "responses": {"200": {"description": "OK", "content": {"text/html": {}}}},
                }
            },
            "/health": {"get": {"summary": "Liveness", "responses": {"200": {"description": "OK"}}}},
            "/mcp": {
                "post": {
                    "summary": "Model Context Protocol (streamable HTTP, stateless, JSON responses)",
                    "description": "One JSON-RPC message per request, as an MCP client sends it (initialize, "
                    "tools/list, tools/call, resources/list, resources/read). Tools: search, map, answer, "
                    "context, get_chunk, list_sources, stats; their inputs are this API's request models. "
                    "The same API keys and scopes as every route. No session and no event stream (GET "
                    "answers 405).",
                    "requestBody": {
                        "required": True,
                        "content": {"application/json": {"schema": {"type": "object"}}},
                    },
                    "responses": {
                        "200": {
                            "description": "the JSON-RPC response",
                            "content": {"application/json": {"schema": {"type": "object"}}},
                        },
                        "202": {"description": "a notification was accepted"},
                        "400": {"description": "not a valid MCP message"},
                    },
                }
            },
            "/openapi.json": {
                "get": {"summary": "This document", "responses": {"200": {"description": "OK"}}}
            },
        },
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
