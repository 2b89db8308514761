"""Indexing a folder leaves nothing out in silence: unreadable folders, symlink loops, hidden and odd paths."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from chalicelib.ingest.folder_walk import list_folder
from chalicelib.ingest.indexer import Ingestor


def tree(root: Path) -> Path:
    (root / "docs" / "deep").mkdir(parents=True)
    (root / "docs" / "a.md").write_text("# A\n\nLa política de vacaciones da 23 días al año.\n")
    (root / "docs" / "deep" / "b.md").write_text("# B\n\nEl reembolso de gastos tarda cinco días.\n")
    (root / ".git").mkdir()
    (root / ".git" / "config").write_text("x")
    (root / "docs" / "deep" / "loop").symlink_to(root / "docs")  # a folder that contains itself
    (root / "self").symlink_to(root / "self")  # a symlink that points at itself
    (root / "gone.md").symlink_to(root / "nowhere.md")
    os.mkfifo(root / "pipe")
    return root


def test_every_path_not_indexed_is_named_with_its_reason(tmp_path: Path):
    listing = list_folder(tree(tmp_path))
    assert listing.keys == ["docs/a.md", "docs/deep/b.md"]
    reasons = dict(listing.skipped)
    assert reasons[".git"] == "hidden"
    assert reasons["docs/deep/loop"].startswith("symlink loop")
    assert reasons["gone.md"] == "broken symlink"
    assert reasons["pipe"] == "not a regular file"
    assert "self" in reasons


def test_an_unreadable_folder_is_reported_and_its_documents_kept(
    ingestor: Ingestor, store, tmp_path: Path, monkeypatch
):  # type: ignore[no-untyped-def]
    root = tree(tmp_path)
    first = ingestor.index_folder(root, "s")
    assert first.added == 2
    real_scandir = os.scandir

    def scandir(path):  # type: ignore[no-untyped-def]
        if str(path).endswith("deep"):  # as if chmod 000 (root reads anything, so the test fakes it)
            raise PermissionError(13, "Permission denied")
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    again = ingestor.index_folder(root, "s")
    assert ("docs/deep", "unreadable folder: Permission denied") in again.skipped
    assert again.deleted == 0  # b.md was not seen this time, but it is not gone: it stays searchable
    assert {d.key for d in store.list_documents("s") if d.status == "indexed"} == {
        "docs/a.md",
        "docs/deep/b.md",
    }


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads a chmod 000 folder anyway")
def test_a_chmod_000_folder_is_reported(tmp_path: Path):
    root = tree(tmp_path)
    (root / "docs" / "deep").chmod(0)
    try:
        assert ("docs/deep", "unreadable folder: Permission denied") in list_folder(root).skipped
    finally:
        (root / "docs" / "deep").chmod(0o755)


def test_the_cli_prints_what_was_skipped(tmp_path: Path):
    import subprocess
    import sys

    from tests.conftest import ROOT

    root = tree(tmp_path / "t")
    out = subprocess.run(
        [sys.executable, "-m", "sabio.cli", "--store", str(tmp_path / "s.db"), "index", str(root)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr
    assert (
        "skipped docs/deep/loop: symlink loop" in out.stdout
        and "skipped pipe: not a regular file" in out.stdout
    )
