"""Offline enrichment: extractive summary, corpus-scored keywords, template questions, product, type."""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field

from chalicelib import languages
from chalicelib.enrichment.vocabulary import GENERAL, Vocabulary
from chalicelib.models.records import Enrichment
from chalicelib.text import sentences, stem, terms

_CODE_FENCE = re.compile(r"```.*?(```|$)", re.S)
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{2,}.*$", re.M)
_MARKUP = re.compile(r"^\s{0,3}(#{1,6}\s+|[-*+]\s+|\d+[.)]\s+|>\s?)|\{\s*#[\w-]+\s*\}|[`*_|]", re.M)


@dataclass(frozen=True)
class ChunkContext:
    text: str
    title: str
    section: str
    lang: str
    key: str = ""
    category: str = ""
    product: str | None = None  # from front matter / meta tags
    content_type: str | None = None


@dataclass
class CorpusStats:
    """Document frequencies of stems over the corpus, so keywords are what makes a chunk distinctive."""

    n_chunks: int = 0
    df: Counter[str] = field(default_factory=Counter)

    def add(self, text: str, lang: str) -> None:
        self.n_chunks += 1
        self.df.update(set(stem(terms(text, lang), lang)))

    def idf(self, term_stem: str) -> float:
        return math.log(1 + (self.n_chunks + 1) / (self.df.get(term_stem, 0) + 1))


def prose(text: str) -> str:
    """The chunk without code blocks and Markdown markup, for summaries and keywords."""
    text = _CODE_FENCE.sub(" ", text)
    text = _TABLE_RULE.sub("", text)
    return _MARKUP.sub("", text)


_NOT_PROSE_LINE = re.compile(r"^\s*(#{1,6}\s|\||```|~~~)")


def summary_text(text: str) -> str:
    """Prose for summaries: headings, table rows and code dropped (they make run-on "sentences")."""
    text = _CODE_FENCE.sub("\n\n", text)
    kept = ["" if _NOT_PROSE_LINE.match(line) else line for line in text.split("\n")]
    return _MARKUP.sub("", "\n".join(kept))


class HeuristicEnricher:
    name = "heuristic"

    def __init__(self, vocabulary: Vocabulary, stats: CorpusStats | None = None) -> None:
        self.vocabulary = vocabulary
        self.stats = stats or CorpusStats()

    def enrich(self, ctx: ChunkContext) -> Enrichment:
        body = prose(ctx.text)
        product = self.vocabulary.product_for(ctx.product, ctx.key, ctx.title, ctx.text)
        ctype = self.vocabulary.content_type_for(ctx.content_type, ctx.key, ctx.title, ctx.section, ctx.text)
        keywords = self.keywords(body if len(body.split()) >= 12 else ctx.text, ctx, product)
        return Enrichment(
            summary=self.summary(summary_text(ctx.text), ctx),
            keywords=keywords,
            questions=questions(ctx, product, ctype, self.vocabulary, keywords),
            product=product,
            content_type=ctype,
            source="heuristic",
        )

    def keywords(self, text: str, ctx: ChunkContext, product: str) -> list[str]:
        toks = [t for t in terms(text, ctx.lang) if len(t) > 2 and not t.isdigit()]
        heading_stems = set(stem(terms(f"{ctx.title} {ctx.section}", ctx.lang), ctx.lang))
        surfaces: dict[str, Counter[str]] = defaultdict(Counter)
        for tok, st in zip(toks, stem(toks, ctx.lang), strict=True):
            surfaces[st][tok] += 1
        scored = []
        for st, forms in surfaces.items():
            tf = 1 + math.log(sum(forms.values()))
            score = tf * self.stats.idf(st) * (1.5 if st in heading_stems else 1.0)
            scored.append((score, forms.most_common(1)[0][0]))
        scored.sort(key=lambda s: (-s[0], s[1]))
        chosen = [w for _, w in scored[:8]]
        if product != GENERAL and product not in chosen:
            chosen = [product, *chosen][:8]
        if len(scored) > 5:  # keep 5-8: drop the weak tail once there are five
            floor = 0.35 * scored[0][0]
            strong = {w for s, w in scored if s >= floor}
            chosen = [w for i, w in enumerate(chosen) if i < 5 or w in strong]
        return chosen

    def summary(self, body: str, ctx: ChunkContext, max_chars: int = 320) -> str:
        """The chunk's most representative one or two sentences, in document order."""
        candidates = [s for s in sentences(body) if len(s.split()) >= 4 and not s.endswith("?")]
        if not candidates:
            candidates = [s for s in sentences(body) if s.strip()]
        if not candidates:
            return f"{ctx.section or ctx.title}."
        weights = {st: self.stats.idf(st) for st in set(stem(terms(body, ctx.lang), ctx.lang))}
        scored = []
        for i, s in enumerate(candidates):
            stems = stem(terms(s, ctx.lang), ctx.lang)
            score = sum(weights.get(st, 0.0) for st in set(stems)) / math.sqrt(len(stems) + 1)
            scored.append((score * (1.3 if i == 0 else 1.0), i, s))
        best = sorted(scored, reverse=True)[:2]
        picked = [s for _, _, s in sorted(best, key=lambda b: b[1])]
        out = " ".join(" ".join(p.split()) for p in picked)
        if len(out) > max_chars:
            out = " ".join(picked[0].split())[:max_chars].rsplit(" ", 1)[0] + "…"
        return out


def questions(
    ctx: ChunkContext, product: str, ctype: str, vocab: Vocabulary, keywords: list[str]
) -> list[str]:
    """2-3 questions the chunk answers, in its language: literal ones first (FAQ), then templates."""
    found = [s.strip() for s in sentences(prose(ctx.text)) if s.strip().endswith("?") and len(s) < 160]
    out = [" ".join(q.split()) for q in found[:3]]
    product_name = _display(product) if product != GENERAL else ctx.title
    subject = ctx.section or ctx.title
    table = languages.or_fallback(ctx.lang).question_templates
    for template in table.get(ctype, table["overview"]):
        if len(out) >= 3:
            break
        q = template.format(product=product_name, subject=subject, subject_l=_lower_first(subject))
        if q.startswith("¿¿"):
            q = q[1:]
        if q.endswith("??"):
            q = q[:-1]
        if q not in out:
            out.append(q)
    if len(out) < 3 and keywords:
        out.append(str(table["keyword"]).format(keyword=keywords[0]))
    return out[:3]


def _display(product: str) -> str:
    return " ".join(part.capitalize() for part in product.split("-"))


def _lower_first(text: str) -> str:
    if len(text) > 1 and text[0].isupper() and not text[1].isupper():
        return text[0].lower() + text[1:]
    return text
