"""Query-time HyDE (source doc 004): embed the question with a hypothetical answer, within a time budget."""

from __future__ import annotations

import time

import numpy as np

from chalicelib.llms.client import ChatLLM, LLMError
from chalicelib.models.api import HydeInfo
from chalicelib.protocols import Embedder

PROMPT = (
    "Write a short passage (2-4 sentences) that would answer the question, as it might appear in company "
    "documentation. Write it in the same language as the question. Return only the passage."
)


def query_vector(
    question: str, embedder: Embedder, llm: ChatLLM | None, *, enabled: bool, budget_s: float
) -> tuple[np.ndarray, HydeInfo | None]:
    """The vector to search with; HyDE failures fall back to the plain question vector and say why."""
    if not enabled:
        return embedder.embed_query(question), None
    if llm is None:
        return embedder.embed_query(question), HydeInfo(used=False, reason="no LLM configured")
    started = time.monotonic()
    try:
        reply = llm.complete(
            [{"role": "system", "content": PROMPT}, {"role": "user", "content": question}],
            temperature=0.3,
            max_tokens=200,
            deadline=started + budget_s,
            retries=0,
        )
        passage = " ".join(reply.text.split())
    except LLMError as exc:
        ms = round((time.monotonic() - started) * 1000, 1)
        return embedder.embed_query(question), HydeInfo(used=False, reason=exc.why, ms=ms)
    ms = round((time.monotonic() - started) * 1000, 1)
    if len(passage) < 10:
        return embedder.embed_query(question), HydeInfo(used=False, reason="empty passage", ms=ms)
    usage = reply.usage
    # the question and the passage together: the passage pulls toward documents, the question keeps intent
    return embedder.embed_query(f"{question}\n{passage}"), HydeInfo(
        used=True, passage=passage, ms=ms, usage=usage
    )
