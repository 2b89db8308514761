"""How sure an answer is: the probability that it is right, from a small logistic model over the signals an
answer leaves (how close its quote is to the question and how far ahead of other documents, which of the
question's words, names and kind of answer the quote holds, whether retrieval's lists agree).

The weights are data (``confidence.json`` beside this module), fitted by ``sabio.evaluation.confidence`` on
labelled answers from the development folders and XQuAD, chosen by leave-one-folder-out validation; a test
refits them from ``datasets/confidence/`` and must get the shipped ones. Read with numpy only: nothing heavy
on the API path.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, fields
from functools import cache
from pathlib import Path

import numpy as np

WEIGHTS = Path(__file__).with_name("confidence.json")
EXPECTS = ("amount", "time", "count", "person", "place", "contact", "version")
UNIT_KINDS = ("row", "item", "code")  # a prose sentence is the remaining case


@dataclass(frozen=True)
class Signals:
    """What one answer leaves behind, each a number (1.0 / 0.0 for yes / no)."""

    cosine: float  # the quoted unit's cosine to the question (or to its translation, when that chose it)
    margin: float  # its score's lead over the best unit of another document (capped)
    apart: float  # its score's lead over the next unit, in any document (capped)
    coverage: float  # share of the question's stems its chunk holds
    missing: float  # rarity-weighted share of the question's topic words its chunk, title and headings lack
    overlap: float  # rarity-weighted share of the question's stems the unit and its heading hold
    title_overlap: float  # share of the question's stems in the document's title and section path
    crosses: float  # the unit is in another language than the question
    translated: float  # the question's translation chose it
    rank: float  # its chunk's rank among the retrieved (0: first)
    in_dense: float  # its chunk is in the dense list
    in_keyword: float  # its chunk is in the keyword (BM25) list
    dense_first: float  # its chunk has the best dense score among the retrieved
    keyword_first: float  # its chunk has the best keyword score among the retrieved
    top_gap: float  # the first retrieved chunk's fused score lead over the second's, relative
    expects: str | None  # the kind of answer asked for (EXPECTS), None for yes/no, how, what
    kind_missing: float  # a kind is asked for and the quote holds none
    kind_clear: float  # the quote holds the kind asked for in digits (a price with its currency...)
    names_absent: float  # a name or identifier of the question is not in the passage
    unmentioned: float  # a name or identifier of the question is in no document the caller may read
    role_unnamed: float  # a who-question's role is not named by the quote
    identifier_held: float  # the question names an identifier and the quote holds it
    identifier_defined: float  # ... and heads the quote's section or opens its row (defines, not mentions)
    numbers_missing: float  # share of the question's numbers (a year, a size, "Q2") its passage lacks
    numbers_unquoted: float  # share of them the quote (with its heading and title) lacks
    unit_kind: str  # row, item, code or sentence
    howto: float  # a how-to question
    steps: float  # answered with a list of steps
    terms: float  # log(1 + the question's content words)
    quotes: float  # how many units the answer quotes
    parts: float = 1.0  # how many things the question asks at once (this is its weakest part)
    rerank: float | None = None  # a reranker's score for the quoted chunk, where one ran

    def row(self) -> dict[str, float]:
        """The signals as the model's named inputs: kinds and unit kinds one-hot, an absent reranker 0."""
        values = {k: v for k, v in asdict(self).items() if k not in ("expects", "unit_kind", "rerank")}
        values.update({f"expects_{k}": float(self.expects == k) for k in EXPECTS})
        values.update({f"unit_{k}": float(self.unit_kind == k) for k in UNIT_KINDS})
        values["reranked"] = float(self.rerank is not None)
        values["rerank"] = self.rerank or 0.0
        values["cosine_crosses"] = self.cosine * self.crosses
        values["howto_unstepped"] = self.howto * (1.0 - self.steps)  # a procedure answered by one sentence
        return values

    @classmethod
    def from_row(cls, row: dict[str, object]) -> Signals:
        """A stored row (the fitting data) back as signals."""
        names = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in row.items() if k in names})  # type: ignore[arg-type]


@dataclass(frozen=True)
class Model:
    """A logistic model on standardised inputs: P(right) = sigmoid(intercept + coef . (x - mean) / scale)."""

    version: str
    inputs: tuple[str, ...]
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    coef: tuple[float, ...]
    intercept: float
    threshold: float  # the default SABIO_ANSWER_MIN_CONFIDENCE the fit recommends
    # a signal that contradicts the answer (the passage names another role than the one asked) caps P(right)
    # at the share of its labelled answers that were right, every source pooled: too rare in the weighed
    # folders for the logistic part to learn
    caps: tuple[tuple[str, float], ...] = ()

    def probability(self, signals: Signals) -> float:
        row = signals.row()
        x = np.array([row.get(name, 0.0) for name in self.inputs], dtype=np.float64)
        z = self.intercept + float(np.dot(self.coef, (x - self.mean) / self.scale))
        p = 1.0 / (1.0 + math.exp(-max(-40.0, min(40.0, z))))
        return min([p, *(cap for name, cap in self.caps if row.get(name))])

    def as_json(self) -> dict[str, object]:
        return asdict(self)


def parse(data: dict[str, object]) -> Model:
    def floats(key: str) -> tuple[float, ...]:
        return tuple(float(v) for v in data[key])  # type: ignore[attr-defined]

    return Model(
        version=str(data["version"]),
        inputs=tuple(str(v) for v in data["inputs"]),  # type: ignore[attr-defined]
        mean=floats("mean"),
        scale=floats("scale"),
        coef=floats("coef"),
        intercept=float(data["intercept"]),  # type: ignore[arg-type]
        threshold=float(data["threshold"]),  # type: ignore[arg-type]
        caps=tuple((str(k), float(v)) for k, v in data.get("caps", [])),  # type: ignore[attr-defined]
    )


@cache
def shipped(path: Path = WEIGHTS) -> Model:
    """The model this release ships (read once per process)."""
    return parse(json.loads(path.read_text("utf-8")))


def apart(value: float, threshold: float) -> tuple[str, str]:
    """A confidence and its threshold with the decimals that tell them apart ("0.805 is under 0.807")."""
    for digits in (2, 3, 4):
        shown, under = f"{value:.{digits}f}", f"{threshold:.{digits}f}"
        if shown != under:
            return shown, under
    return shown, under
