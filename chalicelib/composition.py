"""The composition root: the only place that reads Settings and wires the components. Stores are chosen by
setting in its base, ``Storage`` (chalicelib/storage.py); rerankers, translators, embedders and LLM clients
are built by the name their setting gives, from the factories their own modules register
(chalicelib/registry.py)."""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING

from chalicelib.registry import Wiring
from chalicelib.settings import Settings
from chalicelib.storage import Storage

if TYPE_CHECKING:
    from chalicelib.access.identity import JwtVerifier
    from chalicelib.access.keys import Authenticator, KeyPolicy
    from chalicelib.answer.extractive import ExtractiveAnswerer
    from chalicelib.answer.generated import LLMAnswerer
    from chalicelib.conversation.threads import Conversing
    from chalicelib.enrichment.vocabulary import Vocabulary
    from chalicelib.ingest.indexer import Ingestor, Progress
    from chalicelib.ingest.s3_indexer import S3Indexer
    from chalicelib.llms.client import ChatLLM
    from chalicelib.llms.pricing import Pricing
    from chalicelib.maps.bootstrap import Bootstrapper
    from chalicelib.maps.by_intent import ByIntent
    from chalicelib.models.records import Stats
    from chalicelib.protocols import (
        ChunkStore,
        Embedder,
        Reranker,
        Translator,
        VectorIndex,
    )
    from chalicelib.retrieve.feedback_prior import FeedbackPrior
    from chalicelib.retrieve.retriever import Retriever
    from chalicelib.telemetry import Telemetry
    from chalicelib.usage.query_log import Logged


