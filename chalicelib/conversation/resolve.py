"""Which question a follow-up asks: its language (the user's), then the LLM's rewrite when one is configured,
else (or when it fails) the offline merge; a question that stands alone is searched as it was asked."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from chalicelib.config.conversation import ConversationConfig
from chalicelib.conversation.condense import condense
from chalicelib.conversation.follow_up import Earlier, Merged, merge
from chalicelib.language_id import detect
from chalicelib.question.query import MIN_CONFIDENCE, names
from chalicelib.text import fold, words

if TYPE_CHECKING:
    from chalicelib.llms.client import ChatLLM
    from chalicelib.protocols import Translator

MAX_CHARS = 2000  # a request's question may be no longer
SURE = 0.8  # an earlier question is translated only when its language is this clear


@dataclass(frozen=True)
class Resolution:
    """The question to search, in the user's language, and how it was read from the thread."""

    standalone: str
    lang: str | None  # the follow-up's language (the user's)
    by: Literal["alone", "offline", "llm"] = "alone"
    took: tuple[str, ...] = ()
    replaced: tuple[str, ...] = ()
    drew_on: tuple[str, ...] = ()  # the chunks whose text the question took (an earlier answer's)
    reason: str | None = None  # why the LLM did not write it, when one is configured
    ms: float | None = None
    usage: dict[str, int] = field(default_factory=dict)


class Resolver:
    def __init__(
        self,
        config: ConversationConfig,
        served: tuple[str, ...],
        llm: ChatLLM | None = None,
        translator: Translator | None = None,
    ) -> None:
        self.config = config
        self.served = served
        self.llm = llm if config.condense != "offline" else None
        self.translator = translator

    def language(self, question: str, history: Sequence[Earlier]) -> str | None:
        """The user's language: the follow-up's when it is clear, else the last turn's."""
        found = detect(question, self.served)
        if found.lang in self.served and found.confidence >= MIN_CONFIDENCE:
            return found.lang
        return next((t.lang for t in reversed(history) if t.lang), found.lang or None)

    def resolve(self, question: str, history: Sequence[Earlier]) -> Resolution:
        lang = self.language(question, history)
        if not history:
            return Resolution(question, lang)
        offline = self.offline(question, lang, history[-1])
        if self.llm is None:
            return offline
        done = condense(question, lang, history, self.llm, self.config.condense_budget_s, self.served)
        if done.question is None:
            return _with(offline, reason=done.reason, ms=done.ms, usage=done.usage)
        if fold(done.question) == fold(question):
            return _with(Resolution(question, lang), ms=done.ms, usage=done.usage)
        asked = set(words(fold(question)))
        took = " ".join(w for w in words(done.question) if fold(w) not in asked)
        drew_on = tuple(dict.fromkeys(c for t in history if t.answer for c in t.cited))
        return Resolution(
            done.question[:MAX_CHARS],
            lang,
            "llm",
            took=(took,) if took else (),
            drew_on=drew_on,
            ms=done.ms,
            usage=done.usage,
        )

    def offline(self, question: str, lang: str | None, before: Earlier) -> Resolution:
        """The offline merge with the turn before (its question put into the user's language first)."""
        base, reason = self._in_language(before, lang)
        translate = None
        if base != before.standalone and lang and before.lang and self.translator is not None:
            source, translator = before.lang, self.translator
            translate = lambda text: translator.translate(text, source, lang, names(text))  # noqa: E731
        merged: Merged | None = merge(question, lang, before, base, translate)
        if merged is None:
            return Resolution(question, lang)
        return Resolution(
            merged.standalone[:MAX_CHARS],
            lang,
            "offline",
            took=merged.took,
            replaced=merged.replaced,
            drew_on=merged.drew_on,
            reason=reason,
        )

    def _in_language(self, before: Earlier, lang: str | None) -> tuple[str, str | None]:
        """The earlier question as searched, translated into ``lang`` when it was asked in another one."""
        if not lang or not before.lang or before.lang == lang:
            return before.standalone, None
        written = detect(before.standalone, self.served)
        if written.lang != before.lang or written.confidence < SURE:  # a mixed question is not translated
            return before.standalone, None
        if self.translator is None or (before.lang, lang) not in self.translator.pairs():
            return before.standalone, f"no translator from {before.lang} to {lang}"
        keep = names(before.standalone)
        found = self.translator.translate(before.standalone, before.lang, lang, keep)
        return (found, None) if found else (before.standalone, "the translation failed")


def _with(resolution: Resolution, **changes: object) -> Resolution:
    from dataclasses import replace

    return replace(resolution, **changes)  # type: ignore[arg-type]
