"""Fitting the answer confidence: a logistic model on the labelled answers of ``confidence.data``, its L2
strength chosen by leave-one-folder-out validation, its default threshold the lowest at which the held-out
company folders' answers are right often enough; written as the weights file the answerer reads.

    python -m sabio.evaluation.confidence.fit [--rows datasets/confidence/signals.jsonl] [--out FILE]

Deterministic (Newton's method from zero): a test refits the shipped weights from the shipped rows.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from chalicelib.answer.confidence import WEIGHTS, Model, Signals
from sabio.evaluation.calibration import auroc
from sabio.evaluation.confidence.data import Row, read

ROWS = Path(__file__).resolve().parents[3] / "datasets" / "confidence" / "signals.jsonl"
VERSION = "2026-12-07"
PENALTIES = (0.3, 1.0, 3.0, 10.0, 30.0, 100.0)  # L2 strengths tried (on standardised inputs)
PRECISION = 0.92  # the default threshold: held-out company answers right at least this often
XQUAD_SHARE = 0.5  # XQuAD's rows weigh, together, this share of the whole (company folders the rest)


@dataclass(frozen=True)
class Data:
    x: np.ndarray
    y: np.ndarray
    w: np.ndarray
    groups: np.ndarray
    inputs: tuple[str, ...]


def matrix(rows: list[Row]) -> Data:
    """The rows as inputs, labels, weights (each XQuAD pool and each company folder weighed as a whole) and
    folder names."""
    named = [Signals.from_row(r).row() for r in rows]
    inputs = tuple(sorted(named[0]))
    x = np.array([[r[k] for k in inputs] for r in named], dtype=np.float64)
    y = np.array([r["label"] for r in rows], dtype=np.float64)
    groups = np.array([r["group"] for r in rows])
    xquad = np.char.startswith(groups.astype(str), "xquad")
    w = np.ones(len(rows))
    for share, mask in ((XQUAD_SHARE, xquad), (1 - XQUAD_SHARE, ~xquad)):
        names = sorted(set(groups[mask]))
        for g in names:
            at = groups == g
            w[at] = share * len(rows) / (len(names) * at.sum())
    return Data(x, y, w, groups, inputs)


def logistic(x: np.ndarray, y: np.ndarray, w: np.ndarray, penalty: float) -> tuple[np.ndarray, float]:
    """Weighted L2-penalised logistic regression by Newton's method (the intercept is not penalised)."""
    a = np.hstack([np.ones((len(x), 1)), x])
    beta = np.zeros(a.shape[1])
    ridge = np.full(a.shape[1], penalty)
    ridge[0] = 0.0
    for _ in range(100):
        p = 1 / (1 + np.exp(-np.clip(a @ beta, -40, 40)))
        gradient = a.T @ (w * (p - y)) + ridge * beta
        hessian = (a * (w * p * (1 - p))[:, None]).T @ a + np.diag(ridge)
        step = np.linalg.solve(hessian, gradient)
        beta -= step
        if np.max(np.abs(step)) < 1e-10:
            break
    return beta[1:], float(beta[0])


def standardise(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    scale[scale == 0] = 1.0
    return mean, scale


def held_out(data: Data, penalty: float) -> np.ndarray:
    """Each row's probability from a model fitted without its folder."""
    out = np.zeros(len(data.y))
    for g in sorted(set(data.groups)):
        at = data.groups == g
        mean, scale = standardise(data.x[~at])
        coef, b = logistic((data.x[~at] - mean) / scale, data.y[~at], data.w[~at], penalty)
        out[at] = 1 / (1 + np.exp(-np.clip(b + ((data.x[at] - mean) / scale) @ coef, -40, 40)))
    return out


def log_loss(p: np.ndarray, y: np.ndarray, w: np.ndarray) -> float:
    p = np.clip(p, 1e-9, 1 - 1e-9)
    return float(-(w * (y * np.log(p) + (1 - y) * np.log(1 - p))).sum() / w.sum())


def threshold_for(p: np.ndarray, y: np.ndarray, precision: float = PRECISION) -> float:
    """The threshold that keeps the most answers while those kept (p >= it) are right at least ``precision``
    of the time (0.5 when none gets there)."""
    order = np.argsort(-p, kind="stable")
    share = np.cumsum(y[order]) / np.arange(1, len(order) + 1)
    good = np.flatnonzero(share >= precision)
    return float(np.floor(p[order][good.max()] * 1e4) / 1e4) if len(good) else 0.5


def fit(rows: list[Row]) -> tuple[Model, dict[str, Any]]:
    """The shipped model from ``rows``, and what chose it (each penalty's held-out log loss and AUROC)."""
    data = matrix(rows)
    company = ~np.char.startswith(data.groups.astype(str), "xquad")
    predicted = {penalty: held_out(data, penalty) for penalty in PENALTIES}
    tried = {
        penalty: {
            "log_loss": round(log_loss(p[company], data.y[company], data.w[company]), 5),
            "auroc": round(auroc(p[company], data.y[company]) or 0.0, 4),
        }
        for penalty, p in predicted.items()
    }
    best = min(PENALTIES, key=lambda c: (tried[c]["log_loss"], c))
    p = predicted[best]
    threshold = threshold_for(p[company], data.y[company])
    mean, scale = standardise(data.x)
    coef, intercept = logistic((data.x - mean) / scale, data.y, data.w, best)
    model = Model(
        version=VERSION,
        inputs=data.inputs,
        mean=tuple(round(float(v), 8) for v in mean),
        scale=tuple(round(float(v), 8) for v in scale),
        coef=tuple(round(float(v), 8) for v in coef),
        intercept=round(intercept, 8),
        threshold=threshold,
    )
    report = {
        "penalty": best,
        "tried": {str(c): t for c, t in tried.items()},
        "threshold": threshold,
        "held_out": {
            g: _summary(p[data.groups == g], data.y[data.groups == g], threshold)
            for g in sorted(set(data.groups))
        },
    }
    return model, report


def _summary(p: np.ndarray, y: np.ndarray, threshold: float) -> dict[str, Any]:
    kept = p >= threshold
    return {
        "answers": int(len(y)),
        "right": round(float(y.mean()), 3) if len(y) else None,
        "auroc": None if (a := auroc(p, y)) is None else round(a, 3),
        "kept": round(float(kept.mean()), 3) if len(y) else None,
        "precision": round(float(y[kept].mean()), 3) if kept.any() else None,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rows", type=Path, default=ROWS)
    parser.add_argument("--out", type=Path, default=WEIGHTS)
    args = parser.parse_args(argv)
    model, report = fit(read(args.rows))
    args.out.write_text(json.dumps(model.as_json(), indent=1) + "\n", "utf-8")
    print(json.dumps(report, indent=1))
    print(f"wrote {args.out} (penalty {report['penalty']}, threshold {model.threshold})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
