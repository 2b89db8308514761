"""The events of a streamed answer, the same at every door, and their encoding as server-sent events.

- ``sources``: what retrieval found (the items, as soon as it is done);
- ``delta``: ``{"text": ...}``, the answer's words as the LLM writes them (an extractive answer: one event);
- ``answer``: the answer response exactly as POST /answer returns it (verified, with its citations, checks
  and ``query_id``), plus ``withdrawn``: null, or why the words streamed before it were not kept (a sentence
  its citation does not hold, a model that failed, an abstention), in which case this answer replaces them;
- ``end``: ``{"query_id": ...}``, the last event;
- ``error``: ``{"code", "message"}``, Sabio's JSON error shape, when the answer fails after the first event
  (a bad request is refused before any: its 4xx JSON response, as without streaming).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from chalicelib.models.api import AnswerResponse
from chalicelib.retrieve.results import Retrieved

EVENT_STREAM = "text/event-stream"
SOURCES_FIELDS = {"query", "mode", "lang", "namespaces", "items", "applied", "notes", "timings_ms"}


@dataclass(frozen=True)
class Event:
    name: str  # sources, delta, answer, end, error
    data: dict[str, Any]

    def sse(self) -> bytes:
        """The event as the text/event-stream format writes it (one ``data`` line: JSON holds no newline)."""
        body = json.dumps(self.data, ensure_ascii=False, separators=(",", ":"))
        return f"event: {self.name}\ndata: {body}\n\n".encode()


def sources(retrieved: Retrieved) -> Event:
    return Event("sources", retrieved.response.model_dump(include=SOURCES_FIELDS))


def answered(response: AnswerResponse, shown: str) -> Event:
    """The answer event: the response, and whether the words shown before it were withdrawn (and why)."""
    return Event("answer", {**response.model_dump(), "withdrawn": withdrawn(response, shown)})


def withdrawn(response: AnswerResponse, shown: str) -> str | None:
    """None when the streamed words are the answer; else why they were withdrawn (the answer replaces them).
    An extractive answer's one piece is the answer itself, an abstention included."""
    if not shown:
        return None
    same = " ".join(shown.split()) == " ".join(response.answer.split())
    if same and (response.extractive or response.answered):
        return None
    if not response.answered:
        why = "; ".join(response.citation_issues[:2]) or (response.notes[-1] if response.notes else "")
        return f"the streamed answer did not pass its checks ({why or 'no citation holds it'})"
    if response.answered_by != "llm":
        failed = response.attempts[-1] if response.attempts else "the model's reply failed its checks"
        return f"the streamed answer failed ({failed}); answered by {response.answered_by} instead"
    return "sentences the citations do not support were cut from the streamed answer"


def wants_stream(headers: Mapping[str, str], stream_field: bool) -> bool:
    """A streamed answer is asked for by ``Accept: text/event-stream`` or by ``"stream": true``."""
    accept = next((v for k, v in headers.items() if k.lower() == "accept"), "") or ""
    return stream_field or EVENT_STREAM in accept.lower()
