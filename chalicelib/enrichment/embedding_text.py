"""The text that gets embedded: enrichment first, then the chunk (exact format of source doc 000)."""

from __future__ import annotations

from chalicelib.models import Enrichment


def embedding_text(title: str, category: str, section: str, enrichment: Enrichment, text: str) -> str:
    header = " | ".join(part for part in (title, category, section) if part)
    return "\n".join(
        [
            f"[{header}]",
            f"Summary: {enrichment.summary}",
            f"Keywords: {', '.join(enrichment.keywords)}",
            f"Questions: {' '.join(enrichment.questions)}",
            "---",
            text,
        ]
    )


def context_block(
    n: int, title: str, category: str, product: str, url: str | None, enrichment: Enrichment, text: str
) -> str:
    """How a chunk is shown to an answering LLM: ``[Source n: Title (Category/Product) — URL]``."""
    label = "/".join(p for p in (category, product) if p)
    head = f"[Source {n}: {title}" + (f" ({label})" if label else "") + (f" — {url}" if url else "") + "]"
    return "\n".join(
        [head, f"Summary: {enrichment.summary}", f"Keywords: {', '.join(enrichment.keywords)}", text]
    )
