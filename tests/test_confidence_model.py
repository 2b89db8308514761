"""The answer confidence: its shipped weights are what its fitting script makes of its shipped data, the fit
is a real logistic regression, and the threshold rule keeps wrong answers where it says."""

from __future__ import annotations

import gzip
import json

import numpy as np
import pytest

from chalicelib.answer.confidence import WEIGHTS, Signals, parse, shipped
from sabio.evaluation.confidence.data import read
from sabio.evaluation.confidence.fit import ROWS, fit, logistic, threshold_for


def test_the_shipped_weights_refit_from_the_shipped_rows():
    model, _ = fit(read(ROWS))
    ours = shipped()
    assert model.inputs == ours.inputs and model.version == ours.version
    assert model.threshold == pytest.approx(ours.threshold, abs=1e-4)
    assert np.allclose(model.coef, ours.coef, atol=1e-6) and model.intercept == pytest.approx(ours.intercept)
    assert np.allclose(model.mean, ours.mean) and np.allclose(model.scale, ours.scale)


def test_the_shipped_weights_read_every_signal_an_answer_leaves():
    names = (
        set(Signals.from_row(json.loads(gzip.decompress(ROWS.read_bytes()).decode().splitlines()[0])).row())
        if ROWS.exists()
        else None
    )
    model = parse(json.loads(WEIGHTS.read_text()))
    assert names is None or set(model.inputs) == names
    assert 0 < model.threshold < 1 and len(model.coef) == len(model.inputs) == len(model.scale)


def test_the_fit_recovers_a_known_logistic_model():
    rng = np.random.default_rng(7)
    x = rng.normal(size=(4000, 3))
    truth = np.array([2.0, -1.0, 0.0])
    y = (rng.random(4000) < 1 / (1 + np.exp(-(x @ truth + 0.5)))).astype(float)
    coef, intercept = logistic(x, y, np.ones(4000), penalty=1e-6)
    assert np.allclose(coef, truth, atol=0.15) and intercept == pytest.approx(0.5, abs=0.15)


def test_the_threshold_keeps_wrong_answers_under_their_share_of_all_questions():
    p = np.array([0.95, 0.9, 0.85, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2])
    y = np.array([1, 1, 0, 1, 1, 0, 1, 0, 0, 0], dtype=float)
    assert threshold_for(p, y, wrong=0.1) == pytest.approx(0.7)  # one wrong of ten kept, not two
    assert threshold_for(p, y, wrong=0.0) == pytest.approx(0.9)
    assert threshold_for(np.array([0.9]), np.array([0.0]), wrong=0.0) == 1.0  # nothing can be kept


def test_a_signal_row_comes_back_as_the_signals_it_was():
    signals = Signals(
        cosine=0.9, margin=0.1, apart=0.05, coverage=0.5, missing=0.2, overlap=0.4, title_overlap=0.3,
        crosses=0.0, translated=0.0, rank=0.0, in_dense=1.0, in_keyword=1.0, dense_first=1.0,
        keyword_first=0.0, top_gap=0.2, expects="amount", kind_missing=0.0, kind_clear=1.0,
        names_absent=0.0, unmentioned=0.0, role_unnamed=0.0, identifier_held=0.0, identifier_defined=0.0,
        numbers_missing=0.0, numbers_unquoted=0.0,
        unit_kind="row", howto=0.0, steps=0.0, terms=1.5, quotes=2.0,
    )  # fmt: skip
    from dataclasses import asdict

    assert Signals.from_row({"label": 1, "group": "g", **asdict(signals)}) == signals
    row = signals.row()
    assert row["expects_amount"] == 1.0 and row["unit_row"] == 1.0 and row["reranked"] == 0.0


@pytest.mark.slow
def test_a_follow_up_read_by_its_typed_words_is_as_specific_as_the_question_it_made(examples_container):
    """ "How much is it?" read where its thread pointed ("How much does Marea cost?") is not a vague question:
    its passages are read by the typed words, but how much the question says is what was searched (read as a
    three-word question, a follow-up's confidence fell for its brevity alone)."""
    from dataclasses import replace

    from chalicelib.models.api import RetrieveRequest

    request = RetrieveRequest(query="How much does Marea cost?")
    retrieved = examples_container.retrieval.run(request, None)
    answerer = examples_container.extractive
    _, alone = answerer.answer_with_signals(request, retrieved)
    _, typed = answerer.answer_with_signals(request, replace(retrieved, read_as="How much is it?"))
    assert alone is not None and typed is not None
    assert typed.terms == alone.terms
