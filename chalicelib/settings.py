"""Typed settings: argument, else environment variable (``SABIO_*``), else default.

Each component's settings are a section it is given whole (``IngestConfig``, ``RetrievalConfig`` with its
``RerankConfig``, ``EmbedderConfig``, ``LLMConfig``, ``LogConfig``, ``IdentityConfig``, ``TracingConfig``: the modules of
chalicelib/config); a section's setting keeps its flat name, so ``SABIO_RETRIEVAL_CANDIDATES`` and
``Settings(retrieval_candidates=80)`` set ``settings.retrieval.candidates``. Nothing here imports a pipeline:
settings are read before any of them is built.
"""

from __future__ import annotations

import json
import os
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, Field, SecretStr, field_validator, model_validator
from pydantic_settings import (
    BaseSettings,
    NoDecode,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
)

from chalicelib.config.embedding import EmbedderConfig
from chalicelib.config.identity import IdentityConfig
from chalicelib.config.ingest import IngestConfig
from chalicelib.config.llm import LLMConfig
from chalicelib.config.query_log import LogConfig
from chalicelib.config.retrieval import RetrievalConfig
from chalicelib.config.section import ConfigSection, flatten, from_json, gather, nested, settings_of
from chalicelib.config.tracing import TracingConfig
from chalicelib.enrichment.vocabulary import CONTENT_TYPES
from chalicelib.languages import DEFAULT as DEFAULT_LANGUAGES
from chalicelib.languages import registered
from chalicelib.languages import require as require_language
from chalicelib.registry import TRANSLATORS


def calibrated_thresholds() -> dict[str, float]:
    """Each language file's ``answer_min_evidence``, for the languages that have one."""
    found = {code: require_language(code).answer_min_evidence for code in registered()}
    return {code: value for code, value in found.items() if value is not None}


