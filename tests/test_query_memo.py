"""Query vectors remembered: a repeated question skips the model, passages never do, the bound holds."""

from __future__ import annotations

import numpy as np

from chalicelib.embedders.query_memo import QueryMemo
from tests.fakes import HashEmbedder


class Counting(HashEmbedder):
    def __init__(self) -> None:
        super().__init__()
        self.queries = 0

    def embed_query(self, text: str) -> np.ndarray:
        self.queries += 1
        return super().embed_query(text)


def test_a_repeated_question_is_embedded_once_and_gets_the_same_vector():
    inner = Counting()
    memo = QueryMemo(inner, size=2)
    first = memo.embed_query("¿Cuánto cuesta Faro?")
    first *= 0  # a caller scaling its copy in place changes nothing remembered
    again = memo.embed_query("¿Cuánto cuesta Faro?")
    assert inner.queries == 1
    assert np.allclose(again, inner.embed_query("¿Cuánto cuesta Faro?")) and again.any()


def test_least_recently_used_questions_leave_first():
    inner = Counting()
    memo = QueryMemo(inner, size=2)
    for q in ("a", "b", "a", "c"):  # "b" is the least recently used when "c" arrives
        memo.embed_query(q)
    assert inner.queries == 3
    memo.embed_query("a")
    assert inner.queries == 3
    memo.embed_query("b")
    assert inner.queries == 4


def test_passages_and_the_space_go_to_the_model():
    inner = Counting()
    memo = QueryMemo(inner)
    assert memo.space == inner.space
    assert memo.embed_documents(["uno", "dos"]).shape == (2, inner.space.dim)
