"""Fitting the answer confidence: a logistic model on the labelled answers of ``confidence.data``.

How much XQuAD weighs beside the company folders, and the L2 strength, are chosen by leave-one-folder-out
validation: each company folder's answers are predicted by a model fitted without that folder, and the
choice with the lowest log loss on those held-out predictions wins. The default threshold is then read off
the held-out predictions of the training folders (written blind, like the test set): the lowest confidence
at which the answers given, wrong ones counted against all questions, stay under ``WRONG`` — a confidently
wrong answer is the failure a user minds most. The result is the weights file the answerer reads.

    python -m sabio.evaluation.confidence.fit [--rows datasets/confidence/signals.jsonl.gz] [--out FILE]

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

ROWS = Path(__file__).resolve().parents[3] / "datasets" / "confidence" / "signals.jsonl.gz"
VERSION = "2026-12-07"
PENALTIES = (30.0, 100.0, 300.0, 1000.0)  # L2 strengths tried (on standardised inputs)
XQUAD_SHARES = (0.0, 0.1)  # XQuAD's rows weigh, together, this share of the whole
CAPPED = ("role_unnamed",)  # signals that contradict an answer, capped rather than fitted (Model.caps)
WRONG = (
    0.05  # the default threshold: wrong answers given at most this share of the training folders' questions
)


@dataclass(frozen=True)
class Data:
    x: np.ndarray
    y: np.ndarray
    w: np.ndarray
    groups: np.ndarray
    company: np.ndarray  # a company folder's row (not XQuAD's)
    blind: np.ndarray  # a training folder's row (written blind)
    inputs: tuple[str, ...]


def matrix(rows: list[Row], xquad_share: float) -> Data:
    """The rows as inputs, labels and weights: each company folder and each XQuAD pool weighed as a whole,
    XQuAD's together ``xquad_share`` of all."""
    named = [Signals.from_row(r).row() for r in rows]
    inputs = tuple(sorted(named[0]))
    x = np.array([[r[k] for k in inputs] for r in named], dtype=np.float64)
    y = np.array([r["label"] for r in rows], dtype=np.float64)
    groups = np.array([r["group"] for r in rows])
    split = np.array([r["split"] for r in rows])
    company = split != "xquad"
    w = np.zeros(len(rows))
    for share, mask in ((xquad_share, ~company), (1 - xquad_share, company)):
        names = sorted(set(groups[mask]))
        for g in names:
            at = groups == g
            w[at] = share * len(rows) / (len(names) * at.sum())
    return Data(x, y, w, groups, company, split == "train", inputs)


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


def predict(x: np.ndarray, fitted: tuple[np.ndarray, np.ndarray, np.ndarray, float]) -> np.ndarray:
    mean, scale, coef, intercept = fitted
    return 1 / (1 + np.exp(-np.clip(intercept + ((x - mean) / scale) @ coef, -40, 40)))


def fitted(data: Data, at: np.ndarray, penalty: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """The model of the rows ``at`` (those that weigh anything), standardised on them."""
    use = at & (data.w > 0)
    mean, scale = standardise(data.x[use])
    coef, intercept = logistic((data.x[use] - mean) / scale, data.y[use], data.w[use], penalty)
    return mean, scale, coef, intercept


def held_out(data: Data, penalty: float) -> np.ndarray:
    """Each row's probability from a model fitted without its folder (XQuAD pools are folders too)."""
    out = np.zeros(len(data.y))
    for g in sorted(set(data.groups)):
        at = data.groups == g
        out[at] = predict(data.x[at], fitted(data, ~at, penalty))
    return out


def log_loss(p: np.ndarray, y: np.ndarray) -> float:
    p = np.clip(p, 1e-9, 1 - 1e-9)
    return float(-(y * np.log(p) + (1 - y) * np.log(1 - p)).mean())


def threshold_for(p: np.ndarray, y: np.ndarray, wrong: float = WRONG) -> float:
    """The lowest threshold at which the answers kept (p >= it) that are wrong stay under ``wrong`` of all
    the questions (1.0 when none does)."""
    order = np.argsort(-p, kind="stable")
    wrong_kept = np.cumsum(1 - y[order]) / len(y)
    good = np.flatnonzero(wrong_kept <= wrong)
    return float(np.ceil(p[order][good.max()] * 1e4) / 1e4) if len(good) else 1.0


def fit(rows: list[Row]) -> tuple[Model, dict[str, Any]]:
    """The shipped model from ``rows``, and what chose it (each choice's held-out log loss and AUROC on the
    company folders, and each folder's held-out figures at the threshold)."""
    tried: dict[str, dict[str, float]] = {}
    best: tuple[float, float, float] | None = None  # (log loss, share, penalty)
    for share in XQUAD_SHARES:
        data = matrix(rows, share)
        for penalty in PENALTIES:
            p = held_out(data, penalty)[data.company]
            loss = log_loss(p, data.y[data.company])
            tried[f"xquad {share}, penalty {penalty}"] = {
                "log_loss": round(loss, 5),
                "auroc": round(auroc(p, data.y[data.company]) or 0.0, 4),
            }
            if best is None or loss < best[0] - 1e-12:
                best = (loss, share, penalty)
    assert best is not None
    _, share, penalty = best
    data = matrix(rows, share)
    caps = capped(data)
    p = held_out(data, penalty)
    for name, cap in caps:
        p = np.where(data.x[:, data.inputs.index(name)] > 0, np.minimum(p, cap), p)
    threshold = threshold_for(p[data.blind], data.y[data.blind])
    mean, scale, coef, intercept = fitted(data, np.ones(len(data.y), dtype=bool), penalty)
    model = Model(
        version=VERSION,
        inputs=data.inputs,
        mean=tuple(round(float(v), 8) for v in mean),
        scale=tuple(round(float(v), 8) for v in scale),
        coef=tuple(round(float(v), 8) for v in coef),
        intercept=round(intercept, 8),
        threshold=threshold,
        caps=caps,
    )
    report = {
        "xquad_share": share,
        "penalty": penalty,
        "threshold": threshold,
        "tried": tried,
        "held_out": {
            g: _summary(p[data.groups == g], data.y[data.groups == g], threshold)
            for g in sorted(set(data.groups))
        },
    }
    return model, report


def capped(data: Data) -> tuple[tuple[str, float], ...]:
    """Each CAPPED signal's cap: the share of the answers showing it that were right, every source counted
    (Laplace-smoothed), when under the share of all answers that were."""
    out = []
    for name in CAPPED:
        at = data.x[:, data.inputs.index(name)] > 0
        share = (data.y[at].sum() + 1) / (at.sum() + 2)
        if share < data.y.mean():
            out.append((name, round(float(share), 4)))
    return tuple(out)


def _summary(p: np.ndarray, y: np.ndarray, threshold: float) -> dict[str, Any]:
    kept = p >= threshold
    return {
        "answers": int(len(y)),
        "right": round(float(y.mean()), 3) if len(y) else None,
        "auroc": None if (a := auroc(p, y)) is None else round(a, 3),
        "kept": round(float(kept.mean()), 3) if len(y) else None,
        "precision": round(float(y[kept].mean()), 3) if kept.any() else None,
        "wrong of all": round(float((kept & (y == 0)).mean()), 3) if len(y) else None,
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
    print(
        f"wrote {args.out} (xquad share {report['xquad_share']}, penalty {report['penalty']}, threshold {model.threshold})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
