"""Pull a JSON object out of an LLM reply: code fences, prose around it, trailing commas, smart quotes.

Kept rather than the json-repair package for a measured reason: on the replies this repairs (a fenced object
with prose around it, a trailing comma, smart quotes, ``` inside a string) json-repair 0.64.6 gives the same
objects, but it also completes a reply cut short (``{"keywords": ["pla`` becomes ``["pla"]``, a half word
stored as a keyword) where a cut reply must be refused and the chunk enriched heuristically, with the reason;
and it answers prose with an empty string rather than an error. It adds 22 ms of import to the API path."""

from __future__ import annotations

import json
import re
from typing import Any

_FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.S)
_TRAILING_COMMA = re.compile(r",\s*([}\]])")


class JSONReplyError(ValueError):
    pass


def parse_json_object(reply: str) -> dict[str, Any]:
    """The first JSON object in ``reply``, repaired where the damage is unambiguous."""
    text = reply.strip()
    if not text:
        raise JSONReplyError("empty reply")
    # the reply as it is first: a valid object may itself contain ``` inside a string value
    candidates = [text, _outer_object(text)]
    fenced = _FENCE.search(text)
    if fenced:
        inner = fenced.group(1).strip()
        candidates += [inner, _outer_object(inner)]
    for candidate in dict.fromkeys(c for c in candidates if c):
        for attempt in (candidate, _repair(candidate)):
            try:
                value = json.loads(attempt)
            except ValueError:
                continue
            if isinstance(value, dict):
                return value
    first = _first_object(_repair(text))  # one object, then prose or another one after it
    if first is not None:
        return first
    raise JSONReplyError(f"no JSON object in reply: {reply[:120]!r}")


def _first_object(text: str) -> dict[str, Any] | None:
    """The first complete object in ``text``, whatever follows it."""
    decoder = json.JSONDecoder()
    at = text.find("{")
    while at != -1:
        try:
            value, _ = decoder.raw_decode(text, at)
        except ValueError:
            at = text.find("{", at + 1)
            continue
        if isinstance(value, dict):
            return value
        at = text.find("{", at + 1)
    return None


def _outer_object(text: str) -> str | None:
    start = text.find("{")
    end = text.rfind("}")
    return text[start : end + 1] if 0 <= start < end else None


def _repair(text: str) -> str:
    text = text.replace("\u201c", '"').replace("\u201d", '"').replace("\u2018", "'").replace("\u2019", "'")
    text = _TRAILING_COMMA.sub(r"\1", text)
    return text
