"""``sabio sync git``: a repository made here (commits, a rename, deletions, a binary and a large file)
synced into a real SQLite store; only what changed is read again, citations point at the commit."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from chalicelib.enrichment.vocabulary import Vocabulary
from chalicelib.ingest.index_status import index_status
from chalicelib.ingest.indexer import IngestConfig, Ingestor
from chalicelib.models.records import SearchFilters
from chalicelib.stores.sqlite import SQLiteStore
from chalicelib.sync import git as git_sync
from chalicelib.sync.git_repository import GitError, GitSource, hosted
from chalicelib.sync.targets import IndexTarget

NOTES = {
    f"policies/p{n}.md": f"# Política {n}\n\nLa política número {n} se revisa cada año.\n" for n in range(8)
}


def git(repo: Path, *args: str) -> str:
    command = ["git", "-c", "user.name=Test", "-c", "user.email=t@example.com", *args]
    return subprocess.run(command, cwd=repo, capture_output=True, text=True, check=True).stdout.strip()


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    repo = tmp_path / "handbook"
    repo.mkdir()
    git(repo, "init", "--quiet", "--initial-branch=main")
    git(repo, "remote", "add", "origin", "git@github.com:acme/handbook.git")
    files = {
        **NOTES,
        "guide.md": "# Guía\n\nLas vacaciones se piden en el portal con dos semanas de antelación.\n",
        "old-name.md": "# Gastos\n\nLos tickets de taxi se reembolsan en 30 días.\n",
        "logo.png": b"\x89PNG\r\n\x1a\n\x00\x00binary",
        "big.txt": "palabra " * 1000,
        "node_modules/dep/index.js": "module.exports = 1;\n",
    }
    for name, content in files.items():
        path = repo / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content if isinstance(content, bytes) else content.encode())
    git(repo, "add", "--all")
    git(repo, "commit", "--quiet", "-m", "first")
    return repo


@pytest.fixture
def synced(repo: Path, tmp_path: Path, fake_embedder):  # type: ignore[no-untyped-def]
    store = SQLiteStore(tmp_path / "s.db")
    ingestor = Ingestor(store, store, fake_embedder, Vocabulary(), IngestConfig(max_file_bytes=4000))
    source = GitSource(str(repo), tmp_path / "sync" / "handbook")
    return store, ingestor, source


def search(store: SQLiteStore, text: str) -> list[str]:
    return [h.chunk_id for h in store.keyword_search(text, SearchFilters(), 20)]


def test_the_first_sync_reads_every_file_and_cites_it_at_its_commit(synced, repo: Path):
    store, ingestor, source = synced
    report, changes = git_sync.sync(IndexTarget(ingestor), source, "handbook")
    assert changes.previous is None and changes.commit == git(repo, "rev-parse", "HEAD")
    assert report.added == len(NOTES) + 2  # the notes, guide.md, old-name.md
    assert [k for k, _ in report.failed] == ["big.txt"]  # over the size limit: recorded, not silent
    skipped = dict(report.skipped)
    assert "logo.png" in skipped and "node_modules" in skipped  # binary; a dependency folder, by rule
    guide = store.get_document("handbook", "guide.md")
    assert guide is not None
    url = store.document_chunks(guide.document_id)[0].url or ""
    assert url.startswith(f"https://github.com/acme/handbook/blob/{changes.commit}/guide.md")


def test_a_second_sync_reads_only_what_changed_renames_and_deletes(synced, repo: Path, fake_embedder):
    store, ingestor, source = synced
    git_sync.sync(IndexTarget(ingestor), source, "handbook")
    (repo / "guide.md").write_text("# Guía\n\nLas vacaciones se piden con tres semanas de antelación.\n")
    git(repo, "mv", "old-name.md", "gastos.md")
    git(repo, "rm", "--quiet", "policies/p0.md")
    git(repo, "commit", "--quiet", "-am", "second")
    fake_embedder.embedded.clear()

    report, changes = git_sync.sync(IndexTarget(ingestor), source, "handbook")
    assert changes.previous is not None
    assert (report.updated, report.added, report.deleted) == (1, 1, 2)
    assert store.get_document("handbook", "old-name.md") is None and store.get_document(
        "handbook", "gastos.md"
    )
    assert search(store, "tres") and not search(store, "dos")
    embedded = fake_embedder.embedded  # the edited and the renamed file's texts, nothing else
    assert embedded and all(any(w in t for w in ("Gastos", "Guía", "taxi", "vacaciones")) for t in embedded)

    fake_embedder.embedded.clear()
    again, same = git_sync.sync(
        IndexTarget(ingestor), source, "handbook"
    )  # nothing new upstream: nothing read
    assert same.commit == changes.commit and (again.added, again.updated, again.deleted) == (0, 0, 0)
    assert fake_embedder.embedded == []


def test_a_commit_that_deletes_most_of_the_source_is_held_until_confirmed(synced, repo: Path):
    store, ingestor, source = synced
    first, _ = git_sync.sync(IndexTarget(ingestor), source, "handbook")
    git(repo, "rm", "--quiet", "-r", "policies")
    git(repo, "commit", "--quiet", "-m", "a script gone wrong")

    held, changes = git_sync.sync(IndexTarget(ingestor), source, "handbook")
    assert held.deleted == 0 and sorted(held.held) == sorted(NOTES)
    assert search(store, "política") and len(index_status(store).held_deletions) == len(NOTES)
    assert source.synced() != changes.commit  # not marked done: the next run proposes it again

    confirmed, _ = git_sync.sync(IndexTarget(ingestor), source, "handbook", confirm_deletions=True)
    assert confirmed.deleted == len(NOTES) and not search(store, "política")
    assert source.synced() == changes.commit and index_status(store).held_deletions == []


def test_a_repository_that_cannot_be_read_is_a_clear_error(tmp_path: Path, fake_embedder):
    store = SQLiteStore(tmp_path / "s.db")
    ingestor = Ingestor(store, store, fake_embedder, Vocabulary())
    with pytest.raises(GitError, match="git clone failed"):
        git_sync.sync(IndexTarget(ingestor), GitSource(str(tmp_path / "nothing-here"), tmp_path / "w"), "x")


@pytest.mark.parametrize(
    ("remote", "expected"),
    [
        ("https://github.com/acme/handbook.git", ("github", "https://github.com/acme/handbook")),
        ("git@github.com:acme/handbook.git", ("github", "https://github.com/acme/handbook")),
        ("ssh://git@gitlab.com/group/sub/repo.git", ("gitlab", "https://gitlab.com/group/sub/repo")),
        ("https://user:token@bitbucket.org/team/repo", ("bitbucket", "https://bitbucket.org/team/repo")),
        ("https://git.internal.example/acme/repo.git", None),
        ("/srv/repos/handbook", None),
    ],
)
def test_hosted_remotes_are_read_in_every_url_form(remote: str, expected):  # type: ignore[no-untyped-def]
    assert hosted(remote) == expected


def test_the_scheduled_sync_writes_the_repository_into_the_bucket(repo: Path, tmp_path: Path, monkeypatch):
    """On AWS the sync lands objects where the indexer already looks (the bucket, under the source's prefix,
    each with its link), keeps its state there, writes only what changed, and holds a mass deletion."""
    import boto3
    from moto import mock_aws

    from chalicelib.ingest.s3_events import ObjectEvent
    from chalicelib.ingest.s3_indexer import S3Indexer
    from indexer import handler

    spec = {"kind": "git", "location": str(repo), "source_id": "handbook", "prefix": "repos/handbook/"}
    with mock_aws():
        s3 = boto3.client("s3", region_name="us-east-1")
        s3.create_bucket(Bucket="docs")
        monkeypatch.setenv("SABIO_SYNC_SOURCES", json.dumps([spec]))
        monkeypatch.setenv("SABIO_SYNC_BUCKET", "docs")
        monkeypatch.setenv("SABIO_STORE_PATH", str(tmp_path / "unused.db"))
        monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")

        def objects() -> dict[str, str]:
            listed = s3.list_objects_v2(Bucket="docs").get("Contents", [])
            return {o["Key"]: o["ETag"] for o in listed}

        # every file the folder rules keep lands (the indexer then reads, skips or refuses each, as for any upload)
        assert handler.sync({}, None) == {"handbook": {"written": 12, "deleted": 0, "held": 0, "failed": 0}}
        first = objects()
        assert "repos/handbook/guide.md" in first and "_sabio/sync/handbook/state.json" in first
        head = s3.head_object(Bucket="docs", Key="repos/handbook/guide.md")
        assert head["Metadata"]["url"].startswith("https://github.com/acme/handbook/blob/")

        (repo / "guide.md").write_text("# Guía\n\nLas vacaciones se piden con tres semanas de antelación.\n")
        git(repo, "rm", "--quiet", "policies/p0.md")
        git(repo, "commit", "--quiet", "-am", "second")
        assert handler.sync({}, None)["handbook"] == {"written": 1, "deleted": 1, "held": 0, "failed": 0}
        second = objects()
        changed = {k for k in second if first.get(k) != second[k]} - {"_sabio/sync/handbook/state.json"}
        assert changed == {"repos/handbook/guide.md"} and "repos/handbook/policies/p0.md" not in second

        git(repo, "rm", "--quiet", "-r", "policies")
        git(repo, "commit", "--quiet", "-m", "a script gone wrong")
        assert handler.sync({}, None)["handbook"]["held"] == len(NOTES) - 1
        assert sum(k.startswith("repos/handbook/policies/") for k in objects()) == len(NOTES) - 1

        indexer = S3Indexer(None, None, s3, {})  # type: ignore[arg-type]  # Sabio's own objects are no documents
        assert (
            indexer.apply(ObjectEvent("docs", "_sabio/sync/handbook/state.json", "created", "1"))
            == "unmapped"
        )


def test_a_branch_is_followed_when_named(repo: Path, tmp_path: Path, fake_embedder):
    git(repo, "checkout", "--quiet", "-b", "release")
    (repo / "release-notes.md").write_text("# Notas\n\nLa versión 2 añade informes mensuales.\n")
    git(repo, "add", "release-notes.md")
    git(repo, "commit", "--quiet", "-m", "release")
    git(repo, "checkout", "--quiet", "main")
    store = SQLiteStore(tmp_path / "s.db")
    ingestor = IndexTarget(Ingestor(store, store, fake_embedder, Vocabulary()))
    on_main, _ = git_sync.sync(ingestor, GitSource(str(repo), tmp_path / "w-main"), "main")
    on_release, _ = git_sync.sync(ingestor, GitSource(str(repo), tmp_path / "w-rel", branch="release"), "rel")
    assert store.get_document("main", "release-notes.md") is None
    assert store.get_document("rel", "release-notes.md") is not None and on_release.added == on_main.added + 1


def test_a_renamed_file_keeps_its_vectors(synced, repo: Path, fake_embedder):
    """A rename changes no text: its chunks are not embedded again (it was "chunks reused 0")."""
    store, ingestor, source = synced
    git_sync.sync(IndexTarget(ingestor), source, "handbook")
    chunks = len(store.document_chunks(store.get_document("handbook", "old-name.md").document_id))  # type: ignore[union-attr]
    git(repo, "mv", "old-name.md", "gastos.md")
    git(repo, "commit", "--quiet", "-m", "renamed")
    fake_embedder.embedded.clear()

    report, _ = git_sync.sync(IndexTarget(ingestor), source, "handbook")
    assert (report.added, report.deleted) == (1, 1)
    assert (report.chunks_reused, report.chunks_embedded) == (chunks, 0)
    assert fake_embedder.embedded == []  # neither its chunks nor what an answer may quote from them
    assert search(store, "taxi") and store.get_document("handbook", "old-name.md") is None
