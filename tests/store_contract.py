"""The store contract: every ChunkStore + VectorIndex backend subclasses StoreContract with a ``make`` fixture."""

from __future__ import annotations

import numpy as np
import pytest

from chalicelib.errors import EmbeddingModelMismatch
from chalicelib.ids import document_id
from chalicelib.models.records import DocumentRecord, EmbeddingSpace, Enrichment, SearchFilters, StoredChunk
from tests.fakes import HashEmbedder

EMB = HashEmbedder()
SPACE = EMB.space
# document ids as every backend derives them from (source id, key); chunk ids start with their document's
DOC = {
    "d1": document_id("s1", "docs/a.md"),
    "d2": document_id("s1", "docs/marea.md"),
    "d3": document_id("s2", "en/restore.md"),
    "d4": document_id("s1", "guias/copias.md"),
}
ID = {
    name: f"{DOC[doc]}:{name}"
    for name, doc in (("c1", "d1"), ("c2", "d2"), ("c3", "d3"), ("c4", "d4"), ("c9", "d1"))
}


def chunk(
    cid: str,
    text: str,
    *,
    doc: str = "d1",
    source: str = "s1",
    lang: str = "es",
    product: str = "faro",
    ctype: str = "overview",
    category: str = "Docs",
    tags: tuple[str, ...] = (),
    key: str = "docs/a.md",
    questions: tuple[str, ...] = (),
    readers: tuple[str, ...] = (),
) -> StoredChunk:
    doc = DOC.get(doc, doc)
    return StoredChunk(
        chunk_id=cid if ":" in cid else f"{doc}:{cid}",
        document_id=doc,
        source_id=source,
        key=key,
        ord=0,
        title=f"Title {cid}",
        section_title="S",
        heading_path=["S"],
        content=text,
        embedding_text=text,
        enrichment=Enrichment(
            summary=text[:40], keywords=["k"], questions=list(questions), product=product, content_type=ctype
        ),
        lang=lang,
        product=product,
        content_type=ctype,
        category=category,
        tags=list(tags),
        readers=list(readers),
        content_hash=cid,
        vector=EMB.embed_query(text).tolist(),
    )


CORPUS = [
    chunk(
        "c1",
        "El plan Profesional cuesta 49 euros por agente al mes",
        product="faro",
        ctype="pricing",
        tags=("public",),
        readers=("public",),
    ),
    chunk(
        "c2",
        "Las automatizaciones de Marea envían correos con plantillas",
        product="marea",
        doc="d2",
        key="docs/marea.md",
        readers=("group:finance",),
    ),
    chunk(
        "c3",
        "Restore a database to any second with point in time recovery",
        lang="en",
        product="ancla",
        doc="d3",
        source="s2",
        key="en/restore.md",
        tags=("internal",),
        readers=("group:hr", "user:ana@acme.com"),
    ),
    chunk(
        "c4",
        "Configurar la copia de seguridad cifrada de PostgreSQL",
        product="ancla",
        doc="d4",
        category="Guides",
        key="guias/copias.md",
        tags=("public", "internal"),
    ),
]


