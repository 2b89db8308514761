"""Products and content types: configured vocabularies and the rules that assign them to a chunk."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from chalicelib.text import fold

CONTENT_TYPES = (
    "tutorial", "reference", "feature", "pricing", "faq", "demo", "overview", "guide", "changelog",
)  # fmt: skip
# Hubs: content that resembles every question a little (a changelog line names a bit of everything) and so
# crowds the top of a dense list; retrieval down-weights it unless the question asks for it (retrieve.py).
HUB_TYPES = ("changelog",)
_CHANGELOG_PATH = re.compile(
    r"change-?log|\bchanges\b|release[-_ ]?notes|\breleases\b|notas[-_ ]de[-_ ](la[-_ ])?version|"
    r"novedades|historial[-_ ]de[-_ ]cambios|what'?s[-_ ]new"
)
# a heading that is only a version ("0.115.0", "v2.3", "1.4.2 (2024-05-01)", "2.0.0 - 2024-05-01")
_VERSION_HEADING = re.compile(
    r"^\s*(v\d+(\.\d+)+|\d+\.\d+\.\d+[\w.-]*)\s*(\(.*\)|[-–—:]\s*.*\d{4}.*)?\s*$", re.I
)
GENERAL = "general"

# Path / title cues, checked in this order (the first match wins).
_PATH_RULES: tuple[tuple[str, str], ...] = (
    ("pricing", r"pric|precio|tarifa|planes"),
    ("faq", r"\bfaq|preguntas[-_ ]frecuentes|frequently"),
    ("demo", r"\bdemos?\b"),
    ("tutorial", r"tutorial|getting[-_ ]started|primeros[-_ ]pasos|quickstart|inicio[-_ ]rapido"),
    ("guide", r"guide|gu[ií]a|runbook|how[-_ ]to|playbook|procedimiento"),
    ("reference", r"reference|referencia|\bapi\b|\bcli\b|config"),
    ("feature", r"feature|caracteristicas|funcionalidades|automatizaciones|automations"),
    ("overview", r"\bindex\b|landing|overview|about|acerca|introduc"),
)
_MONEY = re.compile(r"(\d[\d.,]*\s?(€|eur|usd|\$)|[€$]\s?\d)", re.I)
_PER_PERIOD = re.compile(
    r"/\s?(mes|month|año|year|usuario|user)|al mes|per month|mensual|monthly|anual", re.I
)


@dataclass
class Vocabulary:
    """Product ids with their aliases (matched case- and accent-insensitively) and content types."""

    products: dict[str, list[str]] = field(default_factory=dict)
    content_types: tuple[str, ...] = CONTENT_TYPES

    def learn_product(self, product: str) -> None:
        pid = normalise_label(product)
        if pid and pid != GENERAL and pid not in self.products:
            self.products[pid] = [pid.replace("-", " ")]

    def product_mentions(self, text: str) -> Counter[str]:
        folded = fold(text)
        counts: Counter[str] = Counter()
        for pid, aliases in self.products.items():
            for alias in {pid.replace("-", " "), *aliases}:
                n = len(re.findall(r"\b" + re.escape(fold(alias)) + r"\b", folded))
                if n:
                    counts[pid] += n
        return counts

    def product_for(self, explicit: str | None, key: str, title: str, text: str) -> str:
        """Front matter, then a path segment naming a product, then the most-mentioned product."""
        if explicit and normalise_label(explicit) in self.products:
            return normalise_label(explicit)
        segments = [normalise_label(s) for s in re.split(r"[/\\.]", key.lower())]
        for segment in segments:
            for pid in self.products:
                if segment == pid or segment.startswith(pid + "-") or segment.endswith("-" + pid):
                    return pid
        mentions = self.product_mentions(title) + self.product_mentions(text)
        if mentions:
            ranked = mentions.most_common(2)
            if len(ranked) == 1 or ranked[0][1] > ranked[1][1]:
                return ranked[0][0]
        return GENERAL

    def content_type_for(self, explicit: str | None, key: str, title: str, section: str, text: str) -> str:
        """Front matter, then what the chunk itself shows (prices, Q&A), then path and heading cues."""
        if explicit and normalise_label(explicit) in self.content_types:
            return normalise_label(explicit)
        if "changelog" in self.content_types and (
            _CHANGELOG_PATH.search(fold(key))
            or _CHANGELOG_PATH.search(fold(title))
            or _VERSION_HEADING.match(section)
        ):
            return "changelog"
        if len(_MONEY.findall(text)) >= 2 and _PER_PERIOD.search(text) and "pricing" in self.content_types:
            return "pricing"
        if (
            sum(1 for line in text.splitlines() if line.strip().endswith("?")) >= 2
            and "faq" in self.content_types
        ):
            return "faq"
        for haystack in (fold(key), fold(title), fold(section)):
            for ctype, pattern in _PATH_RULES:
                if ctype in self.content_types and re.search(pattern, haystack):
                    return ctype
        return "overview" if "overview" in self.content_types else self.content_types[0]


def normalise_label(value: str) -> str:
    return re.sub(r"[^a-z0-9ñ]+", "-", fold(str(value))).strip("-")