class FlatEnvironment(PydanticBaseSettingsSource):
    """The sections' ``SABIO_*`` variables, by flat name (``Settings._nest`` puts them in their section)."""

    def get_field_value(self, field: Any, field_name: str) -> tuple[Any, str, bool]:
        return None, field_name, False

    def __call__(self) -> dict[str, Any]:
        env = {k.lower(): v for k, v in os.environ.items() if k.lower().startswith("sabio_")}
        names = (name for _, section in Settings.sections() for name, _ in settings_of(section))
        return {name: env[f"sabio_{name}"] for name in names if f"sabio_{name}" in env}


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="SABIO_", extra="ignore")

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        return (
            init_settings,
            FlatEnvironment(settings_cls),
            env_settings,
            dotenv_settings,
            file_secret_settings,
        )

    @classmethod
    def sections(cls) -> list[tuple[str, type[ConfigSection]]]:
        found = ((name, nested(field)) for name, field in cls.model_fields.items())
        return [(name, section) for name, section in found if section is not None]

    def flat(self) -> dict[str, Any]:
        """``{name: value}`` for every setting, sections' included, by the name its variable carries."""
        out = {name: getattr(self, name) for name in type(self).model_fields}
        for name, _ in self.sections():
            out.pop(name)
            out.update(flatten(getattr(self, name)))
        return out

    def replaced(self, **changes: Any) -> Settings:
        """These settings with ``changes`` (flat names, as ``Settings(...)`` takes them)."""
        return Settings(**{**self.flat(), **changes})

    store_path: str = Field(".sabio/sabio.db", description="SQLite file of the embedded store")
    ann_min_rows: int = Field(
        250_000,
        ge=1,
        description="from this many vectors the embedded store's k-NN is approximate: an HNSW index (usearch) saved "
        "beside the SQLite file, built and kept up to date in the background (exact search answers meanwhile); "
        "recall@10 0.99 against exact search (docs/performance.md)",
    )
    telemetry: Literal["auto", "on", "off"] = Field(
        "auto",
        description="JSON logs and EMF metrics on stdout (Powertools): auto = on inside AWS Lambda only",
    )
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

    # the sections: what one component reads, given to it whole; their settings keep their flat SABIO_* names
    embedding: EmbedderConfig = Field(default_factory=EmbedderConfig)
    ingest: IngestConfig = Field(default_factory=IngestConfig)
    retrieval: RetrievalConfig = Field(default_factory=RetrievalConfig)
    llm: LLMConfig = Field(default_factory=LLMConfig)
    log: LogConfig = Field(default_factory=LogConfig)
    identity: IdentityConfig = Field(default_factory=IdentityConfig)
    traces: TracingConfig = Field(default_factory=TracingConfig)

    enrichment: Literal["auto", "heuristic", "llm"] = Field(
        "auto", description="how chunks are enriched: auto (the LLM when configured), heuristic or llm"
    )
    answer: Literal["auto", "extractive", "llm"] = Field(
        "auto", description="who answers: auto (the LLM when configured), extractive or llm"
    )

    # AWS mode: DynamoDB chunk store, S3 objects -> source ids ({"bucket": "id", "bucket/prefix/": "id"})
    chunk_store: Literal["sqlite", "dynamodb"] = Field(
        "sqlite", description="where chunks and the manifest live: sqlite (embedded) or dynamodb"
    )
    dynamodb_table: str = Field("sabio", description="the DynamoDB table (chunk_store=dynamodb)")
    aws_region: str | None = Field(None, description="the AWS region (else the SDK's own configuration)")
    aws_endpoint_url: str | None = Field(None, description="e.g. a moto server for local runs")
    sync_sources: Annotated[list[dict[str, Any]], NoDecode] = Field(
        default_factory=list,
        description='the stack\'s scheduled sync: JSON [{"kind": "git" or "web", "location": URL, "source_id": ..., '
        '"prefix": "<source_id>/", "branch": ..., "max_pages": 1000}], each written into SABIO_SYNC_BUCKET under its '
        "prefix (docs/sync.md)",
    )
    sync_bucket: str | None = Field(None, description="the bucket the scheduled sync writes into")
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

    # local testing: who a server without keys or identity provider reads as
    as_user: str | None = Field(
        None, description="local testing (sabio serve --as): a server without keys reads as this user"
    )
    as_groups: Annotated[tuple[str, ...], NoDecode] = Field(
        (), description="local testing (sabio serve --groups): the groups of as_user, comma-separated"
    )

    translator: Annotated[str, AfterValidator(TRANSLATORS.require)] = Field(
        "auto",
        validate_default=False,  # registered (tests/test_registry.py); checking it would import every translator
        description="a lang=auto question over documents in another language is also searched translated: "
        "apertium (Debian's apertium-eng-spa), amazon (Amazon Translate: the deployed API), llm (the "
        "configured LLM), auto (apertium where installed) or none; /stats and sabio stats name the one in use",
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

    @model_validator(mode="before")
    @classmethod
    def _nest(cls, data: Any) -> Any:
        """A section's settings given by flat name (an argument, or a variable) go into its section."""
        if not isinstance(data, dict):
            return data
        data = dict(data)
        for name, section in cls.sections():
            found = gather(section, data)
            for flat_name, _ in settings_of(section):
                data.pop(flat_name, None)
            if not found:
                continue
            given = data.get(name)
            if isinstance(given, ConfigSection):
                given = flatten(given)
            data[name] = {**(given or {}), **found} if given is None or isinstance(given, dict) else given
        return data

    @model_validator(mode="after")
    def _serve_languages(self) -> Settings:
        """Every section that serves languages serves the deployment's."""
        for name, section in self.sections():
            if "languages" in section.model_fields:
                setattr(self, name, getattr(self, name).changed(languages=self.languages))
        return self

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

    @field_validator("as_groups", mode="before")
    @classmethod
    def _as_groups(cls, v: object) -> object:
        return (
            tuple(v.replace(",", " ").split()) if isinstance(v, str) else v
        )  # as access.principals reads groups

    @field_validator("api_keys", "source_map", mode="before")
    @classmethod
    def _json_object(cls, v: object) -> object:
        return from_json(v, {})

    @field_validator("sync_sources", mode="before")
    @classmethod
    def _json_list(cls, v: object) -> object:
        return from_json(v, [])

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
