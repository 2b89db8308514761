"""Whether a confidence means something, read in aggregate: its AUROC (right against wrong answers), the
precision-coverage curve (answers kept and their share right, threshold by threshold), the reliability
diagram (confidence bins against the share right in each) and where the default threshold sits."""

from __future__ import annotations

from typing import Any

import numpy as np

CURVE = tuple(round(0.05 * i, 2) for i in range(20))  # thresholds 0.00 .. 0.95
BINS = 10


def auroc(p: np.ndarray, y: np.ndarray) -> float | None:
    """The probability that a right answer scores above a wrong one (ties count half); None without both."""
    p, y = np.asarray(p, dtype=float), np.asarray(y, dtype=float)
    right, wrong = p[y == 1], p[y == 0]
    if not len(right) or not len(wrong):
        return None
    values = np.concatenate([right, wrong])
    order = np.argsort(values, kind="stable")
    ranks = np.empty(len(values))
    sorted_values = values[order]
    start = 0
    while start < len(values):  # ties share their average rank
        end = start
        while end + 1 < len(values) and sorted_values[end + 1] == sorted_values[start]:
            end += 1
        ranks[order[start : end + 1]] = (start + end) / 2 + 1
        start = end + 1
    n_right, n_wrong = len(right), len(wrong)
    return float((ranks[:n_right].sum() - n_right * (n_right + 1) / 2) / (n_right * n_wrong))


def at(p: np.ndarray, y: np.ndarray, threshold: float) -> dict[str, float | None]:
    """Coverage (share of questions answered) and precision (share of answers right) at ``threshold``."""
    kept = np.asarray(p) >= threshold
    n = len(kept)
    return {
        "threshold": threshold,
        "coverage": round(float(kept.mean()), 4) if n else None,
        "precision": round(float(np.asarray(y)[kept].mean()), 4) if kept.any() else None,
    }


def reliability(p: np.ndarray, y: np.ndarray, bins: int = BINS) -> list[dict[str, float | int]]:
    """Equal-width confidence bins: each bin's answers, mean confidence and share right."""
    p, y = np.asarray(p, dtype=float), np.asarray(y, dtype=float)
    which = np.minimum((p * bins).astype(int), bins - 1)
    out = []
    for b in range(bins):
        inside = which == b
        if inside.any():
            out.append(
                {
                    "bin": round(b / bins, 2),
                    "answers": int(inside.sum()),
                    "confidence": round(float(p[inside].mean()), 4),
                    "right": round(float(y[inside].mean()), 4),
                }
            )
    return out


def calibration(p: list[float] | np.ndarray, y: list[bool] | np.ndarray, threshold: float) -> dict[str, Any]:
    """A set's confidence read in aggregate (``y``: whether each candidate answer is right)."""
    p, y = np.asarray(p, dtype=float), np.asarray(y, dtype=float)
    a = auroc(p, y)
    bins = reliability(p, y)
    gap = sum(abs(b["confidence"] - b["right"]) * b["answers"] for b in bins) / max(1, len(p))
    return {
        "answers": int(len(p)),
        "right": round(float(y.mean()), 4) if len(y) else None,
        "auroc": None if a is None else round(a, 4),
        "expected_calibration_error": round(gap, 4),
        "default": at(p, y, threshold),
        "curve": [at(p, y, t) for t in CURVE],
        "reliability": reliability(p, y),
    }
