"""Each component is given its section of the settings whole, and every setting keeps its flat SABIO_* name."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from chalicelib.composition import Container
from chalicelib.llms.client import ChatLLM
from chalicelib.settings import Settings
from tests.llm_server import LLMTestServer, Reply


def test_a_variable_reaches_the_component_that_reads_it(monkeypatch, tmp_path):
    monkeypatch.setenv("SABIO_RETRIEVAL_CANDIDATES", "70")
    monkeypatch.setenv("SABIO_RERANK_BLEND", "0.5")
    monkeypatch.setenv("SABIO_CHUNK_MAX_TOKENS", "120")
    monkeypatch.setenv("SABIO_LANGUAGES", "es,en,pt")
    container = Container(Settings(store_path=str(tmp_path / "s.db")))
    retriever, ingestor = container.retriever, container.ingestor()
    assert retriever.config.candidates == 70 and retriever.config.rerank.blend == 0.5
    assert retriever.gatherer.config is retriever.config  # every stage reads the one section
    assert ingestor.config.chunking.max_tokens == 120
    assert retriever.config.languages == ingestor.config.languages == ("es", "en", "pt")
    assert container.bootstrapper.config.candidates == 70


def test_an_argument_beats_the_variable_and_leaves_the_rest_of_its_section(monkeypatch):
    monkeypatch.setenv("SABIO_RETRIEVAL_CANDIDATES", "70")
    monkeypatch.setenv("SABIO_FUSION", "rrf")
    settings = Settings(retrieval_candidates=90)
    assert (settings.retrieval.candidates, settings.retrieval.fusion) == (90, "rrf")
    changed = settings.replaced(fusion="score")
    assert (changed.retrieval.candidates, changed.retrieval.fusion) == (90, "score")


def test_a_bad_value_names_its_variable_and_a_misspelt_change_is_an_error(monkeypatch):
    monkeypatch.setenv("SABIO_RERANK_BLEND", "2")
    with pytest.raises(ValidationError, match="rerank_blend"):
        Settings()
    monkeypatch.delenv("SABIO_RERANK_BLEND")
    with pytest.raises(ValidationError, match="hydee"):
        Settings().retrieval.changed(hydee=True)


def test_every_setting_keeps_one_flat_name():
    names = list(Settings().flat())
    assert len(names) == len(set(names))
    assert {"retrieval_candidates", "reranker", "llm_base_url", "chunk_max_tokens", "store_path"} <= set(
        names
    )
    assert not {"retrieval", "ingest", "llm"} & set(names)  # the sections themselves are not settings


def test_json_mode_off_is_honoured_by_every_request_that_wants_json(monkeypatch, tmp_path):
    """SABIO_LLM_JSON_MODE=0 (a server that refuses response_format): the client, which every JSON caller
    goes through (enrichment, rewriting, reranking, answers), sends none."""
    with LLMTestServer() as server:
        for json_mode in ("1", "0"):
            monkeypatch.setenv("SABIO_LLM_JSON_MODE", json_mode)
            llm = Container(Settings(store_path=str(tmp_path / "s.db"), llm_base_url=server.base_url)).llm
            assert isinstance(llm, ChatLLM)
            server.enqueue(Reply('{"ok": true}'))
            llm.complete([{"role": "user", "content": "hola"}], json_mode=True)
        on, off = server.requests[-2:]
    assert on["response_format"] == {"type": "json_object"} and "response_format" not in off
