"""The query log's settings: whether questions are logged, what of them is kept and for how long, and whether
feedback ranks."""

from __future__ import annotations

from chalicelib.config.section import ConfigSection, setting


class LogConfig(ConfigSection):
    """Query log and feedback: questions served by the API and what callers said of the answers, beside the chunks."""

    enabled: bool = setting(
        "query_log", True, "log questions served by the API (query_id, feedback, insights)"
    )
    keep_text: bool = setting("log_query_text", True, "false keeps only a hash of each question's text")
    retention_days: int = setting(
        "query_log_days", 30, "how long questions and feedback are kept", ge=1, le=3650
    )
    feedback_ranking: bool = setting(
        "feedback_ranking", True, "feedback on similar questions as a bounded ranking prior"
    )
