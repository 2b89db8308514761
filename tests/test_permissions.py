"""Who may read what: a leak matrix of users x documents x every door, on every backend.

Documents name their readers every way Sabio reads them (front matter, a folder's ``.sabio-read`` default and
its per-file line, a source's default, the deployment's default); users reach the API every way there is (an
API key alone, a JWT from a real OIDC issuer over HTTP, a trusted key acting for a user, a key that reads all
documents). Every door is asked, with each document's exact title as the question where the door takes one,
and every answer is searched for every document the user may not read (its secret code, its document id, its
key): none may appear, and what the user may read must be found. Run on the embedded SQLite store, on
DynamoDB (moto's HTTP server) with the SQLite index, and on DynamoDB with OpenSearch (osmem-server over HTTP
behind the k-NN stand-in), so the OpenSearch filter bodies Sabio sends are the ones answered (there with four
of the six users: a key alone, a JWT user, a trusted key's user and the all-documents key, since every
search crosses two HTTP hops).
"""

from __future__ import annotations

import json
import re
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from chalice.test import Client

import app as sabio_app
from chalicelib.composition import Container
from chalicelib.settings import Settings
from tests.jwks_server import AUDIENCE, Issuer
from tests.moto_http import moto_server

pytestmark = pytest.mark.slow
REGION = "eu-west-1"


@dataclass(frozen=True)
class Doc:
    path: str  # under the corpus root: <source>/<key>
    title: str
    code: str  # a secret only its readers may ever see
    readers: frozenset[str]  # the users who may read it
    front_matter: str = ""
    tags: tuple[str, ...] = ()
    about: str = ""  # what it says besides its code: every document says something else

    @property
    def source(self) -> str:
        return self.path.split("/", 1)[0]

    @property
    def key(self) -> str:
        return self.path.split("/", 1)[1]

    def text(self) -> str:
        meta = self.front_matter + (f"tags: [{', '.join(self.tags)}]\n" if self.tags else "")
        head = f"---\n{meta}---\n" if meta else ""
        return (
            f"{head}# {self.title}\n\n{self.about}\n\nEl código interno de este documento es {self.code}.\n"
        )


EVERYONE = frozenset({"anon", "ana", "bob", "eve", "lea", "admin"})
ANA, BOB, LEA = frozenset({"ana", "admin"}), frozenset({"bob", "admin"}), frozenset({"lea", "admin"})
DOCS = (
    Doc(
        "company/handbook.md", "Manual de bienvenida", "QX-1001", EVERYONE, "sabio-read: public\n",
        about="El primer día recibes el portátil, la tarjeta de acceso y una comida con tu equipo.",
    ),
    Doc(
        "company/finance/budget.md", "Presupuesto anual de marketing", "QX-2002", ANA,
        about="Marketing dispone de 480.000 euros, la mitad para ferias del sector en primavera.",
    ),
    Doc(
        "company/finance/payroll.md", "Nóminas de la dirección", "QX-3003", frozenset({"ana", "admin"}),
        tags=("payroll",),
        about="La directora general cobra 210.000 euros brutos anuales y un bonus del veinte por ciento.",
    ),
    Doc(
        "company/finance/press.md", "Nota de prensa de resultados", "QX-4004", EVERYONE, "sabio-read: public\n",
        about="Los ingresos del tercer trimestre crecieron un doce por ciento gracias a Portugal.",
    ),
    Doc(
        "company/hr/review.md", "Evaluaciones de desempeño", "QX-5005", BOB, "sabio-read: group:hr\n",
        about="Cada noviembre los responsables puntúan a su equipo de uno a cinco en cuatro competencias.",
    ),
    Doc(
        "company/shared/plan.md", "Plan de reorganización de oficinas", "QX-6006",
        frozenset({"ana", "bob", "admin"}), "sabio-read: group:finance, group:hr\n",
        about="La sede de Bilbao cierra en junio y sus cuarenta puestos se trasladan a Vitoria.",
    ),
    Doc(
        "company/orphan.md", "Inventario del almacén", "QX-7007", frozenset({"admin"}), "product: Hélice\n",
        about="Quedan trescientas sillas plegables y doce proyectores en la nave de Getafe.",
    ),
    Doc(
        "legal/contract.md", "Contrato con el proveedor de limpieza", "QX-8008", LEA,
        about="La empresa Brillo SL limpia las oficinas cada noche por 3.100 euros al mes.",
    ),
)  # fmt: skip
# the finance folder's default, and its own line for the payroll (only Ana; payroll.md names no readers)
FINANCE_FOLDER = "group:finance\npayroll.md = user:Ana@acme.com   # the directors' pay: Ana alone\n"
KEYS = {
    "k-app": {"name": "app"},  # a key alone reads public documents
    "k-portal": {"name": "portal", "acts_for_users": True},  # a trusted service naming its users
    "k-admin": {"name": "admin", "all_documents": True},
}


