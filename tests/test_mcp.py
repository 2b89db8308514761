"""Sabio as an MCP server, driven by the official SDK's own client: in-process, over the Chalice app's
POST /mcp (streamable HTTP, stateless JSON), over stdio (`sabio mcp`) and against a served `sabio serve`."""

from __future__ import annotations

import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from chalice.test import Client as ChaliceClient
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

import app as sabio_app
from chalicelib.access.keys import key_digest
from chalicelib.agents.tools import BY_NAME
from chalicelib.composition import Container
from chalicelib.settings import Settings
from tests.conftest import EXAMPLES

pytestmark = pytest.mark.slow
TOOLS = {"search", "map", "answer", "context", "get_chunk", "list_sources", "stats"}
BAD_ARGUMENTS = {  # one bad call per tool, and the API's own message for it
    "search": ({"query": 7}, "invalid_input: query: Input should be a valid string"),
    "map": ({"top_k": 0}, "invalid_input: top_k: Input should be greater than or equal to 1"),
    "answer": ({"lang": "es"}, "invalid_input: query is required to answer"),
    "context": ({"query": "precio", "mode": "rapido"}, "invalid_input: mode: Input should be"),
    "get_chunk": ({"chunk_id": ""}, "invalid_input: chunk_id: String should have at least 1 character"),
    "list_sources": ({"source": "x"}, "invalid_input: source: Extra inputs are not permitted"),
    "stats": ({"verbose": True}, "invalid_input: verbose: Extra inputs are not permitted"),
}


def run(scenario: Callable[[Client], Any], server: Any) -> Any:
    async def main() -> Any:
        async with Client(server) as client:
            return await scenario(client)

    return anyio.run(main)


def through_chalice(chalice: ChaliceClient, key: str | None = None) -> Any:
    """The SDK's streamable-HTTP transport, its HTTP requests served by Chalice's test client."""

    async def handle(request: httpx2.Request) -> httpx2.Response:
        headers = {k: v for k, v in request.headers.items() if k.lower() != "host"}
        if key:
            headers["x-api-key"] = key
        body = await request.aread() or None
        # a Lambda serves one request per thread with no event loop running: so does this
        r = await anyio.to_thread.run_sync(
            lambda: chalice.http.request(request.method, request.url.path, headers=headers, body=body)
        )
        return httpx2.Response(r.status_code, headers=r.headers, content=r.body)

    http = httpx2.AsyncClient(transport=httpx2.MockTransport(handle))
    return streamable_http_client("http://sabio.test/mcp", http_client=http)


@pytest.fixture(scope="module")
def chalice(client):  # type: ignore[no-untyped-def]
    """Chalice's test client on the example corpus (conftest's ``client``; here ``client`` is MCP's)."""
    return client


def test_every_tool_works_over_the_chalice_route(chalice):
    async def scenario(client: Client) -> dict[str, Any]:
        listed = await client.list_tools()
        out: dict[str, Any] = {"tools": {t.name: t for t in listed.tools}}
        out["search"] = await client.call_tool("search", {"query": "¿Dónde se guardan mis datos?"})
        out["answer"] = await client.call_tool("answer", {"query": "How much does Marea cost?"})
        out["map"] = await client.call_tool("map", {"filters": {"product": ["faro"]}, "top_k": 6})
        out["context"] = await client.call_tool(
            "context", {"query": "restaurar una base de datos", "top_k": 2}
        )
        out["first"] = first = out["search"].structured_content["items"][0]["chunk_id"]
        out["chunk"] = await client.call_tool("get_chunk", {"chunk_id": first, "neighbours": 1})
        out["sources"] = await client.call_tool("list_sources", {})
        out["stats"] = await client.call_tool("stats", {})
        resources = await client.list_resources()
        out["document"] = await client.read_resource(resources.resources[0].uri)
        out["resources"] = resources
        return out

    out = run(scenario, through_chalice(chalice))
    assert set(out["tools"]) == TOOLS
    # typed inputs are the API's own request models
    assert out["tools"]["search"].input_schema["properties"]["lang"]["enum"] == [
        "auto",
        "es",
        "en",
        "pt",
        "all",
    ]
    assert "chunk_id" in out["tools"]["get_chunk"].input_schema["required"]
    for name in ("search", "answer", "map", "context", "chunk", "sources", "stats"):  # not "first"
        assert not out[name].is_error, (name, out[name].content)
    search = out["search"].structured_content
    assert (
        search["items"][0]["title"] == "Preguntas frecuentes" and "Frankfurt" in search["items"][0]["content"]
    )
    assert "[1] Preguntas frecuentes" in out["search"].content[0].text  # the compact text names the result
    answer = out["answer"].structured_content
    assert answer["answered"] and "$15 / month" in answer["answer"]
    assert 0 <= answer["confidence"] <= 1 and "(confidence 0." in out["answer"].content[0].text
    items = {i["chunk_id"]: i["content"] for i in answer["items"]}
    assert all(c["quote"] in items[c["chunk_id"]] for c in answer["citations"])  # verbatim citations
    assert '"Starter | up to 2,000 | $15 / month | 20,000"' in out["answer"].content[0].text
    assert {i["product"] for i in out["map"].structured_content["items"]} == {"faro"}
    assert out["context"].structured_content["context"].startswith("[Source 1:")
    chunk = out["chunk"].structured_content
    assert chunk["chunk"]["chunk_id"] == out["first"] and chunk["document"]["uri"].startswith(
        "sabio://examples/"
    )
    assert "examples" in out["sources"].structured_content["sources"]
    assert out["stats"].structured_content["chunks"] > 20
    uri = str(out["resources"].resources[0].uri)
    assert uri.startswith("sabio://examples/") and out["document"].contents[0].text.strip()


