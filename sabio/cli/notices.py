"""What a command says once, beside its output, in the user's language: that no translator runs (a question in
another language than the documents' is then weaker, and how to fix that), and that a store holds nothing."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

LOCALE_VARIABLES = ("LC_ALL", "LC_MESSAGES", "LANG", "LANGUAGE")


def user_language(env: Mapping[str, str] = os.environ) -> str:
    """The language of the user's locale (``es_ES.UTF-8`` -> ``es``) when Sabio speaks it, else English."""
    from chalicelib import languages

    for name in LOCALE_VARIABLES:
        code = env.get(name, "")[:2].lower()
        if code and code not in ("c", "c.", "po"):  # C and POSIX name no language
            return code if languages.get(code) is not None else languages.FALLBACK
    return languages.FALLBACK


def translation(container: Any, lang: str) -> str | None:
    """The notice that no translator runs, in ``lang``; None when one does."""
    from chalicelib import languages

    if container.translator is not None:
        return None
    off = container.settings.translator == "none"
    return languages.or_fallback(lang).note("translation_off" if off else "no_translator")


def empty_store(container: Any, lang: str) -> str | None:
    """The notice that the store holds no documents, in ``lang``; None when it holds some."""
    from chalicelib import languages

    if container.chunk_store.stats().chunks:
        return None
    return languages.or_fallback(lang).note("empty_store", store=container.settings.store_path)
