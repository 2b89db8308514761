"""Sabio's use cases as tools for agents: name, documented input model, and a run function that returns a
compact text an LLM reads well plus the structured result. No MCP here: ``mcp_server`` serves these.

Inputs are the HTTP API's own request models (``RetrieveRequest`` for search, map, answer and context), so
a tool accepts and refuses exactly what the API does, with the same messages.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from chalicelib.access.keys import reaches, require_all_sources, visible
from chalicelib.errors import NotFound, invalid_input
from chalicelib.models.api import AnswerResponse, RetrieveRequest, RetrieveResponse
from chalicelib.models.records import LOCATION_FIELDS, StoredChunk

if TYPE_CHECKING:
    from chalicelib.access.keys import KeyPolicy
    from chalicelib.composition import Container


class GetChunkRequest(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    chunk_id: str = Field(min_length=1, max_length=200, description="a chunk_id from search, map or answer")
    neighbours: int = Field(
        1, ge=0, le=5, description="chunks before and after it in its document (0: the chunk alone)"
    )


class NoArguments(BaseModel):
    model_config = ConfigDict(extra="forbid")


@dataclass(frozen=True)
class Result:
    text: str  # what the model reads
    data: dict[str, Any]  # the same as the HTTP API's JSON


@dataclass(frozen=True)
class Tool:
    name: str
    title: str
    description: str
    model: type[BaseModel]
    run: Callable[[Container, KeyPolicy | None, Any], Result]

    def input_schema(self) -> dict[str, Any]:
        return self.model.model_json_schema()

    def call(
        self, container: Container, access: KeyPolicy | None, arguments: dict[str, Any] | None
    ) -> Result:
        """Validate ``arguments`` like the API validates a body, then run (SabioError on bad input)."""
        try:
            request = self.model.model_validate(arguments or {})
        except ValidationError as exc:
            raise invalid_input(exc) from exc
        return self.run(container, access, request)


# ---------------------------------------------------------------------------------------------- rendering


def _items(response: RetrieveResponse) -> str:
    rows = []
    for n, item in enumerate(response.items, start=1):
        where = f", {item.where()}" if item.where() else ""
        head = f"[{n}] {item.title} › {item.section_title} ({item.lang}, {item.kind}{where})"
        if item.kind == "code":  # code keeps its lines
            body = "\n    ".join(item.content.splitlines()[:12])
        else:
            body = " ".join(item.content.split())[:400]
        rows.append(f"{head}\n    chunk_id {item.chunk_id} · score {item.score:.3f}\n    {body}")
    return "\n".join(rows) or "No results."


def _timings(response: RetrieveResponse | AnswerResponse) -> str:
    total = response.timings_ms.get("total")
    return f"({len(response.items)} results, {total:.0f} ms)" if total is not None else ""


def _answer_text(response: AnswerResponse) -> str:
    by_n: dict[int, list[Any]] = {}
    for c in response.citations:
        by_n.setdefault(c.n, []).append(c)
    sources = []
    for n, cited in by_n.items():
        first, last = cited[0], cited[-1]
        if first.line_start is not None:
            lines = f", L{first.line_start}-{last.line_end}"
        else:
            lines = f", {first.where()}" if first.where() else ""
        quotes = "\n".join(f'    "{c.quote}"' for c in cited)
        sources.append(f"[{n}] {first.title} › {first.section_title} ({first.chunk_id}{lines})\n{quotes}")
    status = "" if response.answered else "\n(not answered: the documents do not hold it)"
    return response.answer + status + ("\n\nSources:\n" + "\n".join(sources) if sources else "")


def _chunk_text(c: StoredChunk) -> str:
    where = f" {c.where()}" if c.where() else ""
    return f"--- {c.chunk_id}: {c.title} › {c.section_title} ({c.key}{where})\n{c.content}"


# ---------------------------------------------------------------------------------------------- use cases


def search(container: Container, access: KeyPolicy | None, request: RetrieveRequest) -> Result:
    response = container.usage.retrieve(request, access)
    return Result(f"{_items(response)}\n{_timings(response)}", response.model_dump())


def map_domain(container: Container, access: KeyPolicy | None, request: RetrieveRequest) -> Result:
    response = container.retrieval.retrieve(request.model_copy(update={"intent": "bootstrap"}), access)
    topics = ", ".join(response.topics)
    critical = "\n".join(f"- {p.text} ({p.chunk_id})" for p in response.critical_points)
    follow = "\n".join(f"- {f.kind}: {f.text}" for f in response.follow_up_refs)
    text = (
        f"{response.summary}\n\nTopics: {topics}\n\nCritical points:\n{critical or '-'}\n\n"
        f"Where to go next:\n{follow or '-'}\n\nSources:\n{_items(response)}"
    )
    return Result(text, response.model_dump())


def answer(container: Container, access: KeyPolicy | None, request: RetrieveRequest) -> Result:
    response = container.usage.answer(request, access)
    return Result(_answer_text(response), response.model_dump())


def context(container: Container, access: KeyPolicy | None, request: RetrieveRequest) -> Result:
    response = container.usage.context(request, access)
    return Result(response.context or "No context.", response.model_dump())


def get_chunk(container: Container, access: KeyPolicy | None, request: GetChunkRequest) -> Result:
    store = container.chunk_store
    found = store.get_chunks([request.chunk_id])
    if not found or not visible(access, found[0]):
        raise NotFound(f"no chunk {request.chunk_id!r}")  # another key's chunk is not confirmed to exist
    chunk = found[0]
    siblings = [c for c in store.document_chunks(chunk.document_id) if visible(access, c)]
    siblings.sort(key=lambda c: c.ord)
    at = next(i for i, c in enumerate(siblings) if c.chunk_id == chunk.chunk_id)
    window = siblings[max(0, at - request.neighbours) : at + request.neighbours + 1]
    data = {
        "chunk": _public(chunk),
        "neighbours": [_public(c) for c in window if c.chunk_id != chunk.chunk_id],
        "document": {"source_id": chunk.source_id, "key": chunk.key, "uri": document_uri(chunk)},
    }
    return Result("\n\n".join(_chunk_text(c) for c in window), data)


def list_sources(container: Container, access: KeyPolicy | None, _: NoArguments) -> Result:
    documents = [
        d for d in container.chunk_store.list_documents() if d.status == "indexed" and reaches(access, d)
    ]
    by_source: dict[str, list[dict[str, Any]]] = {}
    for d in sorted(documents, key=lambda d: (d.source_id, d.key)):
        by_source.setdefault(d.source_id, []).append(
            {"key": d.key, "title": d.title, "lang": d.lang, "chunks": d.chunk_count, "uri": document_uri(d)}
        )
    text = "\n".join(
        f"{source} ({len(docs)} documents)\n" + "\n".join(f"  {d['uri']}  {d['title']}" for d in docs)
        for source, docs in by_source.items()
    )
    return Result(text or "Nothing indexed.", {"sources": by_source})


def stats(container: Container, access: KeyPolicy | None, _: NoArguments) -> Result:
    require_all_sources(access, "stats")
    data = container.index_status().model_dump()
    text = (
        f"{data['chunks']} chunks; documents {data['documents']}; by language {data['by_lang']}; "
        f"by product {data['by_product']}"
    )
    return Result(text, data)


def document_uri(doc: Any) -> str:
    return f"sabio://{doc.source_id}/{doc.key}"


def _public(c: StoredChunk) -> dict[str, Any]:
    return c.model_dump(
        include={
            "chunk_id", "document_id", "source_id", "key", "ord", "title", "section_title", "heading_path",
            "content", "lang", "kind", "product", "content_type", "url", *LOCATION_FIELDS,
        }
    )  # fmt: skip


RETRIEVE_NOTE = "Arguments are those of POST /retrieve (query, lang, mode, filters, scope, top_k, ...)."
TOOLS = (
    Tool(
        "search",
        "Search the company's documents",
        "The passages that answer one specific question, best first, with their chunk ids, documents, "
        f"headings, languages and (for code) line ranges. {RETRIEVE_NOTE}",
        RetrieveRequest,
        search,
    ),
    Tool(
        "map",
        "Map a domain",
        "A bootstrap map of a whole domain (e.g. a product): summary, topics, critical points and follow-up "
        f"questions, with the chunks they come from. Give a query or filters to focus it. {RETRIEVE_NOTE}",
        RetrieveRequest,
        map_domain,
    ),
    Tool(
        "answer",
        "Answer from the documents",
        "A grounded answer with numbered citations that quote the documents verbatim, or 'not in the "
        f"documents' (answered: false) when they do not hold it. {RETRIEVE_NOTE}",
        RetrieveRequest,
        answer,
    ),
    Tool(
        "context",
        "Context block for a prompt",
        f"The retrieved passages as one numbered context block, ready to put in a prompt. {RETRIEVE_NOTE}",
        RetrieveRequest,
        context,
    ),
    Tool(
        "get_chunk",
        "Read a chunk and its neighbours",
        "One chunk by id (from search, map or answer) with the chunks before and after it in its document.",
        GetChunkRequest,
        get_chunk,
    ),
    Tool(
        "list_sources",
        "List the indexed documents",
        "The documents this key may read, by source, each with its sabio:// resource URI.",
        NoArguments,
        list_sources,
    ),
    Tool(
        "stats",
        "Index statistics",
        "Documents by status, chunks by language, product and content type (keys that see every source).",
        NoArguments,
        stats,
    ),
)
BY_NAME = {t.name: t for t in TOOLS}


def read_document(container: Container, access: KeyPolicy | None, source_id: str, key: str) -> str:
    """A document's text as indexed (its chunks in order), for the ``sabio://source/key`` resource."""
    record = container.chunk_store.get_document(source_id, key)
    if record is None or record.status != "indexed" or not reaches(access, record):
        raise NotFound(f"no document sabio://{source_id}/{key}")
    chunks = sorted(
        (c for c in container.chunk_store.document_chunks(record.document_id) if visible(access, c)),
        key=lambda c: c.ord,
    )
    if not chunks:
        raise NotFound(f"no document sabio://{source_id}/{key}")
    return "\n\n".join(c.content for c in chunks)
