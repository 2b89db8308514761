"""Conversations through the HTTP API (Chalice's test client, the real pipeline on a small folder): a follow-up
answered in context, and the limits a thread keeps, on SQLite and on DynamoDB (moto): another key's or user's
conversation is a 404 that says nothing of it, a revoked reader right holds on the next turn (also in what an
LLM is shown), an expired id starts a new conversation and says so, a thread keeps its last turns."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
import pytest
from chalice.test import Client
from moto import mock_aws

import app as sabio_app
from chalicelib.composition import Container
from chalicelib.errors import InvalidInput
from chalicelib.models.api import RetrieveRequest
from chalicelib.settings import Settings
from chalicelib.stores.aws.dynamodb import table_definition
from chalicelib.stores.aws.dynamodb_conversations import DynamoDBConversations
from tests.llm_server import LLMTestServer

pytestmark = pytest.mark.slow
KEYS = {"k-portal": {"name": "portal", "acts_for_users": True}, "k-app": {"name": "app"}}
FILES = {
    "precios/espana.md": "# Brisa en España\n\nEl plan Pro de Brisa cuesta 30 euros al mes en España, con "
    "permanencia de un año.\n",
    "precios/mexico.md": "# Brisa en México\n\nEl plan Pro de Brisa cuesta 590 pesos al mes en México, sin "
    "permanencia.\n",
    "finanzas/cierre.md": "# Cierre contable\n\nEl cierre contable del trimestre lo aprueba Lucía Ferrer Soto, "
    "directora financiera.\n\n## Contacto\n\nEl correo de Lucía Ferrer Soto es lucia.ferrer@acme.example.\n",
    ".sabio-read": "public\n",
    "finanzas/.sabio-read": "group:finance\n",
}
ANA = {"x-api-key": "k-portal", "x-sabio-user": "ana@acme.com", "x-sabio-groups": "finance"}


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory, examples_container: Container) -> Path:
    root = tmp_path_factory.mktemp("conversations")
    for name, text in FILES.items():
        (root / "docs" / name).parent.mkdir(parents=True, exist_ok=True)
        (root / "docs" / name).write_text(text, encoding="utf-8")
    container = Container(Settings(store_path=str(root / "s.db")))
    container.__dict__["embedder"] = examples_container.embedder
    assert container.ingestor().index_folder(root / "docs", "docs").added == 3
    return root / "s.db"


def serving(store: Path, embedder: Any, **settings: Any) -> Container:
    container = Container(Settings(store_path=str(store), auth="keys", api_keys=KEYS, **settings))
    container.__dict__["embedder"] = embedder
    return container


@pytest.fixture(params=["sqlite", "dynamodb"])
def api(request, indexed, examples_container, monkeypatch) -> Iterator[Any]:  # type: ignore[no-untyped-def]
    """The API on the folder, its conversations in SQLite (beside the query log) or in DynamoDB (moto)."""
    container = serving(indexed, examples_container.embedder, conversation_max_turns=3)
    with mock_aws():
        if request.param == "dynamodb":
            for var, value in (("AWS_ACCESS_KEY_ID", "t"), ("AWS_SECRET_ACCESS_KEY", "t")):
                monkeypatch.setenv(var, value)
            client = boto3.client("dynamodb", region_name="eu-west-1")
            client.create_table(**table_definition("sabio"))
            container.__dict__["conversation_store"] = DynamoDBConversations("sabio", client=client)
        sabio_app._container = container
        with Client(sabio_app.app) as c:
            yield c
        sabio_app._container = None


def ask(client: Any, body: dict[str, Any], headers: dict[str, str] = ANA, path: str = "/answer") -> Any:
    return client.http.post(
        path, headers={"Content-Type": "application/json", **headers}, body=json.dumps(body)
    )


def test_a_follow_up_is_answered_in_its_conversation(api):  # type: ignore[no-untyped-def]
    first = ask(api, {"query": "¿Cuánto cuesta el plan Pro de Brisa en España?"}).json_body
    assert "30 euros" in first["answer"] and first["thread"]["started"] and first["thread"]["turn"] == 1
    assert len(first["conversation_id"]) == 32 and first["standalone_query"] == first["query"]
    then = ask(api, {"query": "¿y en México?", "conversation_id": first["conversation_id"]}).json_body
    assert then["conversation_id"] == first["conversation_id"] and then["thread"]["turn"] == 2
    assert then["standalone_query"] == "¿Cuánto cuesta el plan Pro de Brisa en México?"
    assert then["thread"]["resolved_by"] == "offline" and then["thread"]["replaced"] == ["en España"]
    assert "590 pesos" in then["answer"]
    found = ask(
        api, {"query": "¿y sin permanencia?", "conversation_id": first["conversation_id"]}, path="/retrieve"
    )
    assert found.status_code == 200 and found.json_body["thread"]["turn"] == 3  # /retrieve takes turns too


def events_of(reply: Any) -> dict[str, dict[str, Any]]:
    """A text/event-stream body's events by name (each name once in an answer's stream)."""
    blocks = [b for b in reply.body.decode().split("\n\n") if b.strip()]
    pairs = [dict(line.split(": ", 1) for line in b.splitlines()) for b in blocks]
    return {p["event"]: json.loads(p["data"]) for p in pairs}


def test_a_streamed_answer_is_a_turn_of_its_conversation(api):  # type: ignore[no-untyped-def]
    first = ask(api, {"query": "¿Cuánto cuesta el plan Pro de Brisa en España?", "stream": True})
    assert first.headers["Content-Type"] == "text/event-stream"
    opened = events_of(first)["answer"]["conversation_id"]
    then = events_of(ask(api, {"query": "¿y en México?", "conversation_id": opened, "stream": True}))
    assert then["sources"]["query"] == "¿Cuánto cuesta el plan Pro de Brisa en México?"  # searched as
    answer = then["answer"]
    assert answer["conversation_id"] == opened and answer["thread"]["turn"] == 2
    assert answer["query"] == "¿y en México?" and "590 pesos" in answer["answer"]
    plain = ask(api, {"query": "¿y sin permanencia?", "conversation_id": opened}).json_body
    assert plain["thread"]["turn"] == 3  # the streamed turns were kept like any other
    refused = ask(
        api, {"query": "¿y en México?", "conversation_id": opened, "stream": True}, {"x-api-key": "k-app"}
    )
    assert refused.status_code == 404 and refused.json_body["code"] == "not_found"  # before any event


def test_another_keys_or_users_conversation_is_a_404_that_says_nothing_of_it(api):  # type: ignore[no-untyped-def]
    mine = ask(api, {"query": "¿Cuánto cuesta el plan Pro de Brisa en España?"}).json_body["conversation_id"]
    follow = {"query": "¿y en México?", "conversation_id": mine}
    app_key = ask(api, follow, {"x-api-key": "k-app"})
    bob = ask(api, follow, {**ANA, "x-sabio-user": "bob@acme.com"})
    unknown = ask(api, {**follow, "conversation_id": "0" * 32})
    for refused in (app_key, bob, unknown):
        assert refused.status_code == 404 and refused.json_body["code"] == "not_found"
    assert app_key.json_body["message"] == bob.json_body["message"] == f"no conversation {mine!r}"
    assert unknown.json_body["message"] == f"no conversation {'0' * 32!r}"  # the same words, its own id
    assert ask(api, follow).status_code == 200  # still Ana's, untouched


def test_a_revoked_reader_right_holds_on_the_next_turn(api):  # type: ignore[no-untyped-def]
    first = ask(api, {"query": "¿Quién aprueba el cierre contable?"}).json_body
    assert "Lucía Ferrer Soto" in first["answer"]
    revoked = {**ANA, "x-sabio-groups": "sales"}  # Ana left finance
    then = ask(api, {"query": "¿y cuál es su correo?", "conversation_id": first["conversation_id"]}, revoked)
    assert then.status_code == 200
    body = then.json_body
    assert "Lucía" not in json.dumps(body, ensure_ascii=False) and "lucia.ferrer" not in json.dumps(body)
    assert body["thread"]["forgotten"] == 1 and any("ya no puedes leer" in n for n in body["notes"])


def test_an_expired_conversation_starts_a_new_one_and_says_so(api):  # type: ignore[no-untyped-def]
    old = ask(api, {"query": "¿Cuánto cuesta el plan Pro de Brisa en España?"}).json_body["conversation_id"]
    later = time.time() + 25 * 3600  # the TTL is 24 h after the last turn
    sabio_app._container.conversations.clock = lambda: later  # type: ignore[union-attr]
    body = ask(api, {"query": "¿y en México?", "conversation_id": old}).json_body
    assert body["conversation_id"] != old and body["thread"]["expired"] and body["thread"]["started"]
    assert any(f"La conversación {old} había caducado" in n for n in body["notes"])
    assert body["thread"]["turn"] == 1 and body["standalone_query"] == "¿y en México?"  # nothing to lean on


def test_a_thread_keeps_its_last_turns_and_a_longer_history_is_refused(api):  # type: ignore[no-untyped-def]
    conversation = None
    for n in range(5):
        body = {"query": f"¿Cuánto cuesta el plan Pro de Brisa en España? ({n})"}
        if conversation:
            body["conversation_id"] = conversation
        reply = ask(api, body, path="/retrieve").json_body
        conversation = reply["conversation_id"]
    assert reply["thread"]["turn"] == 5
    kept = sabio_app._container.conversation_store.get_conversation(conversation)  # type: ignore[union-attr]
    assert kept is not None and kept.asked == 5 and len(kept.turns) == 3  # SABIO_CONVERSATION_MAX_TURNS=3
    assert [t.question[-3:] for t in kept.turns] == ["(2)", "(3)", "(4)"]
    too_long = [{"question": f"¿Pregunta {n}?"} for n in range(4)]
    refused = ask(api, {"query": "¿y en México?", "history": too_long})
    assert refused.status_code == 400 and refused.json_body["field"] == "history"


def test_a_caller_that_keeps_its_own_history_gets_the_follow_up_in_context(api):  # type: ignore[no-untyped-def]
    history = [{"question": "¿Cuánto cuesta el plan Pro de Brisa en España?", "answer": "30 euros al mes."}]
    body = ask(api, {"query": "¿y en México?", "history": history}).json_body
    assert body["standalone_query"] == "¿Cuánto cuesta el plan Pro de Brisa en México?"
    assert body["conversation_id"] is None and body["thread"]["turn"] == 2 and "590 pesos" in body["answer"]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"query": "¿y?", "conversation_id": "a" * 32, "history": []}, "history"),
        ({"query": "Brisa", "intent": "bootstrap", "conversation_id": "a" * 32}, "conversation_id"),
        ({"query": "¿y?", "conversation_id": "../../etc"}, "conversation_id"),
        ({"query": "¿y?", "history": [{"question": "", "answer": "x"}]}, "history.0.question"),
        ({"query": "¿y?", "history": [{"question": "¿a?", "extra": 1}]}, "history.0.extra"),
    ],
)
def test_bad_thread_fields_are_a_400_naming_the_field(api, body, field):  # type: ignore[no-untyped-def]
    refused = ask(api, body)
    assert refused.status_code == 400 and refused.json_body["field"] == field, refused.json_body


def test_the_query_log_keeps_the_follow_up_as_typed_and_as_searched(indexed, examples_container):  # type: ignore[no-untyped-def]
    container = serving(indexed, examples_container.embedder)
    from chalicelib.access.keys import KeyPolicy
    from chalicelib.models.api import RetrieveRequest

    ana = KeyPolicy(name="portal").for_user("ana@acme.com", ["finance"])
    first = container.conversations.answer(
        RetrieveRequest(query="¿Cuánto cuesta el plan Pro de Brisa en España?"), ana
    )
    then = container.conversations.answer(
        RetrieveRequest(query="¿y en México?", conversation_id=first.conversation_id), ana
    )
    logged = container.query_log.get_query(then.query_id or "")  # type: ignore[union-attr]
    assert logged is not None and logged.conversation_id == first.conversation_id
    assert (logged.asked_as, logged.text) == (
        "¿y en México?",
        "¿Cuánto cuesta el plan Pro de Brisa en México?",
    )
    off = serving(indexed, examples_container.embedder, conversations=False)
    with pytest.raises(InvalidInput, match="SABIO_CONVERSATIONS=0"):
        off.conversations.answer(RetrieveRequest(query="¿y?", conversation_id=first.conversation_id), ana)


def test_a_server_that_keeps_no_question_text_keeps_no_conversation(tmp_path, examples_container):  # type: ignore[no-untyped-def]
    from chalicelib.models.api import RetrieveRequest

    container = serving(tmp_path / "s.db", examples_container.embedder, log_query_text=False)
    container.ingestor().index_folder(Path(__file__).parent.parent / "examples" / "docs", "docs")
    asked = "¿Cuánto cuesta Faro para la cooperativa Quirógrafo?"
    first = container.conversations.answer(RetrieveRequest(query=asked), None)
    assert first.conversation_id is None  # nothing issued: a thread would keep the questions' text
    kept = [
        p for p in tmp_path.rglob("*") if p.is_file() and p.relative_to(tmp_path).parts[0].startswith("s.db")
    ]
    written = b"".join(p.read_bytes() for p in kept)  # the store, its journal and the search files beside it
    assert "Quirógrafo".encode() not in written
    history = [{"question": "¿Cuánto cuesta Faro?"}]
    then = container.conversations.answer(
        RetrieveRequest.model_validate({"query": "¿y Marea?", "history": history}), None
    )
    assert then.standalone_query == "¿Cuánto cuesta Marea?"  # the caller's own history still reads


def test_an_llm_is_never_shown_an_answer_the_caller_may_no_longer_read(indexed, examples_container):  # type: ignore[no-untyped-def]
    from chalicelib.access.keys import KeyPolicy
    from chalicelib.models.api import RetrieveRequest

    with LLMTestServer() as server:
        container = serving(
            indexed, examples_container.embedder, llm_base_url=server.base_url, answer="extractive"
        )
        ana = KeyPolicy(name="portal").for_user("ana@acme.com", ["finance"])
        first = container.conversations.answer(
            RetrieveRequest(query="¿Quién aprueba el cierre contable?"), ana
        )
        assert "Lucía Ferrer Soto" in first.answer
        left = KeyPolicy(name="portal").for_user("ana@acme.com", ["sales"])
        container.conversations.answer(
            RetrieveRequest(query="¿y cuál es su correo?", conversation_id=first.conversation_id), left
        )
        shown = [r for r in server.requests if "standalone question" in r["messages"][0]["content"]]
    assert shown and "Lucía" not in json.dumps(shown[-1], ensure_ascii=False)
    assert "¿Quién aprueba el cierre contable?" in shown[-1]["messages"][1]["content"]  # the question stays


SUPPORT = (
    "# Soporte de Brisa\n\nEl soporte del plan Pro atiende de lunes a viernes de 8:00 a 20:00. La responsable de "
    "soporte es Marta Vidal Ruiz.\n\nEl plan Empresa tiene soporte 24 horas, todos los días, con un gestor "
    "asignado.\n\nLas incidencias graves se escalan al equipo de guardia en menos de 30 minutos.\n"
)


def two_turns(
    tmp_path: Path, embedder: Any, files: dict[str, str], first: str, then: str, translator: Any = None
):  # type: ignore[no-untyped-def]
    """A fresh store over ``files`` ({name: text}, readable by anyone) and a conversation of two questions:
    both answers."""
    docs = tmp_path / "docs"
    docs.mkdir()
    for name, text in files.items():
        (docs / name).write_text(text, encoding="utf-8")
    container = Container(Settings(store_path=str(tmp_path / "s.db"), default_readers="public"))
    container.__dict__["embedder"] = embedder
    if translator is not None:
        container.__dict__["translator"] = translator
    container.ingestor().index_folder(docs, "docs")
    one = container.conversations.answer(RetrieveRequest(query=first), None)
    two = container.conversations.answer(
        RetrieveRequest(query=then, conversation_id=one.conversation_id), None
    )
    return one, two


def test_a_follow_up_is_answered_by_its_own_words_where_the_thread_points(tmp_path, examples_container):  # type: ignore[no-untyped-def]
    """The merged question finds the page; what the user typed picks the sentence: "¿Y quién es la
    responsable?" is answered by the sentence naming her, not again by the earlier answer's opening hours."""
    first, then = two_turns(
        tmp_path,
        examples_container.embedder,
        {"soporte.md": SUPPORT},
        "¿Qué horario tiene el soporte del plan Pro?",
        "¿Y quién es la responsable?",
    )
    assert "de lunes a viernes de 8:00 a 20:00" in first.answer
    assert then.thread is not None and then.thread.resolved_by == "offline"
    assert "Marta Vidal Ruiz" in then.answer and "8:00" not in then.answer, then.answer


