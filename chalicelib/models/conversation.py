"""Conversations: what a request may send of its thread, what a response says of it (the HTTP contract), and a
thread as the stores keep it."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

# a conversation id as the server issues it (32 hex digits); anything else of this shape is unknown (404)
CONVERSATION_ID = r"^[A-Za-z0-9_-]{1,64}$"
MAX_HISTORY = (
    200  # the most turns a request may send; the server's own bound (SABIO_CONVERSATION_MAX_TURNS) is lower
)


class HistoryTurn(BaseModel):
    """An earlier turn of a caller that keeps its own thread: the question as asked, and the answer it got."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)
    question: str = Field(min_length=1, max_length=2000)
    answer: str | None = Field(default=None, max_length=8000)


class AskedInThread(BaseModel):
    """The request fields of a conversation (RetrieveRequest has them): the server's thread, or the caller's."""

    conversation_id: str | None = Field(
        default=None,
        pattern=CONVERSATION_ID,
        description="the conversation this question follows up (from an earlier response); absent: a new "
        "conversation. Another caller's, or an unknown one, is a 404; an expired one starts a new conversation "
        "and the response says so",
    )
    history: list[HistoryTurn] | None = Field(
        default=None,
        max_length=MAX_HISTORY,
        description="for a caller that keeps its own thread: the earlier turns, oldest first (not with "
        "conversation_id; at most SABIO_CONVERSATION_MAX_TURNS)",
    )


class ThreadInfo(BaseModel):
    """How a question was read in its conversation."""

    turn: int = Field(description="this question's place in the conversation (1: the first)")
    resolved_by: Literal["alone", "offline", "llm"] = Field(
        description="alone: the question stands alone (searched as asked); offline: merged with what the "
        "thread is about by Sabio's rules; llm: rewritten by the LLM"
    )
    took: list[str] = Field(default_factory=list, description="what the question took from earlier turns")
    replaced: list[str] = Field(
        default_factory=list, description="what of the earlier question this one replaced ('en España')"
    )
    started: bool = Field(False, description="this request started the conversation")
    expired: bool = Field(
        False, description="the conversation_id sent had expired: this is a new conversation"
    )
    forgotten: int = Field(
        0, description="earlier answers left out because the caller may no longer read what they quoted"
    )
    reason: str | None = Field(
        None,
        description="why it was not rewritten as configured: the LLM failed or wrote in another language "
        "(the offline merge answered), or no translator for an earlier question in another language",
    )
    ms: float | None = None
    usage: dict[str, int] = Field(default_factory=dict)


class InThread(BaseModel):
    """The response fields of a conversation (RetrieveResponse and AnswerResponse have them)."""

    conversation_id: str | None = Field(
        None,
        description="send it with the next question to ask in context (null: conversations are off, the "
        "caller sent its own history, or a bootstrap map)",
    )
    standalone_query: str | None = Field(
        None, description="the question as it was searched: the follow-up made a question of its own"
    )
    thread: ThreadInfo | None = None


class Turn(BaseModel):
    """One turn as a conversation keeps it."""

    question: str  # as the user typed it
    standalone: str  # as it was searched
    lang: str = ""  # the question's language ("" when unclear)
    answer: str | None = None  # what /answer said (cut), None when not answered or only retrieved
    cited: list[str] = Field(default_factory=list)  # the chunks the answer quoted
    # the chunks whose text ``standalone`` took (an earlier answer's name): it is read as ``question`` when
    # the caller may no longer read one of them
    drew_on: list[str] = Field(default_factory=list)
    at: float = 0.0


class Conversation(BaseModel):
    """A thread: whose it is, when it stops being one, and its last turns."""

    conversation_id: str
    owner: str  # the caller: the key's name and, with identity, the user ("" on a server without keys)
    created_at: float
    active_until: float  # the last turn plus the TTL: past it the id starts a new conversation
    expires_at: int  # epoch seconds: when the store deletes it (DynamoDB's TTL attribute)
    asked: int = 0  # the questions asked in it (its turns keep the last few)
    turns: list[Turn] = Field(default_factory=list)
