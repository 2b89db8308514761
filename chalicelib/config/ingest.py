"""What an indexing run is configured with: what a document may weigh, how it is cut, what its vectors see,
when deletions are held, and who reads a document that names no readers."""

from __future__ import annotations

from typing import Literal

from pydantic import Field as PField
from pydantic import field_validator

from chalicelib.config.chunking import ChunkingConfig
from chalicelib.config.section import ConfigSection, from_json, setting
from chalicelib.languages import DEFAULT as DEFAULT_LANGUAGES


class IngestConfig(ConfigSection):
    """Indexing: what a document may weigh, how it is cut, and what its vectors see."""

    languages: tuple[str, ...] = DEFAULT_LANGUAGES  # the deployment's (Settings.languages)
    max_file_bytes: int = setting(
        "max_file_bytes",
        5_000_000,
        "larger text files are recorded as failed (code and configuration files are skipped, with "
        "the reason)",
        ge=1,
    )
    max_document_bytes: int = setting("max_document_bytes", 30_000_000, "PDF and Office files", ge=1)
    max_pdf_pages: int = setting("max_pdf_pages", 1000, "longer PDFs are recorded as failed", ge=1)
    chunking: ChunkingConfig = ChunkingConfig()
    # what the dense vector sees (enrichment.embedding_text.for_embedding); the enrichment always feeds BM25
    embed_text: Literal["enriched", "contextual", "raw"] = setting(
        "embed_text",
        "raw",
        "what the dense vector sees: raw (the chunk as written; measured best), contextual (title > "
        "headings, then the chunk) or enriched (title, summary, keywords, questions, then the chunk); the "
        "enrichment always feeds BM25 (docs/evaluation.md)",
    )
    # what a code chunk's vector sees (enrichment.embedding_text.for_code): measured on the code-question set
    code_embed_text: Literal["contextual", "enriched", "enriched-name", "path", "path-summary", "raw"] = (
        setting(
            "code_embed_text",
            "contextual",
            "what a code chunk's vector sees: contextual (its path and symbols, their names' words, "
            "the doc comments around it and its file's purpose, then its lines; measured best), path (src/app/"
            "core.py > class Context > def invoke, then its lines), path-summary, enriched, enriched-name or raw "
            "(docs/evaluation.md, code)",
        )
    )
    # embed each chunk's quotable sentences too (chalicelib.quotes): answers then embed only the question
    quote_vectors: bool = setting(
        "quote_vectors",
        True,
        "embed each chunk's quotable sentences at index time, so answers embed only the question; "
        "false makes indexing about twice as fast, and answers embed the sentences per question (~0.3 s more)",
    )
    delete_guard_share: float = setting(
        "delete_guard_share",
        0.2,
        "a run that would delete more than this share of a source's documents (a folder that "
        "came up empty, a sync gone wrong) holds those deletions: the documents stay searchable and /stats "
        "lists them until sabio index --confirm-deletions; 1: never held",
        ge=0,
        le=1,
    )
    delete_guard_min: int = setting(
        "delete_guard_min",
        5,
        "a run that deletes this many documents or fewer is never held, whatever the share",
        ge=0,
    )
    default_readers: str = setting(
        "default_readers",
        "none",
        "who may read a document that names no readers (no sabio-read in its S3 metadata, front "
        "matter, Office properties or .sabio-read) and whose source has no default: none (the safe default: "
        "only keys that read all documents, and a server without keys), public (every caller of the "
        "deployment), or principals such as group:staff (docs/permissions.md)",
    )
    source_readers: dict[str, str] = PField(
        default_factory=dict,
        alias="source_readers",
        description='per source, who may read its documents that name no readers: JSON {"handbook": "public", '
        '"finance": "group:finance"} (docs/permissions.md)',
    )
    # documents read, enriched and written together: what a run holds in memory at once
    batch_documents: int = 32

    @field_validator("source_readers", mode="before")
    @classmethod
    def _source_readers(cls, v: object) -> object:
        return from_json(v, {})
