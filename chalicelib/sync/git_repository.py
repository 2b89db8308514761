"""A Git repository as a source: what changed since the commit last synced, read from a local clone.

The clone lives in a work folder (``<store folder>/sync/<source id>/``) with the last synced commit beside it,
so a second sync fetches, diffs and reads only the files that changed; renames and deletions propagate. Each
file's citation link is its page at that commit on the hosting site, when the remote is one (GitHub, GitLab,
Bitbucket, Codeberg).
"""

from __future__ import annotations

import json
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from chalicelib.errors import InvalidInput

GIT_TIMEOUT_S = 600


class GitError(InvalidInput):
    """git could not clone, fetch or read what was asked (its own message says why)."""


@dataclass(frozen=True)
class Changes:
    commit: str  # the commit synced to
    previous: str | None  # the commit synced before (None: the first sync reads every file)
    upserted: list[str] = field(default_factory=list)  # added, modified, or the new side of a rename
    deleted: list[str] = field(default_factory=list)  # deleted, or the old side of a rename


def git(*args: str, cwd: Path | None = None) -> str:
    try:
        done = subprocess.run(
            ["git", *args], cwd=cwd, capture_output=True, text=True, timeout=GIT_TIMEOUT_S, check=False
        )
    except FileNotFoundError as exc:
        raise GitError("git is not installed (sabio sync git needs the git command)") from exc
    if done.returncode != 0:
        raise GitError(f"git {args[0]} failed: {done.stderr.strip() or done.stdout.strip()}")
    return done.stdout


class GitSource:
    def __init__(self, remote: str, workdir: Path, branch: str | None = None) -> None:
        self.remote = str(Path(remote).resolve()) if Path(remote).exists() else remote
        self.workdir = workdir
        self.branch = branch
        self.checkout = workdir / "checkout"

    def sync(self) -> Changes:
        """Clone or fetch, then check out the branch's head: what changed since the last synced commit."""
        self._fetch()
        commit = git("rev-parse", "FETCH_HEAD", cwd=self.checkout).strip()
        git("checkout", "--force", "--detach", commit, cwd=self.checkout)
        previous = self.synced()
        if previous is None or not self._known(previous):
            listed = git("ls-tree", "-r", "-z", "--name-only", commit, cwd=self.checkout)
            return Changes(commit, None, upserted=[p for p in listed.split("\0") if p])
        diff = git("diff", "--name-status", "-z", "-M", previous, commit, cwd=self.checkout)
        return _changes(commit, previous, diff.split("\0"))

    def _fetch(self) -> None:
        if not (self.checkout / ".git").exists():
            self.workdir.mkdir(parents=True, exist_ok=True)
            git("clone", "--no-checkout", "--quiet", self.remote, str(self.checkout))
        ref = self.branch or "HEAD"
        git("fetch", "--quiet", "--force", self.remote, ref, cwd=self.checkout)

    def _known(self, commit: str) -> bool:
        try:
            git("cat-file", "-e", f"{commit}^{{commit}}", cwd=self.checkout)
            return True
        except GitError:
            return False  # history rewritten since: read every file again

    def synced(self) -> str | None:
        state = self.workdir / "state.json"
        return json.loads(state.read_text())["commit"] if state.exists() else None

    def mark_synced(self, commit: str) -> None:
        (self.workdir / "state.json").write_text(json.dumps({"commit": commit, "remote": self.remote}))

    def web_url(self, commit: str, path: str) -> str | None:
        """The file's page at ``commit`` on its hosting site, or None for a remote that is not one."""
        base = hosted(self.remote) or hosted(_origin(self.remote))
        if base is None:
            return None
        kind, root = base
        if kind == "gitlab":
            return f"{root}/-/blob/{commit}/{path}"
        if kind == "bitbucket":
            return f"{root}/src/{commit}/{path}"
        return f"{root}/blob/{commit}/{path}"  # GitHub, Codeberg (Gitea) and what looks like them


def _changes(commit: str, previous: str, fields: list[str]) -> Changes:
    """``git diff --name-status -z -M``: a status, then one path (two for a rename or a copy)."""
    upserted: list[str] = []
    deleted: list[str] = []
    items = iter(f for f in fields if f)
    for status in items:
        if status[0] in "RC":
            old, new = next(items), next(items)
            if status[0] == "R":
                deleted.append(old)
            upserted.append(new)
        elif status[0] == "D":
            deleted.append(next(items))
        else:  # A, M, T (type change)
            upserted.append(next(items))
    return Changes(commit, previous, upserted, deleted)


HOSTS = {
    "github.com": "github",
    "gitlab.com": "gitlab",
    "bitbucket.org": "bitbucket",
    "codeberg.org": "gitea",
}
_REMOTE = re.compile(r"^(?:https?://(?:[^@/]+@)?|git@|ssh://git@)([^/:]+)[/:](.+?)(?:\.git)?/?$")


def hosted(remote: str | None) -> tuple[str, str] | None:
    """(kind, https root) of a GitHub / GitLab / Bitbucket / Codeberg remote, in any of its URL forms."""
    match = _REMOTE.match(remote or "")
    if not match or match.group(1).lower() not in HOSTS:
        return None
    host, path = match.group(1).lower(), match.group(2)
    return HOSTS[host], f"https://{host}/{path}"


def _origin(path: str) -> str | None:
    """A local repository's own ``origin`` remote, whose site its files are cited on."""
    if not Path(path).exists():
        return None
    try:
        return git("config", "--get", "remote.origin.url", cwd=Path(path)).strip() or None
    except GitError:
        return None
