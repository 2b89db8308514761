"""Code files are cut by symbol with exact line ranges, in every supported language, with a fallback."""

from __future__ import annotations

import pytest

from chalicelib.chunking import ChunkingConfig, chunk_document
from chalicelib.extraction.dispatch import extract

SOURCES = {
    "svc.py": (
        "import os\n\n\n@decorator\ndef handler(event):\n    return os.environ\n\n\nclass Store:\n"
        "    def get(self, key):\n        return key\n",
        ["def handler", "class Store"],
    ),
    "plans.go": (
        "package plans\n\ntype Plan struct {\n\tName string\n}\n\nfunc (p Plan) Price() int {\n\treturn 1\n}\n",
        ["type Plan", "func Price"],
    ),
    "Billing.java": (
        "package a;\n\npublic class Billing {\n  public int total(int n) {\n    return n * 2;\n  }\n}\n",
        ["class Billing", "func total"],
    ),
    "widget.ts": (
        "export interface Opts { id: string }\n\nexport const render = (o: Opts) => {\n  return o.id;\n};\n",
        ["type Opts", "func render"],
    ),
    "colors.swift": (
        "extension UIColor {\n  func lighter() -> UIColor {\n    return self\n  }\n}\n\n"
        "actor Counter {\n  var value = 0\n  func increment() {\n    value += 1\n  }\n}\n",
        ["extension UIColor", "func lighter", "actor Counter", "func increment"],
    ),
    "deploy.sh": ("#!/bin/sh\nset -e\n\nrelease() {\n  echo go\n}\n\nrelease\n", ["func release"]),
}


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_symbols_become_sections_with_exact_line_ranges(name):
    text, symbols = SOURCES[name]
    doc = extract(name, text.encode(), max_bytes=10**6)
    assert doc.format == "code"
    names = {part for s in doc.sections for part in s.heading_path[1:]}
    assert set(symbols) <= names, names
    lines = text.split("\n")
    for section in doc.sections:
        block = section.blocks[0]
        assert block.text == "\n".join(lines[block.line_start - 1 : block.line_end])


def test_unparseable_python_falls_back_to_line_windows():
    text = "def broken(:\n" + "\n".join(f"    x{i} = {i}" for i in range(400))
    doc = extract("bad.py", text.encode(), max_bytes=10**6)
    chunks = chunk_document(doc, ChunkingConfig(max_tokens=120, min_tokens=10))
    assert len(chunks) > 3
    assert chunks[0].line_start == 1 and chunks[-1].line_end == 401
    assert all(b.line_start == a.line_end + 1 for a, b in zip(chunks, chunks[1:], strict=False))