def test_a_follow_up_that_swaps_a_place_is_read_as_the_question_it_makes(tmp_path, examples_container):  # type: ignore[no-untyped-def]
    """ "¿Y en Uruguay?" is the earlier question with its place swapped: its own words say nothing of what is
    asked, so its answer is read by "¿Cuánto cuesta el plan Fibra 300 en Uruguay?": the plan's row, not the
    whole price table (read by its own words, nothing named a row)."""
    files = {
        "argentina.md": "# Planes en Argentina\n\nEl plan Fibra 300 cuesta 18.500 pesos al mes en Argentina.\n",
        "uruguay.md": "# Planes y precios Uruguay\n\nEn Uruguay, los precios de los planes de fibra se expresan por "
        "mes, en pesos uruguayos y con IVA (22 %), según la Gerencia Comercial Uruguay.\n\n| Plan | Precio "
        "mensual (UYU) |\n|---|---|\n| Fibra 300 | 1.490 |\n| Fibra 600 | 1.890 |\n",
    }
    first, then = two_turns(
        tmp_path,
        examples_container.embedder,
        files,
        "¿Cuánto cuesta el plan Fibra 300 en Argentina?",
        "¿Y en Uruguay?",
    )
    assert first.answered and "18.500" in first.answer
    assert then.standalone_query == "¿Cuánto cuesta el plan Fibra 300 en Uruguay?"
    assert "Fibra 300 | 1.490" in then.answer and "Fibra 600" not in then.answer, then.answer


