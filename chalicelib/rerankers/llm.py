"""A listwise rerank through the OpenAI-compatible client: at most ``LIMIT`` passages, numbered, and the
model returns their numbers best first as JSON. A ranking that names a passage it was not given, names one
twice or leaves one out is refused, not trusted."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

from chalicelib.errors import ConfigurationError, RerankError
from chalicelib.llms.client import ChatLLM, LLMError
from chalicelib.llms.json_repair import JSONReplyError, parse_json_object
from chalicelib.protocols import Reranking
from chalicelib.registry import RERANKERS

if TYPE_CHECKING:
    from chalicelib.config.retrieval import RerankConfig
    from chalicelib.registry import Wiring

LIMIT = 20  # passages one prompt ranks; the rest keep their first-stage order below them
PASSAGE_CHARS = 700

PROMPT = (
    "You rank passages by how well they answer a question. The passages are numbered [0], [1], ... "
    'Reply with JSON only: {"ranking": [numbers of every passage, the best answer first]}. Include each '
    "number exactly once."
)


class LLMReranker:
    def __init__(self, llm: ChatLLM) -> None:
        self.llm = llm

    @property
    def name(self) -> str:
        return f"llm:{self.llm.model}"

    def rerank(self, question: str, passages: Sequence[str], timeout_s: float) -> Reranking:
        n = min(len(passages), LIMIT)
        if n == 0:
            return Reranking([])
        numbered = "\n\n".join(
            f"[{i}] {' '.join(p.split())[:PASSAGE_CHARS]}" for i, p in enumerate(passages[:n])
        )
        try:
            reply = self.llm.complete(
                [
                    {"role": "system", "content": PROMPT},
                    {"role": "user", "content": f"Question: {question}\n\nPassages:\n{numbered}"},
                ],
                temperature=0.0,
                json_mode=True,
                max_tokens=8 * n + 40,
                deadline=time.monotonic() + timeout_s,
                retries=0,
            )
        except LLMError as exc:
            raise RerankError(exc.reason, exc.detail[:200]) from exc
        order = _ranking(reply.text, n)
        usage = reply.usage
        # best first -> scores; passages past LIMIT score below every ranked one, in their given order
        scores = [0.0] * len(passages)
        for position, index in enumerate(order):
            scores[index] = float(len(passages) - position)
        for i in range(n, len(passages)):
            scores[i] = float(len(passages) - i) / (len(passages) + 1)
        return Reranking(scores, usage)


def _ranking(text: str, n: int) -> list[int]:
    try:
        order = parse_json_object(text).get("ranking")
    except JSONReplyError as exc:
        raise RerankError("malformed", "the model's reply is not JSON") from exc
    if not isinstance(order, list) or not all(isinstance(i, int) and not isinstance(i, bool) for i in order):
        raise RerankError("malformed", "the reply has no list of passage numbers")
    if len(order) != len(set(order)):
        raise RerankError("malformed", "the ranking names a passage twice")
    if sorted(order) != list(range(n)):
        unknown = sorted(set(order) - set(range(n)))
        missing = sorted(set(range(n)) - set(order))
        raise RerankError(
            "partial" if missing and not unknown else "malformed",
            f"ranking of {n} passages names unknown {unknown[:5]}, leaves out {missing[:5]}",
        )
    return order


@RERANKERS.register("llm")
def build(config: RerankConfig, wiring: Wiring) -> LLMReranker:
    """SABIO_RERANKER=llm: the configured chat model ranks, listwise."""
    llm = wiring.llm()
    if llm is None:
        raise ConfigurationError("SABIO_RERANKER=llm needs an LLM (SABIO_LLM_BASE_URL)")
    return LLMReranker(llm)
