"""What a translator must leave as written: names and identifiers. Product names are words too: "prueba
gratuita de Faro" is not "free trial of Lighthouse", and ``user_id`` is not "user_go"."""

from __future__ import annotations

import re
from collections.abc import Collection

_WORD = re.compile(r"\w[\w.-]*\w|\w")
MAX_CHARS = 2000  # a question; longer text is cut (retrieval reads the question, not an essay)


def pieces(text: str, keep: Collection[str] = (), names: bool = True) -> list[tuple[str, bool]]:
    """``text`` as one line of at most MAX_CHARS, cut into runs to translate (False) and words to keep as
    written (True): the words in ``keep`` (compared casefolded), capitalised words inside a sentence (not
    "I"; unless ``names`` is False: a name put into the other language, "Reino Unido") and identifiers."""
    text = " ".join(text.split())[:MAX_CHARS]
    kept = {k.casefold() for k in keep}
    out: list[tuple[str, bool]] = []
    at = 0
    for m in _WORD.finditer(text):
        word = m.group()
        before = text[: m.start()].rstrip(" ¿¡\"'(«")
        named = names and word[0].isupper() and len(word) > 1 and before != "" and before[-1] not in ".?!:;"
        if named or identifier(word) or word.casefold() in kept:
            out += [(text[at : m.start()], False), (word, True)]
            at = m.end()
    out.append((text[at:], False))
    return [(p, k) for p, k in out if p]


def identifier(word: str) -> bool:
    """An identifier, a file name or a version (user_id, UserIn, api.py, 3.10): not a word to translate."""
    return any(c == "_" or c == "." or c.isdigit() for c in word) or any(c.isupper() for c in word[1:])
