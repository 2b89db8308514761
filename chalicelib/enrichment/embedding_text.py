"""The text that gets embedded: enrichment first, then the chunk (exact format of source doc 000)."""

from __future__ import annotations

from chalicelib.extraction.code_context import identifier_words, is_compound
from chalicelib.models.records import Enrichment, StoredChunk


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


def contextual_text(title: str, heading_path: list[str] | tuple[str, ...], text: str) -> str:
    """The chunk under a one-line breadcrumb of where it sits (document title > headings), nothing invented:
    the situating context of contextual retrieval, without the template questions and summary."""
    trail = [title] if title else []
    for heading in heading_path:
        if heading and heading not in trail:
            trail.append(heading)
    return f"{' > '.join(trail)}\n\n{text}" if trail else text


def for_embedding(
    mode: str, title: str, category: str, heading_path: list[str], enrichment: Enrichment, text: str
) -> str:
    """What the dense vector sees, by ``embed_text`` mode: ``raw`` (the chunk alone), ``contextual``
    (breadcrumb + chunk) or ``enriched`` (the source design's full enrichment header + chunk)."""
    if mode == "raw":
        return text
    if mode == "contextual":
        return contextual_text(title, heading_path, text)
    section = heading_path[-1] if heading_path else title
    return embedding_text(title, category, section, enrichment, text)


def for_code(
    mode: str, path: str, category: str, heading_path: list[str], enrichment: Enrichment, text: str
) -> str:
    """What a code chunk's dense vector sees, by ``code_embed_text`` mode, always ending with its lines:

    - ``enriched``: the full enrichment header (path, category, symbol, summary, keywords, template
      questions), as every chunk had before code had its own header;
    - ``enriched-name``: the same with the file name where the path is (code's title until code was
      titled by its path: the header the code-question set first measured);
    - ``contextual``: that path line, the words of its compound names (``MakeRoomForWrite``: make room for
      write), then the enrichment's context (enclosing doc comments, the file's purpose, or an LLM's
      situating sentence);
    - ``path``: the path and the symbol path once (``src/app/core.py > class Context > def invoke``);
    - ``path-summary``: that line, then the enrichment's summary (a docstring's first sentence);
    - ``raw``: the lines alone.
    """
    symbol = [h for h in heading_path[1:] if h]  # heading_path[0] is the file name, already in the path
    if mode == "raw":
        return text
    if mode in ("enriched", "enriched-name"):
        title = path.rsplit("/", 1)[-1] if mode == "enriched-name" else path
        section = heading_path[-1] if heading_path else title
        return embedding_text(title, category, section, enrichment, text)
    head = " > ".join([path, *symbol])
    if mode == "path-summary" and enrichment.summary:
        head = f"{head}\n{enrichment.summary}"
    if mode == "contextual":
        names = " ".join(" ".join(identifier_words(n)) for n in _names(symbol) if is_compound(n))
        head = "\n".join(part for part in (head, names, enrichment.context) if part)
    return f"{head}\n\n{text}"


def _names(symbols: list[str]) -> list[str]:
    """The names in a symbol path (``class Context``, ``fn a, fn b``): each entry's words after its kind."""
    return [word for entry in symbols for part in entry.split(", ") for word in part.split()[1:]]


def context_block(
    n: int, title: str, category: str, product: str, url: str | None, enrichment: Enrichment, text: str
) -> str:
    """How a chunk is shown to an answering LLM: ``[Source n: Title (Category/Product) — URL]``."""
    label = "/".join(p for p in (category, product) if p)
    head = f"[Source {n}: {title}" + (f" ({label})" if label else "") + (f" — {url}" if url else "") + "]"
    return "\n".join(
        [head, f"Summary: {enrichment.summary}", f"Keywords: {', '.join(enrichment.keywords)}", text]
    )


def build_context(chunks: list[StoredChunk]) -> str:
    """What was retrieved, as the numbered, enriched context block a prompt reads (/context, LLM answers,
    maps)."""
    return "\n\n".join(
        context_block(n, c.title, c.category, c.product, c.url, c.enrichment, c.content)
        for n, c in enumerate(chunks, start=1)
    )
