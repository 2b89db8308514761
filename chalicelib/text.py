"""Text utilities shared by enrichment, search and answers: folding, tokens, stop-words, sentences."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Set
from functools import lru_cache
from typing import Any

from chalicelib import languages

_WORD = re.compile(r"[^\W_]+(?:[-'][^\W_]+)*", re.UNICODE)
# A sentence ends at . ! ? … followed by space + an upper-case letter, digit, quote or opening ¿/¡.
# a sentence ends at . ! ? … before a capital, a digit, an opening mark; not after an initial ("Nicholas E.
# Golovin", "J. R. R. Tolkien": one capital letter and its dot)
# Spanish writes a plural abbreviation with its capital doubled ("RR. HH.", "EE. UU.", "CC. OO."): no end there
_DOUBLED = "|".join(c + c for c in "ABCDEFGHIJKLMNOPRSTUV")
_SENTENCE_END = re.compile(
    rf"(?<!\b[A-ZÁÉÍÓÚÑÜ]\.)(?<!\b(?:{_DOUBLED})\.)(?<=[.!?…])\s+(?=[\"'“¿¡(\[A-ZÁÉÍÓÚÑÜ0-9])"
)


SHORT = 300  # a question, a title, a heading: folded once per process however often it is read


def fold(text: str) -> str:
    """Lower-case and strip diacritics (``Café`` -> ``cafe``), keeping ``ñ`` distinct from ``n``. A short text
    (a request's question, read by every step of the request) is folded once and remembered."""
    if text.isascii():  # nothing to decompose (most code, most English): 20x faster
        return text.lower()
    return _fold_short(text) if len(text) <= SHORT else _fold(text)


@lru_cache(maxsize=4096)
def _fold_short(text: str) -> str:
    return _fold(text)


def _fold(text: str) -> str:
    text = text.lower().replace("ñ", "\x00")
    decomposed = unicodedata.normalize("NFKD", text)
    stripped = "".join(c for c in decomposed if not unicodedata.combining(c))
    return stripped.replace("\x00", "ñ")


def words(text: str) -> list[str]:
    """Word tokens of ``text`` as they appear (no folding)."""
    return _WORD.findall(text)


def stopwords(lang: str | None) -> frozenset[str]:
    """Folded stop-words of ``lang``; of every registered language when it is unknown or undetected."""
    found = languages.get(lang or "")
    return found.stopwords if found is not None else _every_stopword()


@lru_cache(maxsize=1)
def _every_stopword() -> frozenset[str]:
    return frozenset().union(*(languages.require(code).stopwords for code in languages.registered()))


def terms(text: str, lang: str | None = None, *, keep_stopwords: bool = False) -> list[str]:
    """Folded word tokens, stop-words of ``lang`` (or of every registered language) removed."""
    if keep_stopwords:
        return words(fold(text))
    stop = stopwords(lang)
    return [w for w in _folded_words(text) if len(w) >= 2 and w not in stop]


def _folded_words(text: str) -> tuple[str, ...]:
    return _short_words(text) if len(text) <= SHORT else tuple(words(fold(text)))


@lru_cache(maxsize=4096)
def _short_words(text: str) -> tuple[str, ...]:
    """A question's words, read by each list of a search and each reading of an answer: split once."""
    return tuple(words(fold(text)))


@lru_cache(maxsize=8)
def _stemmer(algorithm: str) -> Any:
    import Stemmer  # PyStemmer: C Snowball, light enough for the API path

    return Stemmer.Stemmer(algorithm)


def stem(tokens: Iterable[str], lang: str | None) -> list[str]:
    """Snowball stems in ``lang`` (its registry entry names the algorithm); otherwise unchanged."""
    toks = list(tokens)
    found = languages.get(lang or "")
    if found is None or not found.snowball:
        return toks
    return list(_stemmer(found.snowball).stemWords(toks))


def sentences(text: str) -> list[str]:
    """Split prose into sentences; each is a verbatim substring of ``text`` (line breaks kept)."""
    out: list[str] = []
    for block in re.split(r"\n\s*\n", text):
        for line_group in _split_lines(block):
            for s in _SENTENCE_END.split(line_group):
                s = s.strip()
                if s:
                    out.append(s)
    return out


def _split_lines(block: str) -> list[str]:
    """List items, table rows and headings are sentences of their own; wrapped prose stays together."""
    lines = block.split("\n")
    if any(re.match(r"\s*([-*+]|\d+[.)]|\||#)", ln) for ln in lines):
        return [ln for ln in lines if ln.strip()]
    return [block]


def token_estimate(text: str) -> int:
    """Documented token estimate for the e5 tokenizer: 4/3 tokens per word, punctuation counted too.

    Measured on the FastAPI docs and the example corpus, it stays within ~15% of the real
    multilingual-e5 SentencePiece count for Spanish and English prose, and over-estimates code.
    Text without spaces (minified JS/JSON, base64, long URLs) is counted by its length, so the chunk
    budget holds for it too.
    """
    found = _WORD.findall(text)
    n_punct = len(re.findall(r"[^\w\s]", text))
    # a "word" past 24 characters is no prose word (base64, hashes, identifiers): e5 reads random letters
    # and digits at ~1.3 characters a token (900 of them were 671 tokens; hex 542)
    long_extra = sum(len(w) / 1.3 - 4 / 3 for w in found if len(w) > 24)
    return int(len(found) * 4 / 3 + long_extra + n_punct * 0.5) + 1


@lru_cache(maxsize=1024)  # ~18 KB a chunk's set: 1,024 of them stay under 20 MB
def shingles(text: str, size: int = 5) -> frozenset[int]:
    """Hashed word n-grams used for near-duplicate detection. Remembered per text: every retrieve compares
    its candidates, and the same chunks come back query after query (5 ms a query at 10,000 chunks)."""
    toks = words(fold(text))
    if len(toks) < size:
        return frozenset({hash(" ".join(toks))} if toks else ())
    return frozenset(hash(" ".join(toks[i : i + size])) for i in range(len(toks) - size + 1))


def jaccard(a: Set[int], b: Set[int]) -> float:
    if not a or not b:
        return 0.0
    shared = len(a & b)
    return shared / (len(a) + len(b) - shared)
