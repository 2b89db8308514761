"""Walking a folder to index: the files to read, and every path left out with its reason (never in silence).

A repository's own rules hold: its ``.gitignore`` files (each for the folder it sits in, as git reads them),
dependency and cache folders, lock files and minified bundles. A folder left out is named once, not file by
file.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from chalicelib.access.principals import FOLDER_FILE
from chalicelib.errors import ExtractionError

# folders of installed dependencies and caches: what a repository depends on, not what it is
DEPENDENCY_FOLDERS = {
    "node_modules": "dependency folder",
    "bower_components": "dependency folder",
    "jspm_packages": "dependency folder",
    "site-packages": "dependency folder",
    "__pycache__": "Python bytecode cache",
}
LOCK_FILES = {
    "package-lock.json", "npm-shrinkwrap.json", "yarn.lock", "pnpm-lock.yaml", "bun.lockb", "poetry.lock",
    "pipfile.lock", "uv.lock", "pdm.lock", "cargo.lock", "gemfile.lock", "composer.lock", "go.sum",
    "packages.lock.json", "podfile.lock", "pubspec.lock", "mix.lock", "flake.lock",
}  # fmt: skip
GENERATED_SUFFIXES = (".min.js", ".min.css", ".min.mjs", ".js.map", ".css.map", ".map")


def rule_for(name: str, is_dir: bool) -> str | None:
    """Why a file or folder named ``name`` is left out by rule, or None."""
    lower = name.lower()
    if is_dir:
        return f"ignored: {DEPENDENCY_FOLDERS[lower]}" if lower in DEPENDENCY_FOLDERS else None
    if lower in LOCK_FILES:
        return "ignored: lock file"
    if lower.endswith(GENERATED_SUFFIXES):
        return "ignored: minified or generated"
    return None


@dataclass(frozen=True)
class _Ignore:
    """One ``.gitignore``: its patterns apply to paths below the folder it sits in."""

    base: str  # the folder, relative to the indexed root ('' for the root)
    spec: Any  # pathspec.GitIgnoreSpec
    source: str  # e.g. 'docs/.gitignore'

    def check(self, key: str, is_dir: bool) -> bool | None:
        """True: ignored, False: re-included by a ``!`` pattern, None: no pattern speaks of it."""
        rel = key[len(self.base) + 1 :] if self.base else key
        result = self.spec.check_file(rel + "/" if is_dir else rel)
        return result.include


def _gitignore(folder: Path, rel: str) -> _Ignore | None:
    path = folder / ".gitignore"
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    import pathspec

    source = f"{rel}/.gitignore" if rel else ".gitignore"
    return _Ignore(rel, pathspec.GitIgnoreSpec.from_lines(lines), source)


def _ignored(key: str, is_dir: bool, rules: list[_Ignore]) -> str | None:
    """The .gitignore that leaves ``key`` out (the deepest one that speaks of it decides), or None."""
    verdict: tuple[bool, str] | None = None
    for rule in rules:
        include = rule.check(key, is_dir)
        if include is not None:
            verdict = (include, rule.source)
    return f"ignored by {verdict[1]}" if verdict and verdict[0] else None


@dataclass
class FolderListing:
    keys: list[str] = field(default_factory=list)  # files to read, relative, '/'-separated, sorted
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (path, reason)
    # folders that could not be read: what was indexed under them before is kept, not deleted as missing
    unreadable: list[str] = field(default_factory=list)


def folder(root: str | Path) -> Path:
    """The folder to index; an ExtractionError when ``root`` is none (checked before anything is opened)."""
    path = Path(root)
    if not path.is_dir():
        raise ExtractionError(f"not a folder: {root}")
    return path


def list_folder(root: Path) -> FolderListing:
    """Follows symlinks (a folder reached twice is a loop, skipped once); hidden entries, what the
    ``.gitignore`` files leave out and what :func:`rule_for` names are skipped, each with its reason."""
    listing = FolderListing()
    visited: set[tuple[int, int]] = set()

    def visit(folder: Path, rel: str, rules: list[_Ignore]) -> None:
        try:
            stat = folder.stat()
            if (stat.st_dev, stat.st_ino) in visited:
                listing.skipped.append((rel, "symlink loop: this folder is already being indexed"))
                return
            visited.add((stat.st_dev, stat.st_ino))
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError as exc:
            listing.skipped.append((rel or ".", f"unreadable folder: {exc.strerror or exc}"))
            listing.unreadable.append(rel)
            return
        here = _gitignore(folder, rel)
        rules = [*rules, here] if here else rules
        for entry in entries:
            key = f"{rel}/{entry.name}" if rel else entry.name
            if entry.name == FOLDER_FILE:  # who may read this folder: read by permissions, not a document
                continue
            if entry.name.startswith("."):
                listing.skipped.append((key, "hidden"))
                continue
            try:
                is_dir = entry.is_dir()
                reason = rule_for(entry.name, is_dir) or _ignored(key, is_dir, rules)
                if reason:
                    listing.skipped.append((key, reason))
                elif is_dir:
                    visit(Path(entry.path), key, rules)
                elif entry.is_file():
                    listing.keys.append(key)
                elif entry.is_symlink():
                    listing.skipped.append((key, "broken symlink"))
                else:
                    listing.skipped.append((key, "not a regular file"))
            except OSError as exc:  # e.g. a symlink that points at itself
                listing.skipped.append((key, f"unreadable: {exc.strerror or exc}"))

    visit(root, "", [])
    listing.keys.sort()
    return listing
