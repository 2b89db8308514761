"""Sabio as an MCP server, on the official ``mcp`` SDK: the tools of ``tools.py`` and one resource per
indexed document (``sabio://<source_id>/<key>``).

Two transports: stdio (``sabio mcp``, the embedded store) and streamable HTTP in stateless JSON mode, one
request at a time, for ``POST /mcp`` on the Chalice app (``serve_http``: no session, no stream, so it fits
API Gateway and Lambda). Both build the same server for the caller's access, so a scoped key's agent sees
only its sources. Imported only when one of them is used: the API's other routes never load the SDK.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, MutableMapping
from typing import TYPE_CHECKING, Any

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError

from chalicelib.access.keys import reaches
from chalicelib.agents.tools import BY_NAME, TOOLS, document_uri, read_document
from chalicelib.errors import SabioError

if TYPE_CHECKING:
    from chalicelib.access.keys import KeyPolicy
    from chalicelib.composition import Container

INSTRUCTIONS = (
    "Sabio searches a company's documents and code (Spanish and English by default; SABIO_LANGUAGES). Use `search` for the passages "
    "that answer one question, `answer` for a grounded answer with verbatim citations, `map` for an "
    "overview of a whole domain, `get_chunk` to read around a result, `list_sources` for what is indexed. "
    "Pass the conversation_id a result returns with a follow-up question to ask it in context. "
    "Cite chunk ids or sabio:// URIs when you use what they say."
)
DOCUMENT_TEMPLATE = "sabio://{source_id}/{+key}"


async def _list_tools(_ctx: Any, _params: Any) -> types.ListToolsResult:
    return types.ListToolsResult(
        tools=[
            types.Tool(name=t.name, title=t.title, description=t.description, input_schema=t.input_schema())
            for t in TOOLS
        ]
    )


async def _list_templates(_ctx: Any, _params: Any) -> types.ListResourceTemplatesResult:
    return types.ListResourceTemplatesResult(
        resource_templates=[
            types.ResourceTemplate(
                uri_template=DOCUMENT_TEMPLATE,
                name="document",
                description="an indexed document's text, as cited by search and answer",
                mime_type="text/plain",
            )
        ]
    )


def _called(
    container: Container, access: KeyPolicy | None, params: types.CallToolRequestParams
) -> types.CallToolResult:
    """A tool's result, or its error in the API's words (one the model can read and correct)."""
    tool = BY_NAME.get(params.name)
    if tool is None:
        raise MCPError(types.INVALID_PARAMS, f"unknown tool {params.name!r}; tools: {', '.join(BY_NAME)}")
    try:
        result = tool.call(container, access, dict(params.arguments or {}))
    except SabioError as exc:
        return types.CallToolResult(
            content=[types.TextContent(text=f"{exc.code}: {exc.message}")],
            structured_content={"error": exc.to_dict()},
            is_error=True,
        )
    return types.CallToolResult(
        content=[types.TextContent(text=result.text)], structured_content=_json(result.data)
    )


def build(container: Container, access: KeyPolicy | None) -> Server[Any]:
    """The MCP server for one caller: every tool and resource runs with ``access`` (None: everything)."""

    async def call_tool(_ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        return _called(container, access, params)

    async def list_resources(_ctx: Any, _params: Any) -> types.ListResourcesResult:
        documents = [
            d for d in container.chunk_store.list_documents() if d.status == "indexed" and reaches(access, d)
        ]
        return types.ListResourcesResult(
            resources=[
                types.Resource(
                    uri=document_uri(d), name=d.key, title=d.title or d.key, mime_type="text/plain"
                )
                for d in sorted(documents, key=lambda d: (d.source_id, d.key))
            ]
        )

    async def read_resource(_ctx: Any, params: types.ReadResourceRequestParams) -> types.ReadResourceResult:
        uri = str(params.uri)
        source_id, _, key = uri.removeprefix("sabio://").partition("/")
        if not uri.startswith("sabio://") or not source_id or not key:
            raise MCPError(
                types.INVALID_PARAMS, f"not a Sabio document URI: {uri!r} (sabio://<source>/<key>)"
            )
        try:
            text = read_document(container, access, source_id, key)
        except SabioError as exc:
            raise MCPError(types.INVALID_PARAMS, exc.message) from exc
        return types.ReadResourceResult(
            contents=[types.TextResourceContents(uri=uri, text=text, mime_type="text/plain")]
        )

    return Server(
        "sabio",
        version=_version(),
        instructions=INSTRUCTIONS,
        on_list_tools=_list_tools,
        on_call_tool=call_tool,
        on_list_resources=list_resources,
        on_list_resource_templates=_list_templates,
        on_read_resource=read_resource,
    )


def run_stdio(container: Container) -> None:
    """``sabio mcp``: serve the embedded store over stdin/stdout until the client hangs up."""
    from mcp.server.stdio import stdio_server

    server = build(container, None)

    async def main() -> None:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(main)


def serve_http(
    container: Container, access: KeyPolicy | None, method: str, headers: Mapping[str, str], body: bytes
) -> tuple[int, dict[str, str], bytes]:
    """One streamable-HTTP request (stateless, JSON responses) -> (status, headers, body)."""
    from mcp.server.streamable_http_manager import StreamableHTTPSessionManager

    manager = StreamableHTTPSessionManager(app=build(container, access), json_response=True, stateless=True)
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method.upper(),
        "scheme": "https",
        "path": "/mcp",
        "raw_path": b"/mcp",
        "root_path": "",
        "query_string": b"",
        "headers": [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in headers.items()],
        "client": ("127.0.0.1", 0),
        "server": ("sabio", 443),
    }
    status = 500
    out_headers: dict[str, str] = {}
    chunks: list[bytes] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(message: MutableMapping[str, Any]) -> None:
        nonlocal status
        if message["type"] == "http.response.start":
            status = int(message["status"])
            out_headers.update(
                {k.decode("latin-1"): v.decode("latin-1") for k, v in message.get("headers", [])}
            )
        elif message["type"] == "http.response.body":
            chunks.append(message.get("body", b""))

    async def main() -> None:
        async with manager.run():
            await manager.handle_request(scope, receive, send)

    anyio.run(main)
    out_headers.pop("Content-Length", None)  # the gateway sets its own
    return status, out_headers, b"".join(chunks)


def _json(data: Any) -> Any:
    """Structured content as plain JSON (floats, lists, dicts), as the HTTP API returns it."""
    return json.loads(json.dumps(data, default=str))


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("sabio")
    except PackageNotFoundError:
        return "0"
