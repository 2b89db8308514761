"""LLM enrichment (source doc 000's prompt): validated, repaired, vocabulary-constrained, cached, with fallback."""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from pydantic import BaseModel, Field, ValidationError, field_validator

from chalicelib.enrichment.heuristic import ChunkContext, HeuristicEnricher
from chalicelib.enrichment.vocabulary import GENERAL, Vocabulary, normalise_label
from chalicelib.llms.client import ChatLLM, LLMError
from chalicelib.llms.json_repair import JSONReplyError, parse_json_object
from chalicelib.models.records import Enrichment
from chalicelib.protocols import EnrichmentCache

PROMPT_VERSION = "enrich-v2"  # v2: the situating "context" sentence
SYSTEM_PROMPT = (
    "You are a content analysis assistant. Analyze the following content chunk and return a JSON object: "
    '{{ "summary": "1-2 sentence semantic summary (same language as input)", '
    '"keywords": ["5-8 key terms, lowercase, normalized"], '
    '"questions": ["2-3 questions this chunk answers (same language)"], '
    '"context": "one short sentence situating this chunk within its document or code base, to improve '
    'search retrieval of the chunk (what it is part of and what it is for)", '
    '"product": "{products}", "content_type": "{content_types}" }} '
    "Return ONLY the JSON object. No markdown formatting. "
    "Detect the language of the input and respond in that same language."
)
MAX_CONTEXT_CHARS = 400


class EnrichmentReply(BaseModel):
    """What the model must send back; anything else is an invalid reply."""

    summary: str = Field(min_length=1, max_length=2000)
    keywords: list[str] = Field(min_length=1)
    questions: list[str] = Field(min_length=1)
    context: str = ""
    product: str = GENERAL
    content_type: str = ""

    @field_validator("keywords", "questions", mode="before")
    @classmethod
    def _listify(cls, v: object) -> object:
        return [p.strip() for p in v.split(",")] if isinstance(v, str) else v


def cache_key(content_hash: str, model: str, situation: str = "") -> str:
    """The same text in another place (a method of another class) is situated anew."""
    return hashlib.sha256(
        f"{content_hash}\x00{PROMPT_VERSION}\x00{model}\x00{situation}".encode()
    ).hexdigest()


def user_message(ctx: ChunkContext) -> str:
    path = f"Path: {ctx.key}\n" if ctx.key and ctx.key != ctx.title else ""
    where = f"Where it sits: {ctx.situation}\n" if ctx.situation else ""
    return (
        f"Content chunk to analyze:\n───────────────\nTitle: {ctx.title}\n{path}"
        f"Category: {ctx.category or '-'}\nSection: {ctx.section}\n{where}Text:\n{ctx.text}"
    )


def parse_reply(text: str, vocabulary: Vocabulary, fallback_type: str) -> tuple[Enrichment, list[str]]:
    """Validated enrichment plus notes on what was corrected (labels outside the vocabularies)."""
    try:
        reply = EnrichmentReply.model_validate(parse_json_object(text))
    except (JSONReplyError, ValidationError) as exc:
        raise ValueError(f"invalid reply: {str(exc).splitlines()[0][:160]}") from exc
    notes: list[str] = []
    product = normalise_label(reply.product)
    if product not in vocabulary.products and product != GENERAL:
        notes.append(f"product {reply.product!r} is not in the vocabulary")
        product = GENERAL
    ctype = normalise_label(reply.content_type)
    if ctype not in vocabulary.content_types:
        notes.append(f"content_type {reply.content_type!r} is not in the vocabulary")
        ctype = fallback_type
    keywords = list(dict.fromkeys(k.strip().lower() for k in reply.keywords if k.strip()))[:8]
    questions = [q.strip() for q in reply.questions if q.strip()][:3]
    enrichment = Enrichment(
        summary=" ".join(reply.summary.split()),
        keywords=keywords,
        questions=questions,
        context=" ".join(reply.context.split())[:MAX_CONTEXT_CHARS],
        product=product,
        content_type=ctype,
        source="llm",
    )
    return enrichment, notes


@dataclass
class EnrichmentRun:
    """What one indexing run spent on enrichment."""

    llm: int = 0
    cached: int = 0
    fallback: int = 0
    fallback_reasons: dict[str, int] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def count(self, kind: str, reason: str | None = None) -> None:
        with self._lock:
            setattr(self, kind, getattr(self, kind) + 1)
            if reason:
                self.fallback_reasons[reason] = self.fallback_reasons.get(reason, 0) + 1


class LLMEnricher:
    def __init__(
        self,
        llm: ChatLLM,
        vocabulary: Vocabulary,
        *,
        cache: EnrichmentCache | None = None,
        concurrency: int = 5,
        invalid_retries: int = 1,
    ) -> None:
        self.llm = llm
        self.vocabulary = vocabulary
        self.cache = cache
        self.concurrency = max(1, concurrency)
        self.invalid_retries = invalid_retries
        self.run = EnrichmentRun()

    def system_prompt(self) -> str:
        products = "|".join([*self.vocabulary.products, GENERAL])
        return SYSTEM_PROMPT.format(products=products, content_types="|".join(self.vocabulary.content_types))

    def enrich_many(
        self,
        items: Sequence[tuple[ChunkContext, str]],
        fallback: HeuristicEnricher,
        progress: Callable[[int], None] | None = None,
    ) -> list[Enrichment]:
        """Enrich (context, content hash) pairs concurrently, in order; never raises, never drops a chunk."""
        done = 0
        lock = threading.Lock()

        def one(item: tuple[ChunkContext, str]) -> Enrichment:
            nonlocal done
            result = self.enrich(item[0], item[1], fallback)
            with lock:
                done += 1
                if progress:
                    progress(done)
            return result

        if self.concurrency == 1 or len(items) <= 1:
            return [one(item) for item in items]
        with ThreadPoolExecutor(max_workers=self.concurrency) as pool:
            return list(pool.map(one, items))

    def enrich(self, ctx: ChunkContext, content_hash: str, fallback: HeuristicEnricher) -> Enrichment:
        key = cache_key(content_hash, self.llm.model, ctx.situation)
        if self.cache is not None:
            hit = self.cache.cached_enrichment(key)
            if hit:
                self.run.count("cached")
                return Enrichment.model_validate_json(hit)
        heuristic = fallback.enrich(ctx)
        try:
            enrichment = self._ask(ctx, heuristic.content_type)
        except (LLMError, ValueError) as exc:
            reason = exc.reason if isinstance(exc, LLMError) else "invalid_reply"
            self.run.count("fallback", reason)
            return heuristic.model_copy(update={"fallback_reason": f"{reason}: {exc}"[:300]})
        if not enrichment.context:  # the model situated nothing: what the file says about it stands
            enrichment = enrichment.model_copy(update={"context": heuristic.context})
        if self.cache is not None:
            self.cache.cache_enrichment(key, enrichment.model_dump_json())
        self.run.count("llm")
        return enrichment

    def _ask(self, ctx: ChunkContext, fallback_type: str) -> Enrichment:
        messages = [
            {"role": "system", "content": self.system_prompt()},
            {"role": "user", "content": user_message(ctx)},
        ]
        problem = ""
        for _ in range(self.invalid_retries + 1):
            reply = self.llm.complete(messages, temperature=0.2, json_mode=True)
            try:
                enrichment, notes = parse_reply(reply.text, self.vocabulary, fallback_type)
            except ValueError as exc:
                problem = str(exc)
                continue
            return enrichment.model_copy(update={"model": reply.model, "notes": notes})
        raise ValueError(problem)
