"""The conversations' settings: whether the server keeps threads, how long one lives, how long it may grow,
and how a follow-up is made a question of its own (docs/api.md, "Conversations")."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from chalicelib.config.section import ConfigSection


class ConversationConfig(ConfigSection):
    """Follow-up questions answered in context: threads kept beside the query log, or sent by the caller."""

    enabled: bool = Field(
        True,
        alias="conversations",
        description="keep conversations: /answer, /retrieve and /context issue a conversation_id and read the "
        "next question in its context; false (or SABIO_LOG_QUERY_TEXT=false, which keeps no question's "
        "text): only a caller's own history is read",
    )
    ttl_hours: float = Field(
        24.0,
        gt=0,
        le=24 * 30,
        alias="conversation_ttl_hours",
        description="a conversation expires this long after its last turn; an expired id starts a new one "
        "and says so",
    )
    max_turns: int = Field(
        20,
        ge=2,
        le=200,
        alias="conversation_max_turns",
        description="the turns a conversation keeps (older ones are forgotten), and the most a caller's "
        "history may hold",
    )
    condense: Literal["auto", "llm", "offline"] = Field(
        "auto",
        alias="conversation_condense",
        description="how a follow-up becomes a question of its own: auto (the LLM when one is configured, the "
        "offline merge when it fails or drifts from the user's language), llm, or offline",
    )
    condense_budget_s: float = Field(
        3.0,
        gt=0,
        le=30,
        alias="conversation_condense_budget_s",
        description="the LLM's time for a follow-up; past it the offline merge answers",
    )
    # an expired conversation is kept this long after its expiry, so that its id is told "expired, a new
    # conversation was started" rather than "unknown"; then the store deletes it (DynamoDB's TTL)
    expired_kept_days: float = 7.0
    # what of an earlier answer a conversation keeps (the entity it named, the LLM's context)
    answer_chars: int = 1000
