"""The promises every query log keeps (SQLite and DynamoDB run the same suite)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from chalicelib.models.records import FeedbackRecord, QueryRecord
from chalicelib.protocols import QueryLog

NOW = 1_800_000_000.0
DAY = 86_400


def question(query_id: str, at: float = NOW, days: int = 30, **kw: object) -> QueryRecord:
    fields: dict[str, object] = {
        "query_id": query_id,
        "created_at": at,
        "expires_at": int(at + days * DAY),
        "endpoint": "answer",
        "key": "support",
        "text": f"question {query_id}",
        "text_hash": "h" + query_id,
        "lang": "es",
        "mode": "documental",
        "chunk_ids": ["doc1:0000:aa", "doc2:0000:bb"],
        "scores": [1.0, 0.5],
        "answered": True,
    }
    return QueryRecord.model_validate({**fields, **kw})


def vote(query_id: str, at: float = NOW, helpful: bool = True, key: str = "support") -> FeedbackRecord:
    return FeedbackRecord(
        query_id=query_id,
        created_at=at,
        expires_at=int(at + 30 * DAY),
        key=key,
        helpful=helpful,
        chunk_ids=["x"],
    )


class QueryLogContract:
    """Subclasses give ``make(clock) -> QueryLog``."""

    @pytest.fixture
    def make(self) -> Callable[[Callable[[], float]], QueryLog]:
        raise NotImplementedError

    def test_a_logged_question_reads_back_whole(self, make):  # type: ignore[no-untyped-def]
        log = make(lambda: NOW)
        q = question("q1", filters={"product": ["faro"]}, evidence=0.97, cited=["doc1:0000:aa"])
        log.log_query(q)
        assert log.get_query("q1") == q
        assert log.get_query("nope") is None

    def test_periods_and_feedback_read_in_time_order(self, make):  # type: ignore[no-untyped-def]
        log = make(lambda: NOW + 3 * DAY)
        for n, at in enumerate((NOW - 2 * DAY, NOW, NOW + DAY)):
            log.log_query(question(f"q{n}", at=at))
        log.add_feedback(vote("q1", at=NOW + 10))
        log.add_feedback(vote("q1", at=NOW + 20, helpful=False, key="sales"))
        assert [q.query_id for q in log.queries(NOW - 1)] == ["q1", "q2"]
        assert [q.query_id for q in log.queries(NOW - 3 * DAY)] == ["q0", "q1", "q2"]
        assert [(f.key, f.helpful) for f in log.feedback(NOW)] == [("support", True), ("sales", False)]
        assert log.feedback(NOW + 30) == []

    def test_what_has_expired_is_gone_for_every_reader(self, make):  # type: ignore[no-untyped-def]
        clock = [NOW]
        log = make(lambda: clock[0])
        log.log_query(question("old", days=1))
        log.log_query(question("kept", days=30))
        log.add_feedback(vote("old"))
        clock[0] = NOW + 2 * DAY
        assert log.get_query("old") is None and log.get_query("kept") is not None
        assert [q.query_id for q in log.queries(NOW - DAY)] == ["kept"]
        assert len(log.feedback(NOW - DAY)) == 1  # feedback has its own 30 days