def test_an_agents_follow_up_is_answered_in_its_conversation(chalice):
    """The tools take and return conversation_id: a follow-up passed with it is read in its thread."""

    async def scenario(client: Client) -> dict[str, Any]:
        out = {"first": await client.call_tool("answer", {"query": "¿Cuánto cuesta Faro?"})}
        conversation = out["first"].structured_content["conversation_id"]
        out["then"] = await client.call_tool(
            "answer", {"query": "¿y Marea?", "conversation_id": conversation}
        )
        out["search"] = await client.call_tool(
            "search", {"query": "¿y Ancla?", "conversation_id": conversation}
        )
        out["alone"] = await client.call_tool("answer", {"query": "¿y Marea?"})
        out["map"] = await client.call_tool("map", {"query": "Faro", "conversation_id": conversation})
        out["gone"] = await client.call_tool("answer", {"query": "¿y Ancla?", "conversation_id": "f" * 32})
        return out

    out = run(scenario, through_chalice(chalice))
    first, then = out["first"].structured_content, out["then"].structured_content
    conversation = first["conversation_id"]
    assert conversation and f"conversation_id: {conversation}" in out["first"].content[0].text
    assert then["conversation_id"] == conversation and then["standalone_query"] == "¿Cuánto cuesta Marea?"
    assert "(searched as: ¿Cuánto cuesta Marea?)" in out["then"].content[0].text
    assert then["answered"] and "Marea" in " ".join(c["title"] for c in then["citations"])
    assert out["search"].structured_content["thread"]["turn"] == 3
    assert out["search"].structured_content["items"][0]["product"] == "ancla"
    assert out["alone"].structured_content["standalone_query"] == "¿y Marea?"  # a new conversation
    assert out["map"].is_error and "not a turn of a conversation" in out["map"].content[0].text
    assert out["gone"].is_error and out["gone"].content[0].text.startswith("not_found: no conversation")


def test_a_bad_argument_is_a_tool_error_in_the_apis_words_and_the_server_keeps_serving(chalice):
    async def scenario(client: Client) -> dict[str, Any]:
        out = {name: await client.call_tool(name, args) for name, (args, _) in BAD_ARGUMENTS.items()}
        out["after"] = await client.call_tool("search", {"query": "precio de Faro"})
        return out

    out = run(scenario, through_chalice(chalice))
    assert set(BAD_ARGUMENTS) == TOOLS
    for name, (_, message) in BAD_ARGUMENTS.items():
        assert out[name].is_error, name
        assert out[name].content[0].text.startswith(message), (name, out[name].content[0].text)
    assert not out["after"].is_error and out["after"].structured_content["items"]
    # the HTTP API says the same about the same body
    api = chalice.http.post("/retrieve", headers={"Content-Type": "application/json"}, body='{"query": 7}')
    assert api.json_body["message"] == BAD_ARGUMENTS["search"][1].removeprefix("invalid_input: ")


def test_an_unknown_tool_and_a_malformed_request_get_protocol_errors(chalice):
    async def scenario(client: Client) -> Any:
        try:
            await client.call_tool("delete_everything", {})
        except MCPError as exc:
            return exc
        return None

    error = run(scenario, through_chalice(chalice))
    assert isinstance(error, MCPError) and "unknown tool 'delete_everything'" in str(error)
    not_json = chalice.http.post(
        "/mcp",
        headers={"Content-Type": "application/json", "Accept": "application/json, text/event-stream"},
        body="{not json",
    )
    assert 400 <= not_json.status_code < 500 and not_json.body
    stream = chalice.http.get("/mcp", headers={"Accept": "text/event-stream"})  # no stream left hanging
    assert stream.status_code == 405 and stream.headers["Allow"] == "POST"
    assert stream.json_body["code"] == "method_not_allowed"
    assert "/mcp" in chalice.http.get("/openapi.json").json_body["paths"]


KEYS = {
    key_digest("key-a"): {"name": "team-a", "source_ids": ["examples"]},
    "admin-key": {"name": "admin", "all_documents": True},
}


