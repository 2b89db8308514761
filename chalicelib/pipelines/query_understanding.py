"""Pure readings of a request: its intent (pricing, rules, ...), the mode it needs, the product it names."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Literal

from chalicelib.extraction.code import LANGUAGES
from chalicelib.models import RetrieveRequest
from chalicelib.text import fold


@dataclass(frozen=True)
class Intent:
    name: str
    subqueries: dict[str, str]  # language -> internal subquery
    boost_types: tuple[str, ...] = ()
    boost_critical: bool = False


_INTENTS: tuple[tuple[str, str, dict[str, str], tuple[str, ...], bool], ...] = (
    (
        "pricing",
        # "cuánto" alone also asks how long / how far ("¿cuánto tiempo...?"), "how much do" how much of
        # anything ("How much do ctenophores eat?"): only with a money word or verb
        r"\b(precios?|cuesta|cuestan|cuanto (vale|valen|se paga)|tarifas?|planes|factura\w*|coste|costo|"
        r"price|pricing|prices|cost|costs|how much (is|are|do (i|we|you) pay)|billing|billed|invoice)\b",
        {"es": "precios planes tarifas facturación", "en": "pricing plans prices billing"},
        ("pricing",),
        False,
    ),
    (
        "rules",
        r"\b(reglas?|normas?|politicas?|prohibido|obligatorio|permitido|rules?|policy|policies|allowed|"
        r"forbidden|mandatory)\b",
        {"es": "reglas normas políticas obligatorio", "en": "rules policies must never"},
        ("guide",),
        True,
    ),
    (
        "backlog",
        r"\b(pendientes?|backlog|roadmap|por hacer|planificado|proximos pasos|pending|to-?do list|planned|"
        r"next steps)\b",
        {"es": "backlog trabajo pendiente roadmap", "en": "backlog pending work roadmap"},
        (),
        False,
    ),
    (
        "history",
        r"\b(historial|registro de cambios|que ha cambiado|que cambio|novedades|changelog|release notes|"
        r"notas de version|what changed|what's new|new in version)\b",
        {"es": "notas de versión cambios novedades", "en": "release notes changes what is new"},
        (),
        False,
    ),
    (
        "how-to",
        # Spanish "como" is also "as" / "like": a how-to question starts with it or asks how one does
        r"(^\W*como\b(?! se llama)|"
        r"\bcomo (puedo|se(?! llama)|hago|hacer|debo|configuro|instalo|creo|activo|conecto|uso)\b|"
        r"\b(pasos|configur\w+|instal\w+|how (do|to|can)|steps?|configure|install|set up)\b)",
        {},
        ("tutorial", "guide"),
        False,
    ),
)
_CODE_WORDS = re.compile(
    r"\b(funcion|function|clase|class|metodo|method|endpoint|variable|import|excepcion|exception|script|codigo|"
    r"code|parametros?|parameters?|argumentos?|arguments?|firma|signature|return|devuelve|returns)\b"
)
_IDENTIFIER = re.compile(
    r"`[^`]+`|\b\w+\(\)|\b[a-z]+_[a-z_]+\b|\b[a-z]+[A-Z]\w*\b|\b\w+\.(py|ts|js|go|java|sh)\b"
)


def detect_intent(query: str) -> Intent | None:
    folded = fold(query)
    for name, pattern, subqueries, types, critical in _INTENTS:
        if re.search(pattern, folded):
            return Intent(name, subqueries, types, critical)
    return None


def decide_mode(request: RetrieveRequest) -> tuple[Literal["documental", "codigo"], str]:
    """(documental | codigo, why): the request's own mode, else what the scope and the query show."""
    if request.mode == "documental" or request.mode == "codigo":
        return request.mode, "requested"
    ref = request.scope.source_ref or ""
    if PurePosixPath(ref).suffix.lower() in LANGUAGES:
        return "codigo", f"scope points at a code file ({ref})"
    query = request.query or ""
    identifier = _IDENTIFIER.search(query)
    if identifier:
        return "codigo", f"query names code: {identifier.group(0)!r}"
    word = _CODE_WORDS.search(fold(query))
    if word:
        return "codigo", f"query asks about code ({word.group(0)!r})"
    return "documental", "no code in the query or scope"


def mentioned_product(query: str, products: list[str]) -> str | None:
    """The one known product the query names (None when it names none or several)."""
    folded = fold(query).replace("-", " ")
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


def names_a_heading(query: str, section_title: str, content: str) -> bool:
    """The query is exactly the name of a section this chunk holds (its own heading or one inside it):
    someone typing "Lifespan" wants the section called Lifespan, not the one called "Lifespan function"."""
    key = heading_key(query)
    if not key:
        return False
    return key == heading_key(section_title) or any(
        key == heading_key(h) for h in _MD_HEADING.findall(content)
    )
