"""Learning from use: every question gets a query_id, feedback is recorded for the key that asked, it moves
ranking only within bounds and only when more than one key agrees, and the gap report tells the docs owners
what is missing and what to translate."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from chalice.test import Client

import app as sabio_app
from chalicelib.access.keys import key_digest
from chalicelib.composition import Container
from chalicelib.models.records import QueryRecord
from chalicelib.quotes import encode_vectors
from chalicelib.retrieve.feedback_prior import PriorConfig, Vote, prior_factors
from chalicelib.settings import Settings
from chalicelib.usage.insights import Weak, missing_topics

pytestmark = pytest.mark.slow
KEYS = {
    key_digest("k-support"): {"name": "support", "source_ids": ["examples"]},
    key_digest("k-sales"): {"name": "sales", "source_ids": ["examples"]},
    key_digest("k-mallory"): {"name": "mallory", "source_ids": ["examples"]},
    **{key_digest(f"k-user{n}"): {"name": f"user{n}", "source_ids": ["examples"]} for n in range(5)},
    key_digest("k-admin"): {"name": "admin", "all_documents": True},
}


def copy_store(examples_container: Container, target: Path) -> str:
    """The indexed example corpus in a file of its own (SQLite's backup: the WAL comes along), with an empty
    query log (other tests' questions to the shared store stay there)."""
    source = sqlite3.connect(examples_container.settings.store_path)
    copy = sqlite3.connect(target)
    source.backup(copy)
    source.close()
    for table in ("query_log", "query_feedback"):
        copy.execute(f"DROP TABLE IF EXISTS {table}")
    copy.commit()
    copy.close()
    return str(target)


@pytest.fixture
def served(examples_container, tmp_path):  # type: ignore[no-untyped-def]
    def start(**settings: object) -> tuple[Client, Container]:
        path = copy_store(examples_container, tmp_path / f"s{len(list(tmp_path.iterdir()))}.db")
        container = Container(Settings(store_path=path, auth="keys", api_keys=KEYS, **settings))
        sabio_app._container = container
        return Client(sabio_app.app), container

    yield start
    sabio_app._container = None


def call(client: Client, path: str, body: dict | None, key: str | None = "k-support"):  # type: ignore[no-untyped-def]
    headers = {"Content-Type": "application/json", **({"x-api-key": key} if key else {})}
    if body is None:
        return client.http.get(path, headers=headers)
    return client.http.post(path, headers=headers, body=json.dumps(body))


def test_every_question_gets_a_query_id_and_helpful_feedback_is_recorded(served):
    client, container = served()
    answer = call(client, "/answer", {"query": "¿Cuánto cuesta el plan Profesional de Faro?"}).json_body
    assert answer["answered"] and len(answer["query_id"]) == 32
    for path in ("/retrieve", "/context"):
        assert call(client, path, {"query": "How much does Marea cost?"}).json_body["query_id"]
    assert call(client, "/retrieve", {"intent": "bootstrap"}).json_body["query_id"] is None  # no question

    r = call(
        client, "/feedback", {"query_id": answer["query_id"], "helpful": True, "comment": "¡justo esto!"}
    )
    assert r.status_code == 200, r.json_body
    cited = list(dict.fromkeys(c["chunk_id"] for c in answer["citations"]))
    assert r.json_body == {"query_id": answer["query_id"], "recorded": True, "chunk_ids": cited}
    logged = container.query_log.get_query(answer["query_id"])
    assert logged.key == "support" and logged.lang == "es" and logged.answered and logged.endpoint == "answer"
    assert (
        logged.text == "¿Cuánto cuesta el plan Profesional de Faro?"
        and "k-support" not in logged.model_dump_json()
    )
    (fb,) = container.query_log.feedback(0)
    assert (fb.key, fb.helpful, fb.chunk_ids, fb.comment) == ("support", True, cited, "¡justo esto!")


def test_feedback_is_refused_clearly(served):
    client, _ = served()
    asked = call(client, "/retrieve", {"query": "¿Cuánto cuesta Faro?"}).json_body
    qid = asked["query_id"]
    cases = [
        ({"query_id": "0" * 32, "helpful": True}, "k-support", 404, "not_found"),
        (
            {"query_id": qid, "helpful": True, "chunk_ids": ["someone-else:0000:x"]},
            "k-support",
            400,
            "invalid_input",
        ),
        ({"query_id": qid, "helpful": False}, "k-sales", 403, "forbidden"),  # another restricted key
        ({"query_id": qid}, "k-support", 400, "invalid_input"),  # helpful is required
        ({"query_id": qid, "helpful": "yes"}, "k-support", 400, "invalid_input"),
        ({"query_id": qid, "helpful": True}, None, 401, "unauthorized"),
    ]
    for body, key, status, code in cases:
        r = call(client, "/feedback", body, key)
        assert (r.status_code, r.json_body["code"]) == (status, code), (body, key, r.json_body)
    admin = call(client, "/feedback", {"query_id": qid, "helpful": False}, "k-admin")  # unrestricted: may
    assert admin.status_code == 200 and admin.json_body["chunk_ids"] == [asked["items"][0]["chunk_id"]]


def test_the_question_text_is_not_stored_when_disabled(served):
    client, container = served(log_query_text=False)
    question = "¿Qué pasa con mis datos si cancelo la suscripción de Marea?"
    qid = call(client, "/answer", {"query": question}).json_body["query_id"]
    logged = container.query_log.get_query(qid)
    assert logged.text is None and len(logged.text_hash) == 64 and logged.chunk_ids
    raw = (
        Path(container.settings.store_path).read_bytes()
        + Path(container.settings.store_path + "-wal").read_bytes()
    )
    assert question.encode() not in raw and "suscripción de Marea".encode() not in raw


def test_with_the_log_off_there_is_no_query_id_and_no_feedback(served):
    client, _ = served(query_log=False)
    assert call(client, "/answer", {"query": "¿Cuánto cuesta Faro?"}).json_body["query_id"] is None
    r = call(client, "/feedback", {"query_id": "x", "helpful": True})
    assert r.status_code == 404 and "SABIO_QUERY_LOG=0" in r.json_body["message"]


def test_one_key_cannot_move_a_result_and_many_keys_move_it_only_within_the_cap(served):
    client, _ = served()
    question = {"query": "¿Cuánto cuesta el plan Profesional de Faro?", "top_k": 5}
    before = call(client, "/retrieve", question, "k-admin").json_body
    target = before["items"][3]  # a lower result that someone would like to see first
    scores = {i["chunk_id"]: i["score"] for i in before["items"]}

    def vote(key: str, times: int = 1) -> dict:
        for _ in range(times):
            qid = call(client, "/retrieve", question, key).json_body["query_id"]
            r = call(
                client,
                "/feedback",
                {"query_id": qid, "helpful": True, "chunk_ids": [target["chunk_id"]]},
                key,
            )
            assert r.status_code == 200
        return call(client, "/retrieve", question, "k-admin").json_body

    alone = vote("k-mallory", times=12)  # one key, however often
    assert [i["chunk_id"] for i in alone["items"]] == [i["chunk_id"] for i in before["items"]]
    assert "feedback" not in alone["applied"]

    many = before
    for n in range(5):
        many = vote(f"k-user{n}")
    assert many["applied"]["feedback"] == "1"
    moved = next(i for i in many["items"] if i["chunk_id"] == target["chunk_id"])
    assert moved["score"] == pytest.approx(scores[target["chunk_id"]] * (1 + PriorConfig().cap), rel=1e-4)
    assert many["items"][0]["chunk_id"] == before["items"][0]["chunk_id"]  # the cap keeps the answer first


def test_the_prior_is_bounded_fades_and_counts_a_key_once():
    config = PriorConfig()
    spam = [(Vote("mallory", True, ("c",), 0.0), 1.0)] * 100
    assert prior_factors(spam, config) == {}
    two = [(Vote("a", True, ("c",), 0.0), 1.0), (Vote("b", True, ("c",), 0.0), 1.0)]
    assert prior_factors(two, config) == {"c": pytest.approx(1 + 2 * config.per_key)}
    crowd = [(Vote(f"k{n}", False, ("c",), 0.0), 1.0) for n in range(50)]
    assert prior_factors(crowd, config) == {"c": pytest.approx(1 - config.cap)}
    old = [(Vote(k, True, ("c",), config.half_life_days), 1.0) for k in "ab"]
    assert prior_factors(old, config) == {"c": pytest.approx(1 + config.per_key)}  # half as strong
    mixed = two + [(Vote("c", False, ("c",), 0.0), 1.0), (Vote("d", False, ("c",), 0.0), 1.0)]
    assert prior_factors(mixed, config) == {}  # as many keys against as for


TOPICS = {
    "mobile": [
        "Does Faro have a mobile app?",
        "Is there a Faro app for iPhone?",
        "¿Tiene Faro una aplicación móvil?",
    ],
    "salesforce": [
        "Can I connect Faro to Salesforce?",
        "Does Faro integrate with Salesforce?",
        "¿Faro se integra con Salesforce?",
    ],
    "sla": ["What is the SLA of Ancla?", "¿Ancla tiene SLA?"],
}


def test_clustering_groups_paraphrases_of_one_missing_topic(examples_container):
    embedder = examples_container.embedder
    weak = []
    for n, (topic, questions) in enumerate((t, q) for t, qs in TOPICS.items() for q in qs):
        vector = encode_vectors(embedder.embed_query(questions)[None, :])
        record = QueryRecord(
            query_id=f"{topic}{n}",
            created_at=0,
            expires_at=1,
            endpoint="answer",
            key="",
            text=questions,
            text_hash=str(n),
            lang="",
            mode="documental",
            vector=vector,
            space=embedder.space.model_id,
        )
        weak.append(Weak(record, False))
    clusters = missing_topics(weak, embedder.space)
    assert sorted(sorted(c.examples) for c in clusters) == sorted(sorted(qs) for qs in TOPICS.values())
    assert [c.count for c in clusters] == [3, 3, 2]


def test_insights_list_missing_topics_first_and_what_to_translate(served):
    client, _ = served()
    for question in [*TOPICS["mobile"], "How long is the Faro free trial?", "¿Cuánto cuesta Faro?"]:
        answer = call(client, "/answer", {"query": question}).json_body
        if question in TOPICS["mobile"] and answer["answered"]:  # an answer about something else
            call(client, "/feedback", {"query_id": answer["query_id"], "helpful": False})
    report = call(client, "/insights?days=1", None, "k-admin").json_body
    assert report["queries"] == 5 and report["weak"] == 3 and report["feedback"]["helpful"] == 0
    # the three mobile questions are one topic, listed first: missing, or written only in the other
    # language (the Spanish backlog plans "una aplicación móvil", which two of them come closest to)
    (first, *_) = [*report["missing_topics"], *report["other_language"]]
    assert first["count"] == 3 and sorted(first["examples"]) == sorted(TOPICS["mobile"])
    translate = {(d["lang"], tuple(d["asked_in"])) for d in report["translate"]}
    assert ("es", ("en",)) in translate  # the trial is only described in Spanish
    own = call(client, "/insights?days=1", None, "k-support").json_body  # a scoped key: its own questions
    assert own["queries"] == 5 and own["weak"] == 3
    assert call(client, "/insights?days=abc", None, "k-admin").json_body["field"] == "days"
