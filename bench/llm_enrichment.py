"""LLM enrichment throughput: chunks per second and tokens at growing concurrency, against a local
OpenAI-compatible server that answers after a fixed latency (part of ``make bench``)."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

EVAL = ROOT.parent / "shared" / "eval"


def measure(n_chunks: int = 500, latency_s: float = 0.3, levels: tuple[int, ...] = (1, 5, 20)) -> dict:
    """LLM enrichment of ``n_chunks`` against a local OpenAI-compatible server answering in ``latency_s``."""
    from chalicelib.enrichment.heuristic import ChunkContext, HeuristicEnricher
    from chalicelib.enrichment.llm import LLMEnricher
    from chalicelib.enrichment.vocabulary import Vocabulary
    from chalicelib.llms.client import ChatLLM, LLMConfig
    from tests.llm_server import LLMTestServer

    sections = [
        json.loads(line) for line in (EVAL / "derived" / "fastapi_sections_es.jsonl").read_text().splitlines()
    ]
    texts = [s for s in sections if len(s["text"].split()) > 20][:n_chunks]
    items = [
        (ChunkContext(text=s["text"][:1500], title=s["file"], section=s["heading"], lang="es"), f"{i}")
        for i, s in enumerate(texts)
    ]
    vocab = Vocabulary(products={"fastapi": []})
    fallback = HeuristicEnricher(vocab)
    out: dict[str, object] = {
        "chunks": len(items),
        "server_latency_ms": latency_s * 1000,
        "by_concurrency": {},
    }
    with LLMTestServer(latency_s=latency_s) as server:
        for level in levels:
            llm = ChatLLM(LLMConfig(base_url=server.base_url, model="bench", timeout_s=30))
            enricher = LLMEnricher(llm, vocab, cache=None, concurrency=level)
            started = time.perf_counter()
            results = enricher.enrich_many(items, fallback)
            wall = time.perf_counter() - started
            out["by_concurrency"][str(level)] = {  # type: ignore[index]
                "wall_s": round(wall, 2),
                "chunks_per_s": round(len(items) / wall, 2),
                "llm": sum(1 for r in results if r.source == "llm"),
                "fallback": enricher.run.fallback,
                "tokens_in": llm.usage.prompt_tokens,
                "tokens_out": llm.usage.completion_tokens,
            }
            print(f"  concurrency {level:>2}: {wall:6.1f}s  {len(items) / wall:6.1f} chunks/s", flush=True)
    return out
