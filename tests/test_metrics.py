"""Ranking metrics on hand-checked cases, and the hard Spanish pool built as the evaluation issue defines it."""

from __future__ import annotations

import math

import pytest

from sabio.evaluation.datasets import hard_spanish_pool
from sabio.evaluation.metrics import mrr_at, ndcg_at, recall_at, summary
from tests.conftest import EVAL

QRELS = {"q1": {"a": 1}, "q2": {"b": 1, "c": 1}, "q3": {"z": 1}}
RUNS = {"q1": ["a", "x"], "q2": ["x", "c", "y", "b"], "q3": ["x", "y"]}


def test_recall_mrr_ndcg():
    assert recall_at(RUNS, QRELS, 1) == pytest.approx((1 + 0 + 0) / 3)
    assert recall_at(RUNS, QRELS, 4) == pytest.approx((1 + 1 + 0) / 3)
    assert mrr_at(RUNS, QRELS, 10) == pytest.approx((1 + 1 / 2 + 0) / 3)
    q2 = (1 / math.log2(3) + 1 / math.log2(5)) / (1 + 1 / math.log2(3))
    assert ndcg_at(RUNS, QRELS, 10) == pytest.approx((1 + q2 + 0) / 3)
    row = summary(RUNS, QRELS)
    assert row["failure@20"] == pytest.approx(100 - row["recall@20"])


@pytest.mark.skipif(not (EVAL / "squad_es").is_dir(), reason="needs ../shared/eval")
def test_hard_spanish_pool_has_the_documented_size():
    data = hard_spanish_pool(EVAL)
    assert (len(data.corpus), len(data.queries)) == (2006, 1190)
    assert all(doc in data.corpus for rel in data.qrels.values() for doc in rel)
