"""LLM enrichment through a real local OpenAI-compatible server: faults fall back per chunk, cache saves calls."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from chalicelib.enrichment.llm import LLMEnricher
from chalicelib.enrichment.vocabulary import Vocabulary
from chalicelib.ingest.indexer import Ingestor
from chalicelib.llms.client import ChatLLM, LLMConfig
from chalicelib.models.records import SearchFilters
from tests.llm_server import LLMTestServer, Reply, Status

DOC = (
    "---\ntitle: Planes de Faro\nproduct: faro\ncategory: Precios\n---\n# Planes de Faro\n\n"
    "Faro se factura por agente y por mes, con tickets ilimitados en todos los planes.\n"
)


@pytest.fixture
def server():  # type: ignore[no-untyped-def]
    with LLMTestServer() as s:
        yield s


def make_ingestor(store, embedder, server: LLMTestServer, model: str = "test-model", **kw) -> Ingestor:  # type: ignore[no-untyped-def]
    llm = ChatLLM(
        LLMConfig(
            base_url=server.base_url,
            model=model,
            timeout_s=kw.pop("timeout_s", 5.0),
            max_retries=kw.pop("max_retries", 1),
            backoff_base_s=0.01,
        ),
        sleep=lambda s: None,
        rng=random.Random(0),
    )
    vocab = Vocabulary(products={"faro": [], "marea": []})
    return Ingestor(store, store, embedder, vocab, llm_enricher=LLMEnricher(llm, vocab, cache=store, **kw))


def one_doc(tmp_path: Path, text: str = DOC) -> Path:
    folder = tmp_path / "docs"
    folder.mkdir(exist_ok=True)
    (folder / "planes.md").write_text(text, encoding="utf-8")
    return folder


def only_chunk(store):  # type: ignore[no-untyped-def]
    doc = store.list_documents("s")[0]
    return store.document_chunks(doc.document_id)[0]


def test_a_valid_reply_enriches_the_chunk_and_is_embedded(store, fake_embedder, server, tmp_path):
    report = make_ingestor(store, fake_embedder, server).index_folder(one_doc(tmp_path), "s")
    chunk = only_chunk(store)
    assert chunk.enrichment.source == "llm" and chunk.enrichment.model == "test-model"
    assert chunk.enrichment.summary.startswith("LLM summary") and chunk.product == "faro"
    # the default embeds the chunk as written (measured best, docs/evaluation.md): the LLM's words reach
    # keyword search and the response, and the dense vector with SABIO_EMBED_TEXT=enriched
    assert chunk.embedding_text == chunk.content
    assert store.keyword_search("LLM summary", SearchFilters(), 5)[0].chunk_id == chunk.chunk_id
    assert report.enriched == {"llm": 1} and report.llm_requests == 1 and report.tokens_in > 0
    request = server.requests[0]
    assert request["temperature"] == 0.2 and request["response_format"] == {"type": "json_object"}
    assert "Title: Planes de Faro" in request["messages"][1]["content"]
    assert "faro|marea|general" in request["messages"][0]["content"]


def test_json_in_code_fences_is_accepted(store, fake_embedder, server, tmp_path):
    server.enqueue(
        Reply(
            '```json\n{"summary": "Precios.", "keywords": ["precio"], "questions": ["¿Precio?"], '
            '"product": "faro", "content_type": "pricing",}\n```'
        )
    )
    make_ingestor(store, fake_embedder, server).index_folder(one_doc(tmp_path), "s")
    e = only_chunk(store).enrichment
    assert (e.source, e.content_type, e.summary) == ("llm", "pricing", "Precios.")


def test_malformed_json_falls_back_to_heuristic_after_a_retry(store, fake_embedder, server, tmp_path):
    server.enqueue(Reply("this is not json"), Reply('{"summary": '))
    report = make_ingestor(store, fake_embedder, server).index_folder(one_doc(tmp_path), "s")
    e = only_chunk(store).enrichment
    assert e.source == "heuristic" and e.fallback_reason.startswith("invalid_reply")
    assert report.ok and report.enriched == {"fallback": 1} and server.count("enrich") == 2


def test_out_of_vocabulary_labels_are_constrained(store, fake_embedder, server, tmp_path):
    server.enqueue(
        Reply(
            '{"summary": "S.", "keywords": ["Planes", "planes", "Tarifas"], "questions": ["¿Q?"], '
            '"product": "Faro Studio Pro", "content_type": "marketing"}'
        )
    )
    make_ingestor(store, fake_embedder, server).index_folder(one_doc(tmp_path), "s")
    e = only_chunk(store).enrichment
    assert e.source == "llm" and e.product == "general" and e.content_type == "pricing"  # heuristic's type
    assert e.keywords == ["planes", "tarifas"]
    assert any("Faro Studio Pro" in n for n in e.notes) and any("marketing" in n for n in e.notes)


@pytest.mark.parametrize(
    ("steps", "reason"),
    [
        ([Reply("{}", delay_s=2.0)] * 2, "timeout"),
        ([Status(500)] * 2, "server_error"),
        ([Status(429, {"Retry-After": "0"})] * 2, "rate_limited"),
        ([Status(401, message="bad key")], "client_error"),
    ],
)
def test_upstream_failures_fall_back_per_chunk_and_say_why(
    store, fake_embedder, server, tmp_path, steps, reason
):
    server.enqueue(*steps)
    report = make_ingestor(store, fake_embedder, server, timeout_s=0.4).index_folder(one_doc(tmp_path), "s")
    chunk = only_chunk(store)
    assert report.ok and chunk.enrichment.source == "heuristic"
    assert chunk.enrichment.fallback_reason.startswith(reason)
    assert chunk.enrichment.questions and chunk.enrichment.summary  # the chunk is still fully enriched


def test_reindexing_unchanged_content_makes_no_llm_request(store, fake_embedder, server, corpus):
    ingestor = make_ingestor(store, fake_embedder, server, concurrency=5)
    first = ingestor.index_folder(corpus, "s")
    calls = server.count()
    assert calls == first.chunks_written and first.enriched == {"llm": calls}

    assert ingestor.index_folder(corpus, "s").llm_requests == 0
    assert server.count() == calls

    # the same content under another key (a copy) hits the enrichment cache, not the LLM
    (corpus / "copia.md").write_text(
        (corpus / "faq" / "faq.md").read_text(encoding="utf-8"), encoding="utf-8"
    )
    again = ingestor.index_folder(corpus, "s")
    assert again.added == 1 and server.count() == calls and again.enriched == {"llm": again.chunks_written}


def test_the_cache_is_keyed_by_content_prompt_version_and_model(
    store, fake_embedder, server, corpus, monkeypatch
):
    first = make_ingestor(store, fake_embedder, server).index_folder(corpus, "s1")
    calls = server.count()
    # the same content in another source: all cache hits
    assert make_ingestor(store, fake_embedder, server).index_folder(corpus, "s2").llm_requests == 0
    # another model re-enriches everything
    other = make_ingestor(store, fake_embedder, server, model="other-model").index_folder(corpus, "s3")
    assert other.llm_requests == first.chunks_written and server.count() == 2 * calls
    # so does a new prompt version
    monkeypatch.setattr("chalicelib.enrichment.llm.PROMPT_VERSION", "enrich-next")
    make_ingestor(store, fake_embedder, server).index_folder(corpus, "s4")
    assert server.count() == 3 * calls


def test_a_code_chunk_is_situated_by_the_llm_and_its_vector_sees_it(store, fake_embedder, server, tmp_path):
    """The contextual-retrieval recipe: the model is told where the chunk sits (path, enclosing doc comments,
    the file's purpose) and writes one situating sentence, which the code vector's text and the keyword
    index carry; a reply without one keeps the file's own words."""
    folder = tmp_path / "repo" / "src"
    folder.mkdir(parents=True)
    table = "".join(f"  delays[{i}] = {i * 2};\n" for i in range(120))  # a chunk of its own
    code = (
        f"// Retries outgoing webhooks with a backoff.\n\nvoid FillTable() {{\n{table}}}\n\n"
        "// How long to wait between attempts.\nclass Backoff {\n"
        "  int NextDelay(int attempt) {\n    return attempt * 2;\n  }\n};\n"
    )
    (folder / "retry.cc").write_text(code, encoding="utf-8")
    make_ingestor(store, fake_embedder, server).index_folder(tmp_path / "repo", "s")
    user = next(r["messages"][1]["content"] for r in server.requests if "class Backoff {" in str(r))
    assert "Path: src/retry.cc" in user and "Where it sits: Retries outgoing webhooks with a backoff." in user
    chunk = next(
        c for c in store.document_chunks(store.list_documents("s")[0].document_id) if "Backoff" in c.content
    )
    assert chunk.enrichment.context == "LLM context: this is part of src/retry.cc."
    assert "LLM context: this is part of src/retry.cc." in chunk.embedding_text.split("\n\n", 1)[0]
    assert chunk.chunk_id in [h.chunk_id for h in store.keyword_search("LLM context", SearchFilters(), 10)]

    server.enqueue(*[Reply('{"summary": "Backoff.", "keywords": ["backoff"], "questions": ["Delay?"]}')] * 2)
    (folder / "retry.cc").write_text(code.replace("* 2", "* 3"), encoding="utf-8")
    make_ingestor(store, fake_embedder, server).index_folder(tmp_path / "repo", "s")
    backoff = [
        c for c in store.document_chunks(store.list_documents("s")[0].document_id) if "Backoff" in c.content
    ]
    assert backoff[0].enrichment.context == "Retries outgoing webhooks with a backoff."
