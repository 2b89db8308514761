"""The code stays readable: a newcomer finds a room by its name and can hold what is in it.

- the runtime's use cases and stores: no function over 50 lines, no class over 300 (a class that grows past it
  is holding two things; split it as retrieve and the embedded store were);
- everywhere in chalicelib/ and sabio/: no function over 60 lines, no module over 400, no folder of more than
  15 modules;
- bench/ (timing benchmarks): no file over 300 lines."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.conftest import ROOT

USE_CASES = (
    "answer",
    "question",
    "retrieve",
    "maps",
    "ingest",
    "sync",
    "usage",
    "access",
    "stores",
    "conversation",
)


def _defs(path: Path) -> list[tuple[str, int, int]]:
    """(name, first line, length) of every function and class in ``path``."""
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            length = (node.end_lineno or node.lineno) - node.lineno + 1
            out.append((type(node).__name__, node.lineno, length, node.name))
    return out


def _python(*folders: str) -> list[Path]:
    return sorted(p for f in folders for p in (ROOT / f).rglob("*.py"))


def test_use_cases_and_stores_keep_functions_under_50_lines_and_classes_under_300():
    too_long = [
        f"{path.relative_to(ROOT)}:{line} {name} ({length} lines)"
        for path in _python(*(f"chalicelib/{p}" for p in USE_CASES))
        for kind, line, length, name in _defs(path)
        if length > (300 if kind == "ClassDef" else 50)
    ]
    assert not too_long, too_long


def test_no_function_over_60_lines_and_no_module_over_400():
    paths = _python("chalicelib", "sabio")
    long_functions = [
        f"{path.relative_to(ROOT)}:{line} {name} ({length} lines)"
        for path in paths
        for kind, line, length, name in _defs(path)
        if kind != "ClassDef" and length > 60
    ]
    long_modules = [
        f"{p.relative_to(ROOT)} ({n} lines)"
        for p in paths
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > 400
    ]
    assert not long_functions and not long_modules, (long_functions, long_modules)


def test_no_folder_holds_more_than_15_modules():
    crowded = {}
    for top in ("chalicelib", "sabio"):
        for folder in [ROOT / top, *(p for p in (ROOT / top).rglob("*") if p.is_dir())]:
            modules = [p for p in folder.glob("*.py") if p.name != "__init__.py"]
            if len(modules) > 15:
                crowded[str(folder.relative_to(ROOT))] = len(modules)
    assert not crowded, crowded


def test_benchmarks_stay_under_300_lines_a_file():
    long = [
        f"{p.relative_to(ROOT)} ({n} lines)"
        for p in _python("bench")
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > 300
    ]
    assert not long, long