class Container(Storage):
    """Builds each component once, on first use (cheap to construct: nothing loads at import)."""

    def __init__(self, settings: Settings | None = None) -> None:
        self.settings = settings or Settings()

    @cached_property
    def wiring(self) -> Wiring:
        """What a registered reranker or translator may need beyond its own settings."""
        s = self.settings
        return Wiring(s.languages, s.aws_region, s.aws_endpoint_url, llm=lambda: self.llm)

    @cached_property
    def embedder(self) -> Embedder:
        """The registered embedder SABIO_EMBEDDER names, behind the vector cache and the query memo if on."""
        from chalicelib.embedders.query_memo import QueryMemo
        from chalicelib.registry import EMBEDDERS

        config = self.settings.embedding
        inner = EMBEDDERS.build(config.kind, config)
        if config.cache:
            from chalicelib.embedders.caching import CachingEmbedder

            inner = CachingEmbedder(inner, config.cache)
        return QueryMemo(inner, config.query_cache_size) if config.query_cache_size else inner

    def vocabulary(self) -> Vocabulary:
        from chalicelib.enrichment.vocabulary import Vocabulary

        vocab = Vocabulary(
            products={k: list(v) for k, v in self.settings.products.items()},
            content_types=self.settings.content_types,
        )
        return vocab

    def ingestor(self, progress: Progress | None = None) -> Ingestor:
        from chalicelib.ingest.indexer import Ingestor

        s = self.settings
        vocabulary = self.vocabulary()
        llm_enricher = None
        if s.enrichment != "heuristic" and self.llm is not None:
            from chalicelib.enrichment.llm import LLMEnricher

            llm_enricher = LLMEnricher(
                self.llm,
                vocabulary,
                cache=self.enrichment_cache,
                concurrency=s.llm.concurrency,
            )
        elif s.enrichment == "llm":
            raise ValueError("SABIO_ENRICHMENT=llm needs SABIO_LLM_BASE_URL")
        return Ingestor(
            self.chunk_store,
            self.vector_index,
            self.embedder,
            vocabulary,
            s.ingest,
            progress=progress,
            llm_enricher=llm_enricher,
        )

    def s3_indexer(self, progress: Progress | None = None) -> S3Indexer:
        """The indexer job's core: S3 events (via SQS) -> ingest / delete, ordered per key."""
        from chalicelib.ingest.s3_indexer import S3Indexer
        from chalicelib.protocols import DeletionLedger

        return S3Indexer(
            self.ingestor(progress),
            self.chunk_store,
            self.aws_client("s3"),
            self.settings.source_map,
            telemetry=self.telemetry("indexer"),
            ledger=self.chunk_store if isinstance(self.chunk_store, DeletionLedger) else None,
        )

    def _chat(self, model: str | None) -> ChatLLM | None:
        config = self.settings.llm
        if not config.base_url or not model:
            return None
        from chalicelib.registry import LLM_CLIENTS

        chat: ChatLLM = LLM_CLIENTS.build(config.client, config, model)
        return chat

    @cached_property
    def llm(self) -> ChatLLM | None:
        """The primary chat model, or None when no OpenAI-compatible server is configured."""
        return self._chat(self.settings.llm.model)

    @cached_property
    def fallback_llm(self) -> ChatLLM | None:
        return self._chat(self.settings.llm.fallback_model)

    @cached_property
    def pricing(self) -> Pricing:
        """What the configured LLM costs per token, for the indexing report's cost line."""
        from chalicelib.llms.pricing import Pricing

        llm = self.settings.llm
        return Pricing(llm.price_input_per_mtok, llm.price_output_per_mtok)

    def trace(self) -> str:
        """Tracing as SABIO_TRACING says, before any stage is built (store calls are spans); the mode in force."""
        from chalicelib.tracing.setup import configure

        return configure(self.settings.traces)

    def traced_stores(self) -> tuple[ChunkStore, VectorIndex]:
        """The chunk store and the vector index, each call on the request path a span while tracing is on."""
        from chalicelib.tracing.stores import traced

        self.trace()
        s = self.settings
        return traced(self.chunk_store, s.chunk_store), traced(self.vector_index, s.vector_index)

    @cached_property
    def retriever(self) -> Retriever:
        from chalicelib.retrieve.retriever import Retriever

        s = self.settings
        prior = self.feedback_prior
        return Retriever(
            *self.traced_stores(),
            self.embedder,
            s.retrieval,
            known_products=lambda: list(s.products),
            llm=self.llm,
            prior=prior.factors if prior is not None else None,
            translator=self.translator,
            reranker=self.reranker,
        )

    @cached_property
    def reranker(self) -> Reranker | None:
        """The second stage SABIO_RERANKER names (a registered reranker), or None; only the chosen one is imported."""
        from chalicelib.registry import RERANKERS

        config = self.settings.retrieval.rerank
        return RERANKERS.build(config.kind, config, self.wiring)

    @cached_property
    def translator(self) -> Translator | None:
        """Apertium where its Spanish <-> English data is installed (SABIO_TRANSLATOR=auto), or asked for;
        Amazon Translate (the deployed API); None: other languages are searched by meaning only."""
        from chalicelib.registry import TRANSLATORS

        translator: Translator | None = TRANSLATORS.build(self.settings.translator, self.wiring)
        size = self.settings.embedding.query_cache_size  # remembered as the questions' vectors are
        if translator is None or not size:
            return translator
        from chalicelib.question.translation_memo import TranslationMemo

        return TranslationMemo(translator, size)

    def index_status(self) -> Stats:
        """What /stats, sabio stats and the MCP stats tool report: the store's counts, failures, held
        deletions (each with the command that applies it) and the translator in use."""
        from chalicelib.ingest.index_status import index_status
        from chalicelib.sync.held import confirming_command

        s = self.settings
        deployed = s.chunk_store == "dynamodb"

        def confirm(source_id: str) -> str:
            return confirming_command(s.store_path, source_id, s.default_source_id, deployed)

        return index_status(self.chunk_store, translator=self.translator_name, confirm=confirm)

    @property
    def translator_name(self) -> str:
        """The translator in use as its setting names it (apertium, amazon, llm), or none."""
        if self.translator is None:
            return "none"
        return "apertium" if self.settings.translator == "auto" else self.settings.translator

    @cached_property
    def feedback_prior(self) -> FeedbackPrior | None:
        if not self.settings.log.feedback_ranking or self.query_log is None:
            return None
        from chalicelib.retrieve.feedback_prior import FeedbackPrior

        return FeedbackPrior(self.query_log, self.embedder.space)

    @cached_property
    def usage(self) -> Logged:
        """The use cases as the API serves them: each question logged, with a query_id for feedback, and
        traced when SABIO_TRACING says so."""
        from chalicelib.usage.query_log import Logged

        self.trace()
        prior = self.feedback_prior
        return Logged(
            self.retrieval,
            self.answerer,
            self.extractive,
            self.query_log,
            self.settings.log,
            space=self.embedder.space.model_id,
            on_feedback=prior.invalidate if prior is not None else lambda: None,
            telemetry=self.telemetry("api"),
        )

    @cached_property
    def conversations(self) -> Conversing:
        """The use cases as the API serves them in a conversation: a follow-up made a question of its own
        (by the LLM when configured), then logged; each turn kept for its caller."""
        from chalicelib.conversation.resolve import Resolver
        from chalicelib.conversation.threads import Conversing

        s = self.settings
        if s.conversation.condense == "llm" and self.llm is None:
            raise ValueError("SABIO_CONVERSATION_CONDENSE=llm needs SABIO_LLM_BASE_URL")
        resolver = Resolver(s.conversation, s.languages, llm=self.llm, translator=self.translator)
        return Conversing(self.usage, resolver, self.conversation_store, self.chunk_store, s.conversation)

    def telemetry(self, service: str) -> Telemetry:
        """Structured logs and EMF metrics (Powertools): on in Lambda, elsewhere with SABIO_TELEMETRY=on."""
        from chalicelib.telemetry import Telemetry, in_lambda

        mode = self.settings.telemetry
        return Telemetry(service, on=mode == "on" or (mode == "auto" and in_lambda()))

    @cached_property
    def bootstrapper(self) -> Bootstrapper:
        from chalicelib.maps.bootstrap import Bootstrapper

        retrieval = self.settings.retrieval
        return Bootstrapper(*self.traced_stores(), self.embedder, retrieval, llm=self.llm)

    @cached_property
    def retrieval(self) -> ByIntent:
        """/retrieve: a specific question, or (intent bootstrap) the map of a domain."""
        from chalicelib.maps.by_intent import ByIntent

        return ByIntent(self.retriever, self.bootstrapper)

    @cached_property
    def extractive(self) -> ExtractiveAnswerer:
        """Quotes the best sentences; abstains under the calibrated evidence (also judges logged questions)."""
        from chalicelib.answer.extractive import ExtractiveAnswerer

        s = self.settings
        return ExtractiveAnswerer(
            self.retrieval,
            self.embedder,
            max_sentences=s.answer_sentences,
            languages=s.languages,
            min_confidence=s.answer_min_confidence,
            translator=self.translator,
        )

    @cached_property
    def answerer(self) -> ExtractiveAnswerer | LLMAnswerer:
        """LLM answers (primary -> fallback model -> extractive) when an LLM is configured, else extractive."""
        s = self.settings
        extractive = self.extractive
        chain = [
            (label, llm) for label, llm in (("llm", self.llm), ("llm-fallback", self.fallback_llm)) if llm
        ]
        if s.answer == "extractive" or not chain:
            if s.answer == "llm":
                raise ValueError("SABIO_ANSWER=llm needs SABIO_LLM_BASE_URL")
            return extractive
        from chalicelib.answer.generated import LLMAnswerer

        return LLMAnswerer(self.retrieval, extractive, chain, served=s.languages)

    @cached_property
    def identity(self) -> JwtVerifier | None:
        """The identity provider's token check (SABIO_JWT_ISSUER), None without one."""
        config = self.settings.identity
        if not config.issuer:
            return None
        from chalicelib.access.identity import JwtVerifier

        return JwtVerifier(config)

    @cached_property
    def local_reader(self) -> KeyPolicy | None:
        """``sabio serve --as USER --groups G``: who a server without keys reads as (None: every document)."""
        s = self.settings
        if not s.as_user and not s.as_groups:
            return None
        from chalicelib.access.keys import KeyPolicy

        return KeyPolicy(name="").for_user(s.as_user, s.as_groups)

    @cached_property
    def authenticator(self) -> Authenticator | None:
        """None when auth is off (local default); the deployed stack sets SABIO_AUTH=keys."""
        if self.settings.auth == "none":
            return None
        from chalicelib.access.keys import Authenticator, load_policies

        return Authenticator(load_policies(self.settings.api_keys))
