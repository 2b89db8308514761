"""The second stage: a reranker reads the question with each of the first stage's top candidates and
reorders them, within one time budget. A failure of any kind (timeout, 5xx, throttling, a malformed or
partial ranking, a model that will not load) leaves the first-stage order, says why, and is never an error
of the request."""

from __future__ import annotations

import logging
import time
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass

from chalicelib import languages, tracing
from chalicelib.config.retrieval import RerankConfig
from chalicelib.errors import InvalidInput, RerankError
from chalicelib.models.api import RerankInfo, RetrieveRequest
from chalicelib.models.records import StoredChunk
from chalicelib.protocols import Reranker, Reranking
from chalicelib.question.query import Query
from chalicelib.retrieve.exact_names import Exact
from chalicelib.retrieve.results import Plan, Timer

log = logging.getLogger(__name__)

PASSAGE_CHARS = 4000  # what a passage sends: its title, its section and the start of its text
_POOL = ThreadPoolExecutor(max_workers=4, thread_name_prefix="sabio-rerank")


@dataclass(frozen=True)
class Reranked:
    order: list[str]  # chunk ids, best first (the candidates the reranker read, then the rest as they were)
    scores: dict[str, float]  # the reranker's score of each chunk it read
    info: RerankInfo


def wanted(reranker: Reranker | None, request: RetrieveRequest) -> bool:
    """Whether this request runs the second stage: ``rerank`` null follows the server (on when a reranker is
    configured); true without one is the caller's mistake, said before any work."""
    if request.rerank and reranker is None:
        raise InvalidInput(
            "rerank: true, but this server has no reranker (SABIO_RERANKER=none); "
            "send rerank: null or false, or configure one",
            field="rerank",
        )
    return reranker is not None and request.rerank is not False


def second_stage(
    reranker: Reranker,
    config: RerankConfig,
    request: RetrieveRequest,
    plan: Plan,
    query: Query,
    chosen: list[StoredChunk],
    exact: Exact,
    timer: Timer,
) -> tuple[Plan, list[StoredChunk], dict[str, float], RerankInfo]:
    """The first stage's top candidates reordered by the reranker, those holding a rare identifier of the
    question kept first; on any failure the first-stage order, with a note."""
    t = time.perf_counter()
    pinned = frozenset(cid for ids in exact.rare.values() for cid in ids)
    attributes = {"reranker.model_name": reranker.name, "reranker.top_k": config.candidates}
    with tracing.span("rerank", tracing.RERANKER, attributes) as span:
        span.text("reranker.query", request.query)
        span.documents("reranker.input_documents", [(c.chunk_id, 0.0) for c in chosen[: config.candidates]])
        done = rerank(reranker, request.query or "", chosen, config, pinned)
        span.set("sabio.used", done.info.used)
        span.documents("reranker.output_documents", [(cid, done.scores.get(cid, 0.0)) for cid in done.order])
    timer.stage("rerank", t)
    by_id = {c.chunk_id: c for c in chosen}
    info = done.info
    if info.used:
        plan = plan.applying("rerank", f"{info.model} ({info.candidates} candidates, {info.ms:.0f} ms)")
    else:
        say = languages.or_fallback(query.lang or query.guess)
        plan = plan.applying("rerank", f"{info.model}: not used ({info.reason})")
        plan = plan.noted(say.note("rerank_failed", model=info.model, reason=info.reason))
    return plan, [by_id[cid] for cid in done.order], done.scores, info


def passage(chunk: StoredChunk) -> str:
    """A chunk as the reranker reads it: where it is (document and section) and what it says."""
    where = " > ".join(p for p in (chunk.title, chunk.section_title) if p)
    return f"{where}\n{chunk.content}"[:PASSAGE_CHARS]


def rerank(
    reranker: Reranker,
    question: str,
    ranked: list[StoredChunk],
    config: RerankConfig,
    pinned: frozenset[str] = frozenset(),
) -> Reranked:
    """``ranked`` (the first stage's order, best first) with its top ``config.candidates`` reordered by
    ``reranker``. ``pinned`` chunks (those that hold a rare identifier of the question, put first by the
    first stage) stay ahead of the rest; the reranker orders each group."""
    head, tail = ranked[: config.candidates], ranked[config.candidates :]
    ids = [c.chunk_id for c in ranked]
    started = time.perf_counter()
    try:
        reading = _within_budget(reranker, question, [passage(c) for c in head], config.budget_ms / 1000)
    except RerankError as exc:
        ms = _ms(started)
        log.warning("rerank failed, first-stage order kept: %s (%s, %.0f ms)", exc, reranker.name, ms)
        reason = str(exc)[:200]  # "<reason>: <detail>"
        info = RerankInfo(used=False, model=reranker.name, candidates=len(head), ms=ms, reason=reason)
        return Reranked(ids, {}, info)
    scores = {c.chunk_id: s for c, s in zip(head, reading.scores, strict=True)}
    first = {c.chunk_id: n for n, c in enumerate(head)}
    mine = {cid: n for n, cid in enumerate(sorted(scores, key=lambda cid: (-scores[cid], first[cid])))}
    blended = {cid: _blend(mine[cid], first[cid], config.blend) for cid in first}
    order = sorted(first, key=lambda cid: (cid not in pinned, -blended[cid], first[cid]))
    info = RerankInfo(
        used=True, model=reranker.name, candidates=len(head), ms=_ms(started), usage=dict(reading.usage)
    )
    return Reranked(order + [c.chunk_id for c in tail], scores, info)


def _within_budget(reranker: Reranker, question: str, passages: list[str], budget_s: float) -> Reranking:
    """The reranker's call, abandoned at the budget (its own timeouts are set to the budget too, so an
    abandoned call does not linger)."""
    future = _POOL.submit(reranker.rerank, question, passages, budget_s)
    try:
        reading = future.result(timeout=budget_s)
    except FutureTimeout as exc:
        future.cancel()
        raise RerankError("timeout", f"over the {budget_s * 1000:.0f} ms budget") from exc
    except RerankError:
        raise
    except Exception as exc:  # an adapter's bug or a library's surprise: the first stage still answers
        log.exception("the reranker %s failed", reranker.name)
        raise RerankError("failed", type(exc).__name__) from exc  # the details go to the log, not the caller
    if len(reading.scores) != len(passages):
        raise RerankError("partial", f"{len(reading.scores)} scores for {len(passages)} passages")
    return reading


def _blend(reranked_rank: int, first_rank: int, weight: float, k: int = 60) -> float:
    """Reciprocal-rank blend: ``weight`` of the reranker's rank, the rest the first stage's."""
    return weight / (k + reranked_rank) + (1 - weight) / (k + first_rank)


def _ms(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 2)
