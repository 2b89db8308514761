"""Where a synced source keeps its state on this machine, and the command that applies a source's held
deletions: the one that indexed it, again with ``--confirm-deletions`` (``sabio sync git URL``, ``sabio sync
web URL``, ``sabio index PATH``; on AWS, ``sabio reconcile``)."""

from __future__ import annotations

import json
import shlex
import urllib.parse
from pathlib import Path

CONFIRM = "--confirm-deletions"


def workdir(store_path: str | Path, source_id: str) -> Path:
    """A synced source's folder beside the store: its clone (git) or its pages' state (web)."""
    return Path(store_path).parent / "sync" / source_id


def git_source_id(repository: str) -> str:
    """The source id ``sabio sync git`` gives a repository by default: its name."""
    return Path(repository.rstrip("/")).name.removesuffix(".git")


def web_source_id(url: str) -> str:
    """The source id ``sabio sync web`` gives a site by default: its host name."""
    return urllib.parse.urlsplit(url).hostname or "web"


def confirming_command(store_path: str | Path, source_id: str, default_source_id: str, deployed: bool) -> str:
    """The command that deletes ``source_id``'s held documents (``deployed``: the bucket's events indexed it)."""
    if deployed:
        return f"sabio reconcile --bucket BUCKET {CONFIRM}"
    folder = workdir(store_path, source_id)
    state = _state(folder / "state.json")
    if "start" in state:
        url = str(state["start"])
        return f"sabio sync web {shlex.quote(url)}{_named(source_id, web_source_id(url))} {CONFIRM}"
    if "remote" in state or (folder / "checkout" / ".git").exists():
        remote = str(state.get("remote") or "REPOSITORY")
        return f"sabio sync git {shlex.quote(remote)}{_named(source_id, git_source_id(remote))} {CONFIRM}"
    return f"sabio index PATH{_named(source_id, default_source_id)} {CONFIRM}"


def _named(source_id: str, default: str) -> str:
    return "" if source_id == default else f" --source-id {shlex.quote(source_id)}"


def _state(path: Path) -> dict[str, object]:
    try:
        found = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError):
        return {}
    return found if isinstance(found, dict) else {}