class ChunkStoreContract:
    """Every ChunkStore backend subclasses this with a ``make`` fixture returning a fresh, empty store."""

    @pytest.fixture
    def stored(self, make):  # type: ignore[no-untyped-def]
        store = make()
        store.put_chunks(CORPUS)
        return store

    def test_put_get_and_list_documents(self, make):
        store = make()
        rec = DocumentRecord(
            document_id=document_id("s1", "a.md"), source_id="s1", key="a.md", content_hash="h", chunk_count=2
        )
        store.put_document(rec)
        store.put_document(
            DocumentRecord(
                document_id=document_id("s9", "b.md"),
                source_id="s9",
                key="b.md",
                status="failed",
                error="binary file",
            )
        )
        assert store.get_document("s1", "a.md") == rec
        assert store.get_document("s1", "missing.md") is None
        assert [d.document_id for d in store.list_documents("s1")] == [rec.document_id]
        assert store.list_documents("s9")[0].error == "binary file"
        assert len(store.list_documents()) == 2

    def test_deletions_are_counted_per_source_and_window(self, make):
        """The mass-delete guard's ledger of S3 events: one count per source and hour, whoever adds to it."""
        store, other = make(), None
        assert [store.count_deletion("s1", "2026-12-04T07") for _ in range(3)] == [1, 2, 3]
        assert store.count_deletion("s2", "2026-12-04T07") == 1
        assert store.count_deletion("s1", "2026-12-04T08") == 1
        assert store.list_documents() == [] and other is None  # the counts are no documents

    def test_a_held_deletion_is_kept_with_its_document(self, make):
        """The mass-delete guard's mark survives a round trip, and clearing it clears it."""
        store = make()
        rec = DocumentRecord(
            document_id=document_id("s1", "a.md"),
            source_id="s1",
            key="a.md",
            updated_at=2.0,
            delete_held_at=2.0,
        )
        store.put_document(rec)
        assert store.get_document("s1", "a.md") == rec
        store.put_document(rec.model_copy(update={"delete_held_at": None, "updated_at": 3.0}))
        assert store.get_document("s1", "a.md").delete_held_at is None

    def test_chunks_round_trip_with_enrichment(self, stored):
        got = stored.get_chunks([ID["c2"], "d9:missing", ID["c1"]])
        assert [c.chunk_id for c in got] == [ID["c2"], ID["c1"]]
        assert got[1].enrichment.content_type == "pricing" and got[1].tags == ["public"]
        assert [c.chunk_id for c in stored.document_chunks(DOC["d1"])] == [ID["c1"]]
        assert stored.get_chunks([]) == []

    def test_put_chunks_is_idempotent_and_replaces(self, stored):
        stored.put_chunks(CORPUS)
        stored.put_chunks([chunk(ID["c1"], "Texto nuevo")])
        assert stored.get_chunks([ID["c1"]])[0].content == "Texto nuevo"
        assert stored.stats().chunks == 4

    def test_delete_chunks_and_documents(self, stored):
        stored.delete_chunks([ID["c1"], ID["c1"], "d7:absent"])
        assert stored.get_chunks([ID["c1"]]) == []
        stored.put_document(DocumentRecord(document_id=DOC["d2"], source_id="s1", key="docs/marea.md"))
        stored.delete_document(DOC["d2"])
        assert stored.get_document("s1", "docs/marea.md") is None and stored.get_chunks([ID["c2"]]) == []
        assert stored.document_chunks(DOC["d2"]) == [] and len(stored.get_chunks([ID["c3"], ID["c4"]])) == 2

    def test_many_chunks_survive_batching(self, make):
        store = make()
        many = [chunk(f"x{i}", f"texto {i}", doc="dx") for i in range(60)]
        store.put_chunks(many)
        assert len(store.document_chunks("dx")) == 60
        assert len(store.get_chunks([c.chunk_id for c in many])) == 60
        store.delete_document("dx")
        assert store.document_chunks("dx") == []

    def test_enrichment_cache(self, make):
        store = make()
        assert store.cached_enrichment("k") is None
        store.cache_enrichment("k", '{"summary": "s"}')
        assert store.cached_enrichment("k") == '{"summary": "s"}'

    def test_stats_count_by_facet(self, stored):
        stats = stored.stats()
        assert stats.chunks == 4
        assert stats.by_lang == {"es": 3, "en": 1}
        assert stats.by_product["ancla"] == 2 and stats.by_source == {"s1": 3, "s2": 1}


