"""Pure readings of a request: its intent (pricing, rules, ...), the mode it needs, the product it names."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Literal

from chalicelib import languages
from chalicelib.extraction.code import LANGUAGES
from chalicelib.models.api import RetrieveRequest
from chalicelib.text import fold


@dataclass(frozen=True)
class Intent:
    name: str
    subqueries: dict[str, str]  # language -> internal subquery
    boost_types: tuple[str, ...] = ()
    boost_critical: bool = False


# what each intent is after (its words and subqueries are per language: chalicelib/languages/<code>.yaml)
_TARGETS: dict[str, tuple[tuple[str, ...], bool]] = {  # intent -> (content types to boost, critical)
    "pricing": (("pricing",), False),
    "rules": (("guide",), True),
    "backlog": ((), False),
    "history": ((), False),
    "how-to": (("tutorial", "guide"), False),
}
_IDENTIFIER = re.compile(
    r"`[^`]+`|\b\w+\(\)|\b[a-z]+_[a-z_]+\b|\b[a-z]+[A-Z]\w*\b|\b\w+\.(py|ts|js|go|java|sh)\b"
)


def detect_intent(folded: str, langs: tuple[str, ...]) -> Intent | None:
    """The first intent (in ``languages.INTENTS`` order) whose words, in any of ``langs``, the (folded)
    question uses."""
    known = [found for found in map(languages.get, langs) if found is not None]
    for name in languages.INTENTS:
        if any(lang.intent_words.get(name) and lang.intent_words[name].search(folded) for lang in known):
            subqueries = {
                lang.code: lang.intent_subqueries[name] for lang in known if name in lang.intent_subqueries
            }
            types, critical = _TARGETS.get(name, ((), False))
            return Intent(name, subqueries, types, critical)
    return None


def decide_mode(
    request: RetrieveRequest, langs: tuple[str, ...], folded: str | None = None
) -> tuple[Literal["documental", "codigo"], str]:
    """(documental | codigo, why): the request's own mode, else what the scope and the query show
    (``folded``: the question folded, when the caller has it)."""
    if request.mode == "documental" or request.mode == "codigo":
        return request.mode, "requested"
    ref = request.scope.source_ref or ""
    if PurePosixPath(ref).suffix.lower() in LANGUAGES:
        return "codigo", f"scope points at a code file ({ref})"
    query = request.query or ""
    identifier = _IDENTIFIER.search(query)
    if identifier:
        return "codigo", f"query names code: {identifier.group(0)!r}"
    folded = fold(query) if folded is None else folded
    words = [
        lang.code_words.search(folded) for lang in filter(None, map(languages.get, langs)) if lang.code_words
    ]
    word = min(filter(None, words), key=lambda m: m.start(), default=None)  # the first in the question
    if word:
        return "codigo", f"query asks about code ({word.group(0)!r})"
    return "documental", "no code in the query or scope"


def mentioned_product(folded_query: str, products: list[str]) -> str | None:
    """The one known product the (folded) query names (None when it names none or several)."""
    folded = folded_query.replace("-", " ")
    hits = [
        p
        for p in products
        if p != "general" and re.search(r"\b" + re.escape(p.replace("-", " ")) + r"\b", folded)
    ]
    return hits[0] if len(hits) == 1 else None


_MD_HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*(?:\{\s*#[\w\-.:]+\s*\})?\s*$", re.MULTILINE)
_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")


@functools.lru_cache(maxsize=4096)
def heading_key(text: str) -> str:
    """A heading or a query reduced to its words: folded, links and Markdown marks dropped, so that
    "Pydantic `Settings`" and "pydantic settings" compare equal."""
    text = _LINK.sub(r"\1", text)
    return " ".join(re.findall(r"\w+", fold(text)))


def names_a_heading(key: str, section_title: str, content: str) -> bool:
    """The query (its ``heading_key``) is exactly the name of a section this chunk holds (its own heading
    or one inside it): someone typing "Lifespan" wants the section called Lifespan, not "Lifespan function"."""
    if not key:
        return False
    return key == heading_key(section_title) or any(
        key == heading_key(h) for h in _MD_HEADING.findall(content)
    )