@dataclass
class User:
    name: str
    headers: dict[str, str]


def users(issuer: Issuer) -> list[User]:
    def jwt(user: str, groups: list[str]) -> dict[str, str]:
        return {"x-api-key": "k-app", "Authorization": f"Bearer {issuer.token(user, groups)}"}

    return [
        User("anon", {"x-api-key": "k-app"}),
        User("ana", jwt("ana@acme.com", ["finance"])),
        User("bob", {"x-api-key": "k-portal", "x-sabio-user": "bob@acme.com", "x-sabio-groups": "hr"}),
        User("eve", jwt("eve@acme.com", ["contractors", "Finance"])),  # an unknown group, a wrong case
        User("lea", jwt("lea@acme.com", ["legal"])),
        User("admin", {"x-api-key": "k-admin"}),
    ]


# ---------------------------------------------------------------- backends


def write_corpus(root: Path) -> Path:
    for doc in DOCS:
        path = root / doc.path
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(doc.text(), encoding="utf-8")
    (root / "company" / "finance" / ".sabio-read").write_text(FINANCE_FOLDER, encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def issuer() -> Iterator[Issuer]:
    with Issuer().running() as running:
        yield running


@pytest.fixture(scope="module")
def moto_url() -> Iterator[str]:
    with moto_server(REGION) as url:
        yield url


@dataclass
class Served:
    backend: str
    container: Container
    client: Client
    users: list[User]
    chunks: dict[str, list[str]] = field(default_factory=dict)  # doc path -> its chunk ids
    doc_ids: dict[str, str] = field(default_factory=dict)  # doc path -> its document id


@pytest.fixture(scope="module", params=["sqlite", "dynamodb", "opensearch"])
def served(request, tmp_path_factory, issuer, examples_container) -> Iterator[Served]:  # type: ignore[no-untyped-def]
    backend = request.param
    root = write_corpus(tmp_path_factory.mktemp(f"perm-{backend}"))
    settings: dict[str, Any] = {
        "store_path": str(root / "s.db"),
        "auth": "keys",
        "api_keys": KEYS,
        "jwt_issuer": issuer.url,
        "jwt_audience": AUDIENCE,
        "source_readers": {"legal": "group:legal"},
    }
    stack = _backend(backend, request, settings)
    with stack as extra:
        container = Container(Settings(**settings, **extra))
        container.__dict__["embedder"] = examples_container.embedder  # the model already loaded
        if backend != "sqlite":
            from chalicelib.stores.aws.dynamodb import table_definition

            container.aws_client("dynamodb").create_table(**table_definition(extra["dynamodb_table"]))
        for source in ("company", "legal"):
            report = container.ingestor().index_folder(root / source, source)
            assert report.ok and report.added == sum(d.source == source for d in DOCS), report
        sabio_app._container = container
        with Client(sabio_app.app) as client:
            people = users(issuer)
            if backend == "opensearch":  # each search crosses two HTTP hops here: the users whose filters
                people = [u for u in people if u.name in ("anon", "ana", "bob", "admin")]  # differ most
            found = Served(backend, container, client, people)
            for doc in DOCS:
                record = container.chunk_store.get_document(doc.source, doc.key)
                assert record is not None
                found.doc_ids[doc.path] = record.document_id
                found.chunks[doc.path] = [
                    c.chunk_id for c in container.chunk_store.document_chunks(record.document_id)
                ]
            yield found
        sabio_app._container = None


class _backend:
    """The settings (and servers) of one backend, as a context manager."""

    def __init__(self, name: str, request: Any, settings: dict[str, Any]) -> None:
        self.name, self.request, self.settings = name, request, settings
        self._standin: Any = None

    def __enter__(self) -> dict[str, Any]:
        if self.name == "sqlite":
            return {}
        url = self.request.getfixturevalue("moto_url")
        extra: dict[str, Any] = {
            "chunk_store": "dynamodb",
            "dynamodb_table": f"perm-{self.name}",
            "aws_endpoint_url": url,
            "aws_region": REGION,
        }
        if self.name == "opensearch":
            pytest.importorskip("osmem_server")
            from tests.opensearch_standin import opensearch

            self._standin = opensearch()
            standin = self._standin.__enter__()
            extra.update(vector_index="opensearch", opensearch_url=standin.url, opensearch_prefix="perm")
        return extra

    def __exit__(self, *exc: object) -> None:
        if self._standin is not None:
            self._standin.__exit__(None, None, None)


# ---------------------------------------------------------------- the doors


def post(s: Served, user: User, path: str, body: dict[str, Any]) -> Any:
    headers = {"Content-Type": "application/json", **user.headers}
    return s.client.http.post(path, headers=headers, body=json.dumps(body))


def get(s: Served, user: User, path: str) -> Any:
    return s.client.http.get(path, headers=user.headers)


def mcp(s: Served, user: User, method: str, params: dict[str, Any]) -> Any:
    headers = {"Accept": "application/json, text/event-stream"}
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
    r = s.client.http.post(
        "/mcp", headers={"Content-Type": "application/json", **headers, **user.headers}, body=json.dumps(body)
    )
    return r


def tool(s: Served, user: User, name: str, arguments: dict[str, Any]) -> Any:
    return mcp(s, user, "tools/call", {"name": name, "arguments": arguments})


def question_doors(doc: Doc, maps: bool) -> dict[str, tuple[str, str, dict[str, Any]]]:
    """The doors that take a question, each asked the document's exact title; with ``maps`` the bootstrap
    maps focused on it too (a map runs a dozen searches: each user asks one, about a document it may not
    read, beside the map of everything)."""
    q = doc.title
    doors = {
        "retrieve": ("post", "/retrieve", {"query": q}),
        "retrieve lang=all": ("post", "/retrieve", {"query": q, "lang": "all", "top_k": 20}),
        "retrieve naming its source and tags": (
            "post",
            "/retrieve",
            {
                "query": q,
                "lang": "all",
                "scope": {"source_id": doc.source},
                "filters": {"tags": list(doc.tags) or None},
            },
        ),
        "answer": ("post", "/answer", {"query": q}),
        "context": ("post", "/context", {"query": q, "lang": "all"}),
        "mcp search": ("tool", "search", {"query": q, "lang": "all"}),
        "mcp answer": ("tool", "answer", {"query": q}),
        "mcp context": ("tool", "context", {"query": q}),
    }
    if maps:
        doors["bootstrap map focused on it"] = (
            "post",
            "/retrieve",
            {"query": q, "intent": "bootstrap", "lang": "all"},
        )
        doors["mcp map"] = ("tool", "map", {"query": q, "lang": "all"})
    return doors


@dataclass
class Matrix:
    cells: int = 0
    doors: set[str] = field(default_factory=set)
    leaks: list[str] = field(default_factory=list)
    missed: list[str] = field(default_factory=list)

    def check(self, s: Served, user: User, door: str, body: str, *, found: Doc | None = None) -> None:
        """No document ``user`` may not read shows in ``body`` (one cell per document); ``found``: a
        document the user may read that the door must have returned."""
        self.doors.add(door)
        for doc in DOCS:
            self.cells += 1
            if user.name in doc.readers:
                continue
            marks = (doc.code, s.doc_ids[doc.path], doc.key)
            shown = [m for m in marks if m in body]
            if shown:
                self.leaks.append(f"{s.backend}: {user.name} saw {doc.path} through {door}: {shown}")
        if found is not None and s.doc_ids[found.path] not in body:
            self.missed.append(f"{s.backend}: {user.name} did not find {found.path} through {door}")


def ask(s: Served, user: User, how: str, where: str, body: dict[str, Any]) -> Any:
    return post(s, user, where, body) if how == "post" else tool(s, user, where, body)


def body_of(response: Any) -> str:
    return (
        response.body.decode("utf-8") if isinstance(response.body, bytes) else json.dumps(response.json_body)
    )


def test_no_user_sees_a_document_it_may_not_read_through_any_door(served: Served, capsys) -> None:
    s, m = served, Matrix()
    asked: dict[str, list[str]] = {}  # user -> query ids it asked
    for user in s.users:
        focus = next((d for d in DOCS if user.name not in d.readers), DOCS[0])
        for doc in DOCS:
            for door, (how, where, body) in question_doors(doc, maps=doc is focus).items():
                r = ask(s, user, how, where, body)
                assert r.status_code == 200, (s.backend, user.name, door, r.body)
                text = body_of(r)
                exact = door in ("retrieve lang=all", "mcp search") and user.name in doc.readers
                m.check(s, user, door, text, found=doc if exact else None)
                if how == "post" and where != "/context":
                    asked.setdefault(user.name, []).append(r.json_body.get("query_id") or "")
        _every_chunk(s, m, user)
        _listings(s, m, user)
    _insights_and_feedback(s, m, asked)
    with capsys.disabled():
        print(
            f"\n[leak matrix, {s.backend}] {m.cells} cells, {len(s.users)} users x {len(DOCS)} documents x "
            f"{len(m.doors)} doors: {len(m.leaks)} leaks, {len(m.missed)} readable documents not found"
        )
    assert not m.leaks, "\n".join(m.leaks[:20])
    assert not m.missed, "\n".join(m.missed[:20])


def _every_chunk(s: Served, m: Matrix, user: User) -> None:
    """GET /chunks/{id} and the MCP get_chunk of every chunk of every document: its readers get it, others a
    404 that does not confirm it exists."""
    for doc in DOCS:
        for cid in s.chunks[doc.path]:
            r = get(s, user, f"/chunks/{cid}")
            readable = user.name in doc.readers
            assert r.status_code == (200 if readable else 404), (s.backend, user.name, doc.path, r.body)
            m.check(s, user, "GET /chunks/{id}", body_of(r).replace(cid, "") if not readable else body_of(r))
            t = tool(s, user, "get_chunk", {"chunk_id": cid, "neighbours": 2})
            m.check(s, user, "mcp get_chunk", body_of(t).replace(cid, "") if not readable else body_of(t))


def _listings(s: Served, m: Matrix, user: User) -> None:
    """What lists documents or counts them: the MCP resources and sources, the document resource of each,
    the bootstrap map of everything, /stats and the MCP stats (whole-index counts: keys that read all)."""
    m.check(s, user, "mcp list_sources", body_of(tool(s, user, "list_sources", {})))
    m.check(s, user, "mcp resources/list", body_of(mcp(s, user, "resources/list", {})))
    for doc in DOCS:
        r = mcp(s, user, "resources/read", {"uri": f"sabio://{doc.source}/{doc.key}"})
        text = body_of(r)
        m.check(
            s, user, "mcp resources/read", text if user.name in doc.readers else text.replace(doc.key, "")
        )
    r = post(s, user, "/retrieve", {"intent": "bootstrap", "lang": "all", "top_k": 30})
    assert r.status_code == 200
    m.check(s, user, "bootstrap map of everything", body_of(r))
    stats = get(s, user, "/stats")
    assert stats.status_code == (200 if user.name == "admin" else 403), (user.name, stats.body)
    m.check(s, user, "GET /stats", body_of(stats))
    m.check(s, user, "mcp stats", body_of(tool(s, user, "stats", {})))


def _insights_and_feedback(s: Served, m: Matrix, asked: dict[str, list[str]]) -> None:
    """Everyone has asked about every document: a user's insights show its own questions, and another's only
    when it may read every chunk that question was shown; feedback is for the one who asked."""
    log = s.container.query_log
    assert log is not None
    records = {q.query_id: q for q in log.queries(time.time() - 86_400)}
    by_name = {u.name: u for u in s.users}
    for user in s.users:
        r = get(s, user, "/insights?days=1")
        assert r.status_code == 200, r.body
        report = r.json_body
        m.check(s, user, "GET /insights", body_of(r))
        allowed = _allowed_texts(s, user, records)
        shown = [e for c in report["missing_topics"] + report["other_language"] for e in c["examples"]]
        stray = [e for e in shown if e not in allowed]
        m.cells += len(shown)
        m.leaks += [f"{s.backend}: {user.name}'s insights show another's question {e!r}" for e in stray]
        for other, ids in asked.items():
            if other == user.name or not ids:
                continue
            f = post(s, user, "/feedback", {"query_id": ids[0], "helpful": False})
            m.cells += 1
            if user.name != "admin" and f.status_code != 403:
                m.leaks.append(
                    f"{s.backend}: {user.name} gave feedback on {other}'s question ({f.status_code})"
                )
            m.check(s, user, "POST /feedback", body_of(f))
    assert by_name


def _allowed_texts(s: Served, user: User, records: dict[str, Any]) -> set[str]:
    """The question texts ``user`` may see in insights: its own, and those whose every shown chunk it may read."""
    if user.name == "admin":
        return {q.text for q in records.values() if q.text}
    readable = {cid for d in DOCS if user.name in d.readers for cid in s.chunks[d.path]}
    out = set()
    for q in records.values():
        own = q.key.endswith("/" + _email(user)) or q.key == {"anon": "app"}.get(user.name)
        if q.text and (own or (q.chunk_ids and set(q.chunk_ids) <= readable)):
            out.add(q.text)
    return out


def _email(user: User) -> str:
    return f"{user.name}@acme.com"


# ---------------------------------------------------------------- what may be read, door by door


def test_each_document_is_read_by_exactly_whom_it_names(served: Served) -> None:
    """The readers each declaration gives (front matter, the folder's default and its line for one file, the
    source's default, the deployment's), as every user's search of everything returns them."""
    s = served
    for user in s.users:
        r = post(s, user, "/retrieve", {"query": "código interno del documento", "lang": "all", "top_k": 50})
        returned = {i["document_id"] for i in r.json_body["items"]}
        expected = {s.doc_ids[d.path] for d in DOCS if user.name in d.readers}
        assert returned == expected, (s.backend, user.name)
    stored = Counter(
        tuple(s.container.chunk_store.get_document(d.source, d.key).readers or ())  # type: ignore[union-attr]
        for d in DOCS
    )
    assert stored[("group:finance",)] == 1 and stored[("user:ana@acme.com",)] == 1
    assert stored[()] == 1 and stored[("group:legal",)] == 1 and stored[("public",)] == 2


def test_a_product_only_a_restricted_document_names_is_not_named_back(served: Served) -> None:
    """The product vocabulary is learned from every document: a caller who may not read Hélice's only
    document is not told, by a product boost, that Hélice exists."""
    s = served
    by_name = {u.name: u for u in s.users}
    question = {"query": "¿Cuántas sillas plegables tiene Hélice?", "lang": "all"}
    admin = post(s, by_name["admin"], "/retrieve", question).json_body
    assert "product_boost" in admin["applied"]
    for name in [n for n in ("anon", "ana", "eve") if n in by_name]:
        r = post(s, by_name[name], "/retrieve", question).json_body
        assert "product_boost" not in r["applied"], (name, r["applied"])


def test_page_calls_only_doors_the_matrix_covers() -> None:
    page = (Path(sabio_app.__file__).parent / "chalicelib" / "web" / "page.js").read_text(encoding="utf-8")
    called = set(re.findall(r'call\("([a-z]+)', page))
    assert called and called <= {"answer", "retrieve", "chunks", "stats", "insights", "feedback", "context"}
