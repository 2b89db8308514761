"""docs/architecture.md opens with a map of the packages: it names every package of the runtime and of the
developer tools, and no package that is gone."""

from __future__ import annotations

import re

from tests.conftest import ROOT


def _mapped() -> set[str]:
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    section = text.split("## The packages", 1)[1].split("\n## ", 1)[0]
    return {m.group(1).rstrip("/") for m in re.finditer(r"^\| `([\w./]+)` \|", section, re.M)}


def _packages() -> set[str]:
    found = set()
    for top in ("chalicelib", "sabio"):
        for init in (ROOT / top).rglob("__init__.py"):
            found.add(init.parent.relative_to(ROOT).as_posix())
    return found


def test_the_map_names_every_package_and_only_those():
    mapped = {m for m in _mapped() if m.startswith(("chalicelib", "sabio"))}
    assert mapped == _packages(), (
        f"missing from the map: {sorted(_packages() - mapped)}; gone: {sorted(mapped - _packages())}"
    )


def test_the_folders_it_names_exist():
    missing = [m for m in _mapped() if not (ROOT / m).exists()]
    assert not missing, missing