class TableTranslator:
    """Translates the questions of its table (None for anything else), as a translator would."""

    def __init__(self, table: dict[str, str]) -> None:
        self.table = table

    def pairs(self) -> list[tuple[str, str]]:
        return [("es", "en"), ("en", "es")]

    def translate(self, text: str, source: str, target: str, keep=(), *, names=True) -> str | None:  # type: ignore[no-untyped-def]
        return self.table.get(text)


def test_a_follow_up_read_by_its_own_words_is_read_in_the_documents_language_too(
    tmp_path, examples_container
):  # type: ignore[no-untyped-def]
    """An English thread over a Spanish table: "What are his support hours?" is read by its own words, put into
    Spanish as the merged question was ("¿Cuál es su horario de soporte?" holds the column "Horario de
    soporte"). Read by the English words alone, nothing in the table held them and the answer was held back."""
    files = {
        "soporte.md": "# Administradores y soporte\n\nCada oficina tiene un administrador de Quorum.\n\n| Oficina "
        "| Administrador de Quorum | Extensión | Horario de soporte |\n|---|---|---|---|\n| Madrid | Ana Ruiz Gil "
        "| 2101 | De lunes a viernes, de 8:00 a 17:00 |\n| Bogotá | Julián Ocampo Vélez | 3190 | De lunes a "
        "viernes, de 7:00 a 16:00 |\n",
        "vacaciones.md": "# Vacaciones\n\nCada asociado tiene 23 días laborables de vacaciones al año en Madrid y "
        "15 días hábiles en Bogotá.\n",
    }
    translator = TableTranslator(
        {
            "Who is the Quorum administrator at the Bogotá office?": "¿Quién es el administrador de Quorum en la "
            "oficina de Bogotá?",
            "What are the support hours for the Quorum administrator at the Bogotá office?": "¿Cuál es el "
            "horario de soporte del administrador de Quorum en la oficina de Bogotá?",
            "What are his support hours?": "¿Cuál es su horario de soporte?",
        }
    )
    first, then = two_turns(
        tmp_path,
        examples_container.embedder,
        files,
        "Who is the Quorum administrator at the Bogotá office?",
        "What are his support hours?",
        translator,
    )
    assert first.answered and "Julián Ocampo Vélez" in first.answer
    assert then.thread is not None and then.thread.resolved_by == "offline"
    assert then.answered and "de 7:00 a 16:00" in then.answer, (then.confidence, then.answer)


FARES = (
    "Línea,Origen,Destino,Precio billete sencillo (EUR),Precio abono mensual (EUR),Duración (min)\n"
    "L1,Segovia,Madrid (Moncloa),8.90,165.00,75\nL2,Segovia,Ávila,6.40,118.00,60\n"
    "L3,Segovia,Valladolid,9.75,180.00,95\nL4,Segovia,La Granja,1.85,38.00,20\nL5,Segovia,Cuéllar,5.10,96.00,55\n"
)


def test_a_follow_up_that_names_a_column_quotes_the_row_its_thread_asked_about(tmp_path, examples_container):  # type: ignore[no-untyped-def]
    """ "¿y el abono mensual?" after the single fare to Valladolid: its own words name the column, and no row;
    the row is the one the thread asked about (the whole fare table was quoted)."""
    first, then = two_turns(
        tmp_path,
        examples_container.embedder,
        {"tarifas-2025.csv": FARES},
        "¿Cuánto cuesta el billete sencillo de Segovia a Valladolid?",
        "¿y el abono mensual?",
    )
    assert first.answered and "9.75" in first.answer
    assert then.answered and "180.00" in then.answer, then.answer
    assert "La Granja" not in then.answer and "Cuéllar" not in then.answer, then.answer
