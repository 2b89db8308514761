"""Streamed answers: the events (sources, delta, answer, end; error) an LLM's words make as a local
OpenAI-compatible server streams them, the answer equal to the non-streamed one, a reader that leaves closing
the model's stream, bad input refused before any event; and the API route's whole-stream body."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from chalicelib.answer.answer_text import AnswerText
from chalicelib.composition import Container
from chalicelib.errors import UpstreamError
from chalicelib.models.api import RetrieveRequest
from chalicelib.settings import Settings
from chalicelib.streaming.answering import answer_events
from chalicelib.streaming.events import Event
from tests.llm_server import LLMTestServer, Reply

DOCS = {
    "oficina.txt": "La oficina de Valencia abre de lunes a viernes de 9:00 a 18:00. Los sábados está cerrada.\n",
    "precios.txt": "Faro costs 49 euros per agent per month, billed monthly. The annual plan costs 490 euros.\n",
}
QUESTION = "¿A qué hora abre la oficina de Valencia?"
GOOD = {
    "answer": "La oficina de Valencia abre de lunes a viernes de 9:00 a 18:00 [1].",
    "answered": True,
    "citations": [{"source": 1, "quote": "La oficina de Valencia abre de lunes a viernes de 9:00 a 18:00."}],
}


def sse(raw: bytes) -> list[Event]:
    """A text/event-stream body as its events."""
    events = []
    for block in raw.decode().split("\n\n"):
        fields = dict(line.split(": ", 1) for line in block.splitlines() if ": " in line)
        if "event" in fields:
            events.append(Event(fields["event"], json.loads(fields["data"])))
    return events


def folder_of(tmp: Path) -> Path:
    folder = tmp / "docs"
    folder.mkdir()
    for name, text in DOCS.items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("streaming")
    store = tmp / "sabio.db"
    report = Container(Settings(store_path=str(store))).ingestor().index_folder(folder_of(tmp), "docs")
    assert report.ok, report.failed
    return store


@pytest.fixture
def llm() -> Any:
    with LLMTestServer(token_delay_s=0.002) as server:
        yield server


def with_llm(store: Path, server: LLMTestServer) -> Container:
    return Container(Settings(store_path=str(store), llm_base_url=server.base_url, llm_model="primary"))


def test_the_answers_words_are_read_from_its_json_as_they_come_whatever_the_cuts():
    reply = '```json\n{"citations": [{"quote": "a \\"answer\\": b"}], "answer": "Sí: 9:00 \\"en punto\\"\\n\\u00e9\\ud83d\\ude00 [1]", "answered": true}'
    whole = json.loads(reply.removeprefix("```json\n"))["answer"]
    for size in (1, 2, 5, 13, len(reply)):
        reading = AnswerText()
        assert "".join(reading.feed(reply[i : i + size]) for i in range(0, len(reply), size)) == whole


def test_an_llm_answer_streams_sources_then_its_words_then_the_same_answer_as_without_streaming(indexed, llm):
    container = with_llm(indexed, llm)
    request = RetrieveRequest(query=QUESTION)
    llm.enqueue(Reply(json.dumps(GOOD, ensure_ascii=False)), Reply(json.dumps(GOOD, ensure_ascii=False)))
    events = list(answer_events(container.usage, request, None))
    plain = container.usage.answer(request, None)
    names = [e.name for e in events]
    assert names[0] == "sources" and names[-2:] == ["answer", "end"], names
    assert set(names[1:-2]) == {"delta"} and len(names) > 6, names  # the words arrive piece by piece
    assert events[0].data["items"][0]["title"].startswith("oficina")
    words = "".join(e.data["text"] for e in events if e.name == "delta")
    streamed = events[-2].data
    assert (
        words == GOOD["answer"]
        and streamed["answer"]
        == plain.answer
        == "La oficina de Valencia abre de lunes a viernes de 9:00 a 18:00 [1]."
    )
    assert (
        streamed["citations"] == [c.model_dump() for c in plain.citations]
        and streamed["answered_by"] == "llm"
    )
    assert (
        streamed["withdrawn"] is None
        and streamed["query_id"]
        and events[-1].data["query_id"] == streamed["query_id"]
    )
    assert llm.requests[0]["stream"] is True and "stream" not in llm.requests[1]


def test_a_reader_that_leaves_stops_the_models_stream(indexed):
    with LLMTestServer(token_delay_s=0.05) as server:
        server.enqueue(Reply(json.dumps({**GOOD, "answer": GOOD["answer"] * 10}, ensure_ascii=False)))
        events = answer_events(with_llm(indexed, server).usage, RetrieveRequest(query=QUESTION), None)
        assert next(events).name == "sources"
        assert next(events).name == "delta"
        events.close()  # type: ignore[attr-defined]
        assert server.streams[0].done.wait(5)
        assert server.streams[0].cancelled and server.streams[0].sent < server.streams[0].total / 2


def test_words_that_fail_their_checks_are_withdrawn_by_the_answer_event(indexed, llm):
    bogus = {
        "answer": "La oficina abre a las 7:00 [1].",
        "citations": [{"source": 1, "quote": "abre a las 7:00"}],
    }
    llm.enqueue(Reply(json.dumps(bogus, ensure_ascii=False)))
    events = list(answer_events(with_llm(indexed, llm).usage, RetrieveRequest(query=QUESTION), None))
    answer = next(e.data for e in events if e.name == "answer")
    assert "".join(e.data["text"] for e in events if e.name == "delta") == bogus["answer"]
    assert not answer["answered"] and answer["withdrawn"], answer
    assert "does not occur in source 1" in answer["withdrawn"]


def test_a_reply_that_is_no_answer_falls_back_to_the_extractive_answer_in_one_piece(indexed, llm):
    llm.enqueue(Reply("I cannot produce JSON today."), Reply("Nor can the backup."))
    events = list(answer_events(with_llm(indexed, llm).usage, RetrieveRequest(query=QUESTION), None))
    deltas = [e.data["text"] for e in events if e.name == "delta"]
    answer = next(e.data for e in events if e.name == "answer")
    assert deltas == [answer["answer"]] and answer["extractive"] and answer["withdrawn"] is None
    assert "9:00" in answer["answer"] and len(answer["attempts"]) == 1, answer["attempts"]


def test_a_question_without_text_is_refused_before_any_event(indexed, llm):
    from chalicelib.errors import InvalidInput

    events = answer_events(with_llm(indexed, llm).usage, RetrieveRequest(query=None), None)
    with pytest.raises(InvalidInput):
        next(events)
    assert llm.count() == 0


@pytest.fixture
def route(indexed):  # type: ignore[no-untyped-def]
    from chalice.test import Client

    import app as sabio_app

    sabio_app._container = Container(Settings(store_path=str(indexed)))
    with Client(sabio_app.app) as c:
        yield c
    sabio_app._container = None


def post(client: Any, path: str, body: object, **headers: str) -> Any:
    raw = body if isinstance(body, bytes) else json.dumps(body).encode()
    return client.http.post(path, body=raw, headers={"Content-Type": "application/json", **headers})


def test_the_api_route_sends_the_whole_stream_as_one_event_stream_body(route):
    for reply in (
        post(route, "/answer", {"query": QUESTION, "stream": True}),
        post(route, "/answer", {"query": QUESTION}, Accept="text/event-stream"),
    ):
        assert reply.status_code == 200 and reply.headers["Content-Type"] == "text/event-stream"
        events = sse(reply.body)
        assert [e.name for e in events] == ["sources", "delta", "answer", "end"]
        assert events[1].data["text"] == events[2].data["answer"] and "9:00" in events[2].data["answer"]
    plain = json.loads(post(route, "/answer", {"query": QUESTION}).body)
    assert plain["answer"] == events[2].data["answer"] and plain["citations"] == events[2].data["citations"]


def test_bad_input_gets_the_same_json_error_streamed_or_not(route):
    for body in ({"quer": "x"}, b"not json", {"query": ""}, {"query": "hola", "top_k": 0}):
        plain = post(route, "/answer", body)
        streamed = post(route, "/answer", body, Accept="text/event-stream")
        assert plain.status_code == streamed.status_code == 400
        assert streamed.headers["Content-Type"] == "application/json" and streamed.body == plain.body
    refused = post(route, "/retrieve", {"query": QUESTION, "stream": True})
    assert refused.status_code == 400 and json.loads(refused.body)["field"] == "stream"


class Failing:
    """An answerer that fails after retrieval: the stream has begun, so its end says so."""

    def __init__(self, error: Exception) -> None:
        self.error = error

    def answer_retrieved(self, request: RetrieveRequest, retrieved: Any) -> Any:
        raise self.error


@pytest.mark.parametrize(
    ("error", "code"),
    [(RuntimeError("a bug"), "internal_error"), (UpstreamError("the store timed out"), "upstream_error")],
)
def test_a_failure_after_the_sources_ends_the_stream_with_an_error_event(indexed, error, code):
    container = Container(Settings(store_path=str(indexed)))
    container.__dict__["answerer"] = Failing(error)
    events = list(answer_events(container.usage, RetrieveRequest(query=QUESTION), None))
    assert [e.name for e in events] == ["sources", "error"]
    assert events[1].data["code"] == code and "a bug" not in events[1].data["message"]
