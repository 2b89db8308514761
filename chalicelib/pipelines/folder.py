"""Walking a folder to index: the files to read, and every path left out with its reason (never in silence)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class FolderListing:
    keys: list[str] = field(default_factory=list)  # files to read, relative, '/'-separated, sorted
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (path, reason)
    # folders that could not be read: what was indexed under them before is kept, not deleted as missing
    unreadable: list[str] = field(default_factory=list)


def list_folder(root: Path) -> FolderListing:
    """Follows symlinks (a folder reached twice is a loop, skipped once); hidden entries are skipped."""
    listing = FolderListing()
    visited: set[tuple[int, int]] = set()

    def visit(folder: Path, rel: str) -> None:
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
        for entry in entries:
            key = f"{rel}/{entry.name}" if rel else entry.name
            if entry.name.startswith("."):
                listing.skipped.append((key, "hidden"))
                continue
            try:
                if entry.is_dir():
                    visit(Path(entry.path), key)
                elif entry.is_file():
                    listing.keys.append(key)
                elif entry.is_symlink():
                    listing.skipped.append((key, "broken symlink"))
                else:
                    listing.skipped.append((key, "not a regular file"))
            except OSError as exc:  # e.g. a symlink that points at itself
                listing.skipped.append((key, f"unreadable: {exc.strerror or exc}"))

    visit(root, "")
    listing.keys.sort()
    return listing