@pytest.fixture(scope="module")
def scoped(tmp_path_factory):  # type: ignore[no-untyped-def]
    root = tmp_path_factory.mktemp("mcp-scoped")
    shutil.copytree(EXAMPLES / "faq", root / "examples" / "faq")
    (root / "team-b").mkdir()
    (root / "team-b" / "salarios.md").write_text(
        "# Salarios del equipo B\n\nLos salarios del equipo B suben un cuatro por ciento en 2027.\n",
        encoding="utf-8",
    )
    container = Container(
        Settings(store_path=str(root / "s.db"), auth="keys", api_keys=KEYS, default_readers="public")
    )
    container.ingestor().index_folder(root / "examples", "examples")
    container.ingestor().index_folder(root / "team-b", "team-b")
    secret = next(
        c
        for c in container.chunk_store.get_chunks(list(container.chunk_store.all_chunk_ids()))
        if c.source_id == "team-b"
    )
    sabio_app._container = container
    with ChaliceClient(sabio_app.app) as c:
        yield c, secret.chunk_id
    sabio_app._container = None


def test_a_scoped_keys_agent_sees_only_its_sources(scoped):
    chalice, secret_chunk = scoped

    async def scenario(client: Client) -> dict[str, Any]:
        return {
            "search": await client.call_tool(
                "search", {"query": "salarios del equipo B", "lang": "all", "top_k": 10}
            ),
            "answer": await client.call_tool("answer", {"query": "¿Cuánto suben los salarios del equipo B?"}),
            "chunk": await client.call_tool("get_chunk", {"chunk_id": secret_chunk}),
            "sources": await client.call_tool("list_sources", {}),
            "stats": await client.call_tool("stats", {}),
            "resources": [str(r.uri) for r in (await client.list_resources()).resources],
        }

    mine = run(scenario, through_chalice(chalice, key="key-a"))
    assert {i["source_id"] for i in mine["search"].structured_content["items"]} <= {"examples"}
    assert "cuatro por ciento" not in str(mine["answer"].structured_content)
    assert mine["chunk"].is_error and mine["chunk"].content[0].text == f"not_found: no chunk {secret_chunk!r}"
    assert set(mine["sources"].structured_content["sources"]) == {"examples"}
    assert mine["stats"].is_error and mine["stats"].content[0].text.startswith("forbidden:")
    assert mine["resources"] and all(u.startswith("sabio://examples/") for u in mine["resources"])

    async def read_secret(client: Client) -> Any:
        try:
            return await client.read_resource("sabio://team-b/salarios.md")
        except MCPError as exc:
            return exc

    refused = run(read_secret, through_chalice(chalice, key="key-a"))
    assert isinstance(refused, MCPError) and "no document sabio://team-b/salarios.md" in str(refused)
    admin = run(read_secret, through_chalice(chalice, key="admin-key"))
    assert "cuatro por ciento" in admin.contents[0].text
    # no key, no MCP: the same 401 as every route
    denied = chalice.http.post("/mcp", headers={"Content-Type": "application/json"}, body="{}")
    assert denied.status_code == 401 and denied.json_body["code"] == "unauthorized"


@pytest.fixture(scope="module")
def examples_store(examples_container, tmp_path_factory) -> Path:  # type: ignore[no-untyped-def]
    import sqlite3

    copy = tmp_path_factory.mktemp("mcp-stdio") / "sabio.db"
    with sqlite3.connect(examples_container.settings.store_path) as src, sqlite3.connect(copy) as dst:
        src.backup(dst)  # the store is in WAL mode: a file copy could miss what is still in the log
    return copy


def test_sabio_mcp_over_stdio(examples_store):
    sabio = str(Path(sys.executable).with_name("sabio"))
    server = StdioServerParameters(command=sabio, args=["--store", str(examples_store), "mcp"])

    async def scenario(client: Client) -> Any:
        tools = {t.name for t in (await client.list_tools()).tools}
        return tools, await client.call_tool("answer", {"query": "¿Cuánto cuesta Faro?"})

    tools, answer = run(scenario, server)
    assert tools == TOOLS
    assert not answer.is_error and "19 € / agente / mes" in answer.content[0].text


def test_sabio_mcp_refuses_a_store_that_does_not_exist(tmp_path, capsys):
    from sabio.cli import main

    assert main(["--store", str(tmp_path / "none.db"), "mcp"]) == 2
    assert "no store at" in capsys.readouterr().err


def test_the_served_api_speaks_mcp(examples_store):
    from bench.load import Server

    server = Server(examples_store)
    try:

        async def scenario(client: Client) -> Any:
            tools = {t.name for t in (await client.list_tools()).tools}
            return tools, await client.call_tool(
                "search", {"query": "How do I restore a database?", "top_k": 3}
            )

        tools, result = run(scenario, f"{server.url}/mcp")
    finally:
        assert server.stop() == 0
    assert tools == TOOLS
    assert not result.is_error and result.structured_content["items"][0]["product"] == "ancla"


def test_tool_descriptions_name_what_they_return():
    for tool in BY_NAME.values():
        assert len(tool.description) > 60 and tool.title, tool.name
