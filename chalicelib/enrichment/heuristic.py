"""Offline enrichment: extractive summary, keywords scored against the language at large and their document,
template questions, product, type."""

from __future__ import annotations

import functools
import math
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field

from chalicelib import languages
from chalicelib.enrichment.vocabulary import GENERAL, Vocabulary
from chalicelib.extraction.code_context import doc_comments, first_code_line, first_sentence
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
    situation: str = ""  # code: the enclosing doc comments and the file's purpose (extraction.code_context)
    code_language: str = ""  # code: its programming language (extraction.code); empty for documents


@dataclass
class CorpusStats:
    """Document frequencies of stems over one document's chunks: a term in every chunk of its document says
    little about any one chunk."""

    n_chunks: int = 0
    df: Counter[str] = field(default_factory=Counter)

    def add(self, text: str, lang: str) -> None:
        self.n_chunks += 1
        self.df.update(set(stem(terms(text, lang), lang)))

    def spread(self, term_stem: str) -> float:
        """1.0 for a stem in one chunk, down to 0.5 for one in every chunk (documents of 4+ chunks)."""
        if self.n_chunks < 4:
            return 1.0
        return 1.0 - 0.5 * (self.df.get(term_stem, 0) - 1) / (self.n_chunks - 1)


MAX_ZIPF = 8.0  # wordfreq's Zipf scale: log10 of occurrences per billion words ("the" is 7.7)


def general_weight(words: list[str] | tuple[str, ...], lang: str) -> float:
    """How distinctive a term is in its language at large: 8 minus the Zipf frequency of its most common
    surface form (wordfreq), at least 0.25. The same for every chunk whatever else is indexed, so a chunk's
    keywords never depend on which documents came before it, and scoring them reads nothing from the store."""
    zipf = max((_zipf(w.lower(), lang) for w in words), default=0.0)
    return max(0.25, MAX_ZIPF - zipf)


@functools.lru_cache(maxsize=65_536)  # ~5 MB: the common words of a corpus; wordfreq caches too
def _zipf(word: str, lang: str) -> float:
    try:
        from wordfreq import zipf_frequency
    except ImportError:  # without the frequency lists every term is equally rare: tf decides
        return 0.0
    return float(zipf_frequency(word, _wordlist(lang)))


@functools.cache
def _wordlist(lang: str) -> str:
    """The wordfreq list for ``lang`` (English when it has none), looked up once: wordfreq lists its data
    folder on every ``available_languages`` call."""
    from wordfreq import available_languages

    return lang if lang in available_languages() else "en"


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


# a programming language's own words say nothing about what a piece of code is for
_CODE_WORDS = (
    "abstract async await bool boolean break case catch char class const continue def default defer elif "
    "else enum export extends false final finally float for func function impl import int interface "
    "isinstance lambda len let long mut none nil nonlocal null override package pass private protected "
    "pub public raise return self static str string struct super switch this throw throws true try type "
    "typeof uint usize var void while with yield"
)
CODE_WORDS = frozenset(_CODE_WORDS.split())


class HeuristicEnricher:
    name = "heuristic"

    def __init__(self, vocabulary: Vocabulary, documents: dict[str, CorpusStats] | None = None) -> None:
        self.vocabulary = vocabulary
        self.documents = documents or {}  # by document key: the spread of each stem over its chunks

    def _weight(self, term_stem: str, forms: list[str], ctx: ChunkContext) -> float:
        spread = self.documents[ctx.key].spread(term_stem) if ctx.key in self.documents else 1.0
        return general_weight(forms, ctx.lang) * spread

    def enrich(self, ctx: ChunkContext) -> Enrichment:
        # code is read as it is: Markdown's rules would take the underscores out of root_cause
        body = ctx.text if ctx.code_language else prose(ctx.text)
        product = self.vocabulary.product_for(ctx.product, ctx.key, ctx.title, ctx.text)
        ctype = self.vocabulary.content_type_for(ctx.content_type, ctx.key, ctx.title, ctx.section, ctx.text)
        keywords = self.keywords(body if len(body.split()) >= 12 else ctx.text, ctx, product)
        return Enrichment(
            summary=code_summary(ctx) if ctx.code_language else self.summary(summary_text(ctx.text), ctx),
            keywords=keywords,
            questions=questions(ctx, product, ctype, self.vocabulary, keywords),
            context=ctx.situation,
            product=product,
            content_type=ctype,
            source="heuristic",
        )

    def keywords(self, text: str, ctx: ChunkContext, product: str) -> list[str]:
        skip = CODE_WORDS if ctx.code_language else frozenset()
        toks = [t for t in terms(text, ctx.lang) if len(t) > 2 and not t.isdigit() and t not in skip]
        heading_stems = set(stem(terms(f"{ctx.title} {ctx.section}", ctx.lang), ctx.lang))
        surfaces: dict[str, Counter[str]] = defaultdict(Counter)
        for tok, st in zip(toks, stem(toks, ctx.lang), strict=True):
            surfaces[st][tok] += 1
        scored = []
        for st, forms in surfaces.items():
            tf = 1 + math.log(sum(forms.values()))
            score = tf * self._weight(st, list(forms), ctx) * (1.5 if st in heading_stems else 1.0)
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
        toks = terms(body, ctx.lang)
        forms: dict[str, list[str]] = defaultdict(list)
        for tok, st in zip(toks, stem(toks, ctx.lang), strict=True):
            forms[st].append(tok)
        weights = {st: self._weight(st, words, ctx) for st, words in forms.items()}
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


def code_summary(ctx: ChunkContext, max_words: int = 40) -> str:
    """What a code chunk's doc comments say first (a sentence of each, up to ``max_words``), else its first
    line of code past its includes and imports: a signature, not a run of code read as prose."""
    said = [first_sentence(c) for c in doc_comments(ctx.text, ctx.code_language)]
    text = " ".join(s for s in said if len(s.split()) >= 3)
    if text:
        cut = text.split()
        return " ".join(cut[:max_words]) + (" …" if len(cut) > max_words else "")
    return first_code_line(ctx.text, ctx.code_language) or f"{ctx.section or ctx.title}."


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
