"""What a response says beyond its items: summary, topics, follow-ups, critical points (pure functions)."""

from __future__ import annotations

import re
from collections import Counter
from functools import lru_cache

from chalicelib.models.api import CriticalPoint, FollowUp
from chalicelib.models.records import StoredChunk
from chalicelib.text import fold, sentences

_CUES = re.compile(
    r"\b(nunca|siempre|obligatori[oa]s?|prohibid[oa]s?|deben?|plazos?|fecha limite|importante|advertencia|"
    r"atencion|no se puede|no se pueden|never|always|must|mandatory|forbidden|deadline|warning|important|"
    r"do not|don't|required)\b"
)


def summary(chunks: list[StoredChunk], *, per_document: bool = False, limit: int = 2) -> str:
    """Stored enrichment summaries of the best chunks (one per document for a map)."""
    seen_docs: set[str] = set()
    parts: list[str] = []
    for c in chunks:
        text = c.enrichment.summary.strip()
        if not text or text in parts or (per_document and c.document_id in seen_docs):
            continue
        seen_docs.add(c.document_id)
        parts.append(f"{c.title}: {text}" if per_document else text)
        if len(parts) == limit:
            break
    return " ".join(parts)


def topics(chunks: list[StoredChunk], *, limit: int = 8, with_sections: bool = False) -> list[str]:
    counts: Counter[str] = Counter()
    for rank, c in enumerate(chunks):
        weight = 1.0 / (1 + rank)
        for kw in c.enrichment.keywords:
            counts[kw] += weight  # type: ignore[assignment]
        if with_sections and c.product != "general":
            counts[c.product] += 2 * weight  # type: ignore[assignment]
    out = [kw for kw, _ in counts.most_common(limit)]
    if with_sections:
        for c in chunks:
            if c.section_title and c.section_title not in out and len(out) < limit + 4:
                out.append(c.section_title)
    folded: set[str] = set()
    unique = []
    for t in out:
        if fold(t) not in folded:
            folded.add(fold(t))
            unique.append(t)
    return unique


def follow_ups(chunks: list[StoredChunk], *, skip_first: bool = True, limit: int = 8) -> list[FollowUp]:
    refs: list[FollowUp] = []
    for c in chunks[1:] if skip_first else chunks:
        if c.enrichment.questions:
            refs.append(FollowUp(kind="question", text=c.enrichment.questions[0], document_id=c.document_id))
    docs = list(dict.fromkeys((c.document_id, c.title) for c in chunks))
    refs += [FollowUp(kind="document", text=title, document_id=doc) for doc, title in docs[:4]]
    sections = list(
        dict.fromkeys(
            (c.document_id, f"{c.title} — {c.section_title}")
            for c in chunks
            if c.section_title and c.section_title != c.title
        )
    )
    refs += [FollowUp(kind="section", text=text, document_id=doc) for doc, text in sections[:3]]
    return refs[:limit]


def marked_points(chunks: list[StoredChunk]) -> list[CriticalPoint]:
    """Every chunk marked critical at ingestion, with its summary as the point."""
    return [
        CriticalPoint(
            text=c.enrichment.summary or c.content[:200],
            chunk_id=c.chunk_id,
            document_id=c.document_id,
            title=c.title,
            origin="marked",
            reason="tag 'critical'" if "critical" in [t.lower() for t in c.tags] else "marked critical",
        )
        for c in chunks
        if c.critical
    ]


def inferred_points(chunks: list[StoredChunk], limit: int = 5) -> list[CriticalPoint]:
    """Sentences that read as rules, warnings or deadlines."""
    out: list[CriticalPoint] = []
    for c in chunks:
        if c.kind == "code":
            continue
        found = _first_cue(c.content)
        if found is not None:
            sentence, cue = found
            out.append(
                CriticalPoint(
                    text=sentence,
                    chunk_id=c.chunk_id,
                    document_id=c.document_id,
                    title=c.title,
                    origin="inferred",
                    reason=f"states {cue!r}",
                )
            )
        if len(out) >= limit:
            break
    return out


@lru_cache(maxsize=4096)
def _first_cue(content: str) -> tuple[str, str] | None:
    """A chunk's first sentence that reads as a rule, and its cue (remembered: chunks recur across queries)."""
    for s in sentences(content):
        cue = _CUES.search(fold(s))
        if cue and 5 <= len(s.split()) <= 60 and not s.lstrip().startswith(("#", "|", "```")):
            return " ".join(s.split()), cue.group(0)
    return None
