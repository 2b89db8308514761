"""LLM query rewriting: a short or vague question is expanded into fuller ones, a question that asks several
things is split into its parts; each rewrite is searched beside the original and the lists fused. Off unless
configured (SABIO_RETRIEVAL_REWRITE); within its own time budget; any failure searches the question alone and
says why (``RewriteInfo.reason``), like HyDE."""

from __future__ import annotations

import re
import time

from chalicelib.llms.client import ChatLLM, LLMError
from chalicelib.llms.json_repair import JSONReplyError, parse_json_object
from chalicelib.models.api import RewriteInfo
from chalicelib.question.query import Query

SHORT = 3  # a question of at most this many content words is short: expanded
MAX_REWRITES = 3
PROMPT = (
    "You rewrite a user's question for a search over company documents. If it is short or vague, write up to "
    "2 fuller questions that say what the user most likely means. If it asks several things, write each part "
    "as a question of its own. Keep the question's language, names and identifiers. Reply with JSON only: "
    '{"queries": ["...", "..."]}; an empty list when the question is already clear and single.'
)


def why(query: Query) -> str | None:
    """Whether the question is worth a rewrite: "short", "multi-part", or None (searched as it is)."""
    parts = [p for p in re.split(r"[?;]\s*", query.text) if len(p.split()) >= 2]
    if len(parts) >= 2:
        return "multi-part"
    if len(query.terms(query.lang)) <= SHORT:
        return "short"
    return None


def rewrites(query: Query, llm: ChatLLM | None, budget_s: float) -> RewriteInfo | None:
    """The rewrites to search beside the question (``info.queries``), or why there are none; None when the
    question does not need one."""
    kind = why(query)
    if kind is None:
        return None
    if llm is None:
        return RewriteInfo(used=False, kind=kind, reason="no LLM configured")
    started = time.monotonic()
    try:
        reply = llm.complete(
            [{"role": "system", "content": PROMPT}, {"role": "user", "content": query.text}],
            temperature=0.2,
            json_mode=True,
            max_tokens=200,
            deadline=started + budget_s,
            retries=0,
        )
    except LLMError as exc:
        return RewriteInfo(used=False, kind=kind, reason=exc.why, ms=_ms(started))
    usage = reply.usage
    queries = _queries(reply.text, query.text)
    if queries is None:
        return RewriteInfo(
            used=False, kind=kind, reason="the reply is not a list of questions", ms=_ms(started), usage=usage
        )
    return RewriteInfo(used=bool(queries), kind=kind, queries=queries, ms=_ms(started), usage=usage)


def _queries(text: str, question: str) -> list[str] | None:
    try:
        found = parse_json_object(text).get("queries")
    except JSONReplyError:
        return None
    if not isinstance(found, list) or not all(isinstance(q, str) for q in found):
        return None
    seen = {" ".join(question.lower().split())}
    out = []
    for q in found:
        q = " ".join(q.split())[:300]
        if q and q.lower() not in seen:
            seen.add(q.lower())
            out.append(q)
    return out[:MAX_REWRITES]


def _ms(started: float) -> float:
    return round((time.monotonic() - started) * 1000, 1)
