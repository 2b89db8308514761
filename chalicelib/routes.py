"""The HTTP API's routes, listed once: app.py routes each path with its methods, and openapi.py documents it
from the same entry (what it does, the models its body and reply take). Plain data: app.py imports it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Route:
    path: str
    methods: tuple[str, ...]  # the first is the one documented
    summary: str
    description: str | None = None
    body: str | None = None  # the JSON body's model (a name in chalicelib.models), if it takes one
    reply: str | None = None  # the 200 reply's model; a route with one also documents the error replies
    parameters: tuple[dict[str, Any], ...] = ()
    openapi: dict[str, Any] = field(default_factory=dict)  # the operation's own words where it differs


def _object(description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": {"type": "object"}}}}


ROUTES = (
    Route(
        "/",
        ("GET",),
        "The web page: ask, explore a domain, index status (open; its calls need a key)",
        openapi={"responses": {"200": {"description": "OK", "content": {"text/html": {}}}}},
    ),
    Route("/health", ("GET",), "Liveness"),
    Route(
        "/stats",
        ("GET",),
        "Counts by source, language, product, content type, category; failed documents with their reasons "
        "(keys that see every source)",
        reply="Stats",
    ),
    Route(
        "/chunks/{chunk_id}",
        ("GET",),
        "One chunk with its document, heading path, lines and enrichment",
        "For a chunk_id from /retrieve, /answer or /context; 404 when the key may not read it (another key's "
        "chunk is not confirmed to exist).",
        reply="ChunkView",
        parameters=({"name": "chunk_id", "in": "path", "required": True, "schema": {"type": "string"}},),
    ),
    Route(
        "/retrieve",
        ("POST",),
        "Context for an agent: specific chunks for a question, or a bootstrap map",
        body="RetrieveRequest",
        reply="RetrieveResponse",
    ),
    Route(
        "/answer",
        ("POST",),
        "A grounded answer with verified citations",
        body="RetrieveRequest",
        reply="AnswerResponse",
    ),
    Route(
        "/context",
        ("POST",),
        "Retrieved context plus a summary, ready for a prompt",
        body="RetrieveRequest",
        reply="ContextResponse",
    ),
    Route(
        "/feedback",
        ("POST",),
        "Whether an answer helped: for the key that asked (or an unrestricted one)",
        "query_id comes from a /retrieve, /answer or /context response. Feedback from more than one key on "
        "similar questions becomes a small, capped ranking prior (SABIO_FEEDBACK_RANKING=0 turns it off). 404 "
        "when the id is unknown or past its retention.",
        body="FeedbackRequest",
        reply="FeedbackResponse",
    ),
    Route(
        "/insights",
        ("GET",),
        "Knowledge gaps: questions the documents do not answer, grouped by meaning; what to translate; most "
        "cited, never retrieved and failed documents",
        "For keys that see every source.",
        reply="InsightsReport",
        parameters=(
            {
                "name": "days",
                "in": "query",
                "required": False,
                "schema": {"type": "number", "default": 7, "exclusiveMinimum": 0, "maximum": 3650},
            },
        ),
    ),
    Route(
        "/mcp",
        ("POST", "GET", "DELETE"),
        "Model Context Protocol (streamable HTTP, stateless, JSON responses)",
        "One JSON-RPC message per request, as an MCP client sends it (initialize, tools/list, tools/call, "
        "resources/list, resources/read). Tools: search, map, answer, context, get_chunk, list_sources, stats; "
        "their inputs are this API's request models. The same API keys and scopes as every route. No session "
        "and no event stream (GET answers 405).",
        openapi={
            "requestBody": {
                "required": True,
                "content": {"application/json": {"schema": {"type": "object"}}},
            },
            "responses": {
                "200": _object("the JSON-RPC response"),
                "202": {"description": "a notification was accepted"},
                "400": {"description": "not a valid MCP message"},
            },
        },
    ),
    Route("/openapi.json", ("GET",), "This document"),
)
BY_PATH = {route.path: route for route in ROUTES}