class VectorIndexContract:
    """Every VectorIndex backend subclasses this with a ``make`` fixture returning a fresh, empty index."""

    @pytest.fixture
    def loaded(self, make):  # type: ignore[no-untyped-def]
        store = make()
        if hasattr(store, "put_chunks"):
            store.put_chunks(CORPUS)
        store.upsert_chunks(CORPUS, SPACE)
        return store

    def test_dense_search_ranks_the_closest_chunk_first(self, loaded):
        hits = loaded.dense_search(
            EMB.embed_query("plan Profesional euros agente"), SPACE, SearchFilters(), 3
        )
        assert hits[0].chunk_id == ID["c1"] and len(hits) == 3
        assert hits[0].score >= hits[1].score >= hits[2].score

    def test_dense_scores_are_cosine_similarities(self, loaded):
        # every backend reports the same scale: retrieve weighs hubs down in cosine points (to 1e-3: the
        # embedded store keeps its vectors as float16, which moves a sparse vector's cosine by up to ~3e-4)
        query = EMB.embed_query("plan Profesional euros agente")
        vectors = {c.chunk_id: np.asarray(c.vector, dtype=np.float64) for c in CORPUS}
        for hit in loaded.dense_search(query, SPACE, SearchFilters(), 4):
            v = vectors[hit.chunk_id]
            expected = float(v @ query / (np.linalg.norm(v) * np.linalg.norm(query)))
            assert hit.score == pytest.approx(expected, abs=1e-3), hit

    def test_keyword_search_is_accent_insensitive_and_stemmed(self, loaded):
        assert loaded.keyword_search("automatizacion", SearchFilters(), 5)[0].chunk_id == ID["c2"]
        assert (
            loaded.keyword_search("copias cifradas", SearchFilters(langs=("es",)), 5)[0].chunk_id == ID["c4"]
        )
        assert loaded.keyword_search("restoring databases", SearchFilters(), 5)[0].chunk_id == ID["c3"]
        assert loaded.keyword_search("???", SearchFilters(), 5) == []

    def test_code_is_found_by_the_words_inside_its_names_and_by_its_context(self, make):
        store = make()
        code = chunk(
            "c9", "if (busy) {\n  return DBImpl::MakeRoomForWrite(force);\n}", key="db/db_impl.cc", lang="en"
        )
        code = code.model_copy(
            update={
                "kind": "code",
                "enrichment": Enrichment(context="Writers wait while the journal rotates."),
            }
        )
        prose = chunk("c1", "The ProseWordsGlued call also spells MakeRoomForWrite.", lang="en")
        if hasattr(store, "put_chunks"):
            store.put_chunks([code, prose])
        store.upsert_chunks([code, prose], SPACE)
        assert [h.chunk_id for h in store.keyword_search("room for write", SearchFilters(), 5)] == [
            code.chunk_id
        ]
        assert [h.chunk_id for h in store.keyword_search("journal rotates", SearchFilters(), 5)] == [
            code.chunk_id
        ]
        assert {h.chunk_id for h in store.keyword_search("MakeRoomForWrite", SearchFilters(), 5)} == {
            code.chunk_id,
            prose.chunk_id,
        }

    @pytest.mark.parametrize(
        ("filters", "expected"),
        [
            (SearchFilters(source_ids=("s2",)), {ID["c3"]}),
            (SearchFilters(langs=("es",)), {ID["c1"], ID["c2"], ID["c4"]}),
            (SearchFilters(products=("ancla",)), {ID["c3"], ID["c4"]}),
            (SearchFilters(content_types=("pricing",)), {ID["c1"]}),
            (SearchFilters(categories=("Guides",)), {ID["c4"]}),
            (SearchFilters(tags=("internal",)), {ID["c3"], ID["c4"]}),
            (SearchFilters(tags=()), set()),
            (SearchFilters(source_ref="docs/"), {ID["c1"], ID["c2"]}),
            (SearchFilters(products=("ancla",), langs=("es",)), {ID["c4"]}),
            (SearchFilters(source_ids=()), set()),
            (SearchFilters(allowed_readers=("public",)), {ID["c1"]}),
            (SearchFilters(allowed_readers=("public", "group:finance")), {ID["c1"], ID["c2"]}),
            (SearchFilters(allowed_readers=("public", "user:ana@acme.com")), {ID["c1"], ID["c3"]}),
            (SearchFilters(allowed_readers=("group:Finance", "group:legal")), set()),
            (SearchFilters(allowed_readers=()), set()),
            (SearchFilters(allowed_readers=("public", "group:hr"), langs=("en",)), {ID["c3"]}),
        ],
    )
    def test_filters_apply_before_scoring(self, loaded, filters, expected):
        dense = loaded.dense_search(EMB.embed_query("plan"), SPACE, filters, 10)
        assert {h.chunk_id for h in dense} == expected
        words = "plan Marea restore copia"
        sparse = loaded.keyword_search(words, filters, 10)
        assert {h.chunk_id for h in sparse} <= expected

    def test_readers_change_in_place_for_every_search(self, loaded):
        loaded.set_readers([ID["c4"]], ["group:finance"])
        loaded.set_readers([ID["c1"]], [])  # withdrawn from everyone
        finance = SearchFilters(allowed_readers=("public", "group:finance"))
        assert {h.chunk_id for h in loaded.dense_search(EMB.embed_query("copia"), SPACE, finance, 10)} == {
            ID["c2"],
            ID["c4"],
        }
        assert [h.chunk_id for h in loaded.keyword_search("copia cifrada", finance, 5)] == [ID["c4"]]
        assert loaded.keyword_search("euros", SearchFilters(allowed_readers=("public",)), 5) == []
        assert np.allclose(
            loaded.get_vectors([ID["c4"]])[ID["c4"]], CORPUS[3].vector, atol=1e-3
        )  # float16 on disk

    def test_upsert_is_idempotent(self, loaded):
        loaded.upsert_chunks(CORPUS, SPACE)
        hits = loaded.dense_search(EMB.embed_query("plan"), SPACE, SearchFilters(), 100)
        assert sorted(h.chunk_id for h in hits) == sorted(ID[c] for c in ("c1", "c2", "c3", "c4"))
        assert len(loaded.keyword_search("plan", SearchFilters(), 100)) == 1

    def test_upsert_replaces_text_and_metadata(self, loaded):
        changed = chunk(ID["c1"], "Nuevo texto sobre tarifas anuales", product="marea", tags=("public",))
        loaded.upsert_chunks([changed], SPACE)
        assert loaded.keyword_search("euros", SearchFilters(), 5) == []
        assert [h.chunk_id for h in loaded.keyword_search("tarifas anuales", SearchFilters(), 5)] == [
            ID["c1"]
        ]
        assert {
            h.chunk_id
            for h in loaded.dense_search(EMB.embed_query("x"), SPACE, SearchFilters(products=("marea",)), 9)
        } == {ID["c1"], ID["c2"]}

    def test_delete_removes_from_every_search(self, loaded):
        loaded.delete_chunks([ID["c1"]])
        assert loaded.get_vectors([ID["c1"]]) == {}
        assert ID["c1"] not in {
            h.chunk_id for h in loaded.dense_search(EMB.embed_query("plan"), SPACE, SearchFilters(), 10)
        }
        assert loaded.keyword_search("euros", SearchFilters(), 5) == []

    def test_vectors_can_be_read_back(self, loaded):
        vectors = loaded.get_vectors([ID["c1"], "nope"])
        assert set(vectors) == {ID["c1"]}
        assert np.allclose(vectors[ID["c1"]], CORPUS[0].vector, atol=1e-3)  # float16 on disk

    def test_a_query_from_another_model_is_refused(self, loaded):
        other = EmbeddingSpace("another-model", SPACE.dim)
        with pytest.raises(EmbeddingModelMismatch, match="fake-hash"):
            loaded.dense_search(np.zeros(SPACE.dim, np.float32), other, SearchFilters(), 3)
        with pytest.raises(EmbeddingModelMismatch):
            loaded.upsert_chunks(CORPUS[:1], EmbeddingSpace(SPACE.model_id, SPACE.dim * 2))


class StoreContract(ChunkStoreContract, VectorIndexContract):
    """A backend that is both (the embedded SQLite store): deleting a document empties both roles."""

    def test_delete_document_takes_its_chunks(self, loaded):
        loaded.put_document(DocumentRecord(document_id=DOC["d2"], source_id="s1", key="docs/marea.md"))
        loaded.delete_document(DOC["d2"])
        assert loaded.get_document("s1", "docs/marea.md") is None
        assert loaded.get_chunks([ID["c2"]]) == []
        assert ID["c2"] not in {
            h.chunk_id for h in loaded.dense_search(EMB.embed_query("Marea"), SPACE, SearchFilters(), 10)
        }
