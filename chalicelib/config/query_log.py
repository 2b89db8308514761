"""The query log's settings: whether questions are logged, what of them is kept and for how long, and whether
feedback ranks."""

from __future__ import annotations

from pydantic import Field

from chalicelib.config.section import ConfigSection


class LogConfig(ConfigSection):
    """Query log and feedback: questions served by the API and what callers said of the answers, beside the chunks."""

    enabled: bool = Field(
        True, alias="query_log", description="log questions served by the API (query_id, feedback, insights)"
    )
    keep_text: bool = Field(
        True, alias="log_query_text", description="false keeps only a hash of each question's text"
    )
    retention_days: int = Field(
        30, ge=1, le=3650, alias="query_log_days", description="how long questions and feedback are kept"
    )
    feedback_ranking: bool = Field(
        True, alias="feedback_ranking", description="feedback on similar questions as a bounded ranking prior"
    )
