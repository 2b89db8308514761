"""The configured LLM as the translator (``SABIO_TRANSLATOR=llm``): for a server with an OpenAI-compatible chat
model and neither Apertium nor Amazon Translate. One short call per question and language, bounded by
``TIMEOUT_S`` and never retried (a question must not wait on it); names and identifiers are listed in the
prompt to be kept as written. A reply that is empty, or far longer than the question (a model that explains
instead of translating), is no translation: the question is searched untranslated, as when Apertium fails."""

from __future__ import annotations

import logging
import time
from collections.abc import Collection, Sequence
from typing import TYPE_CHECKING

from chalicelib import languages
from chalicelib.errors import ConfigurationError
from chalicelib.llms.client import ChatLLM, LLMError
from chalicelib.registry import TRANSLATORS
from chalicelib.translators.names import pieces

if TYPE_CHECKING:
    from chalicelib.registry import Wiring

log = logging.getLogger(__name__)

TIMEOUT_S = 3.0
PROMPT = (
    "You are a translator. Translate the user's text from {source} into {target}. {keep}Reply with the "
    "translation only: no quotes, no notes, no explanation."
)


class LLMTranslator:
    """Translator (chalicelib.protocols) through a chat model, between ``languages``."""

    def __init__(self, llm: ChatLLM, languages: Sequence[str], timeout_s: float = TIMEOUT_S) -> None:
        self.llm = llm
        self.timeout_s = timeout_s
        self._pairs = [(a, b) for a in languages for b in languages if a != b]

    def pairs(self) -> list[tuple[str, str]]:
        return list(self._pairs)

    def translate(
        self, text: str, source: str, target: str, keep: Collection[str] = (), *, names: bool = True
    ) -> str | None:
        if (source, target) not in self._pairs or not text.strip():
            return None
        parts = pieces(text, keep, names)
        line = "".join(p for p, _ in parts)
        kept = list(dict.fromkeys(p for p, k in parts if k))
        english = languages.or_fallback("en")
        keep_line = f"Keep these words exactly as written: {', '.join(kept)}. " if kept else ""
        system = PROMPT.format(source=english.name_of(source), target=english.name_of(target), keep=keep_line)
        try:
            reply = self.llm.complete(
                [{"role": "system", "content": system}, {"role": "user", "content": line}],
                temperature=0.0,
                max_tokens=4 * len(line) // 3 + 40,
                deadline=time.monotonic() + self.timeout_s,
                retries=0,
            )
        except LLMError as exc:
            log.warning(
                "LLM translation %s->%s failed (%s): searched without a translation", source, target, exc
            )
            return None
        return _translation(reply.text, line)


def _translation(reply: str, asked: str) -> str | None:
    """The reply's first line without quotes, or None when it cannot be a translation of ``asked``."""
    lines = [x.strip() for x in reply.strip().splitlines() if x.strip()]
    text = lines[0].strip("\"'«»“”") if lines else ""
    if not text or len(text) > 3 * len(asked) + 40:
        return None
    return text


@TRANSLATORS.register("llm")
def build(wiring: Wiring) -> LLMTranslator:
    """SABIO_TRANSLATOR=llm: the configured chat model translates between the deployment's languages."""
    llm = wiring.llm()
    if llm is None:
        raise ConfigurationError("SABIO_TRANSLATOR=llm needs an LLM (SABIO_LLM_BASE_URL)")
    return LLMTranslator(llm, wiring.languages)
