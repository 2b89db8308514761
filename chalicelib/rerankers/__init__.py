"""Second-stage rerankers: each reads the question and a passage together and scores the pair. Each module
registers its factory under the name ``SABIO_RERANKER`` gives (chalicelib/registry.py); none is imported on
the API's path unless configured."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from chalicelib.errors import RerankError


def scores_by_index(results: Iterable[Any], n: int, score_key: str) -> list[float]:
    """``[{index, <score_key>}]`` (any order) -> one score per passage in the order they were sent. A result
    that names a passage it was not given, names one twice, has no number, or leaves one out is refused:
    a ranking that does not cover what was sent is not trusted."""
    scores: dict[int, float] = {}
    for r in results:
        if not isinstance(r, dict):
            raise RerankError("malformed", f"a result is {type(r).__name__}, not an object")
        index, score = r.get("index"), r.get(score_key)
        if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < n:
            raise RerankError("malformed", f"result index {index!r} is not one of the {n} passages sent")
        if not isinstance(score, int | float) or isinstance(score, bool):
            raise RerankError("malformed", f"passage {index} has no numeric {score_key}")
        if index in scores:
            raise RerankError("malformed", f"passage {index} is scored twice")
        scores[index] = float(score)
    if len(scores) != n:
        raise RerankError("partial", f"{n - len(scores)} of the {n} passages sent were not scored")
    return [scores[i] for i in range(n)]
