"""A follow-up made a question of its own by the LLM (LlamaIndex's "condense question"), told to write in the
user's language: the language of the follow-up, not of the earlier turns or the documents. A reply that is not
one question, that comes late, or that drifts into another language is not used: the caller falls back to the
offline merge and says why."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from chalicelib import languages
from chalicelib.conversation.follow_up import Earlier
from chalicelib.language_id import detect
from chalicelib.llms.client import ChatLLM, LLMError
from chalicelib.llms.json_repair import JSONReplyError, parse_json_object

TURNS = 6  # the earlier turns the prompt shows
ANSWER_CHARS = 600  # what of each earlier answer it shows
PROMPT = (
    "You rewrite the last message of a conversation as a standalone question for a search over company "
    "documents. Use the earlier turns only to fill in what the last message leaves out: its subject, product, "
    "country, city, plan, site or period, or the person or code an earlier answer named. Keep every name, "
    "number and identifier as written. Write the question in {language}: the language of the last message, "
    "whatever the language of the earlier turns. If the last message already stands alone, return it "
    'unchanged. Reply with JSON only: {{"question": "..."}}'
)


@dataclass(frozen=True)
class Condensed:
    """The LLM's standalone question, or why there is none."""

    question: str | None
    reason: str | None = None
    ms: float = 0.0
    usage: dict[str, int] = field(default_factory=dict)


def prompt(question: str, lang: str | None, history: Sequence[Earlier]) -> list[dict[str, str]]:
    """The chat messages: the instruction in the user's language's name, then the thread and the message."""
    language = languages.get(lang or "")
    name = language.name if language is not None else "the language of the last message"
    lines = []
    for turn in history[-TURNS:]:
        lines.append(f"User: {turn.question}")
        if turn.answer:
            lines.append(f"Assistant: {' '.join(turn.answer.split())[:ANSWER_CHARS]}")
    thread = "\n".join(lines)
    return [
        {"role": "system", "content": PROMPT.format(language=name)},
        {"role": "user", "content": f"Conversation:\n{thread}\n\nLast message: {question}"},
    ]


def condense(
    question: str,
    lang: str | None,
    history: Sequence[Earlier],
    llm: ChatLLM,
    budget_s: float,
    served: tuple[str, ...],
) -> Condensed:
    """The standalone question the LLM writes within ``budget_s``, checked to be one question in ``lang``."""
    started = time.monotonic()
    try:
        reply = llm.complete(
            prompt(question, lang, history),
            temperature=0.0,
            json_mode=True,
            max_tokens=200,
            deadline=started + budget_s,
            retries=0,
        )
    except LLMError as exc:
        return Condensed(None, exc.why, _ms(started))
    usage = reply.usage
    found = _question(reply.text)
    if found is None:
        return Condensed(None, "the reply is not one question", _ms(started), usage)
    drift = _drifted(found, lang, served)
    if drift is not None:
        return Condensed(None, drift, _ms(started), usage)
    return Condensed(found, None, _ms(started), usage)


def _question(text: str) -> str | None:
    try:
        found = parse_json_object(text).get("question")
    except JSONReplyError:
        return None
    if not isinstance(found, str):
        return None
    found = " ".join(found.split())
    return found if found and len(found) <= 2000 and any(ch.isalnum() for ch in found) else None


def _drifted(question: str, lang: str | None, served: tuple[str, ...]) -> str | None:
    """Why a question is not in the user's language (the known failure of condensing across languages)."""
    if not lang:
        return None
    found = detect(question, served)
    if found.lang and found.lang != lang and found.confidence >= 0.6:
        return f"the rewrite is in {found.lang}, the question in {lang}"
    return None


def _ms(started: float) -> float:
    return round((time.monotonic() - started) * 1000, 1)
