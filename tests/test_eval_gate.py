"""Regression gate: Sabio's default configuration, embedded from scratch (real model, real SQLite, no cache),
on a fixed slice of the hard Spanish pool must keep the Recall@5 the last full ``sabio eval`` recorded; on the
user questions answered by the FastAPI tutorial (es, en) it must keep its record too and do no harm: never
more than one question of Recall@5 below the plain RRF of its own dense and BM25 lists."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from chalicelib.settings import Settings
from sabio.evaluation import gate
from tests.conftest import EVAL

RECORD = Path(__file__).resolve().parent.parent / "bench" / "eval_gate.json"


def one_query(queries: int) -> float:
    """One query's worth of percentage points, plus the rounding of both figures to one decimal (33/49 is
    recorded as 67.3 and 34/49 as 69.4: 2.1 points apart, not 2.04)."""
    return 100 / queries + 0.1 + 1e-9


NEEDS_DATA = pytest.mark.skipif(
    not (EVAL / "squad_es").is_dir(), reason="needs ../shared/eval (the evaluation data)"
)


@pytest.fixture(scope="module")
def figures(tmp_path_factory, shared_embedding_cache):
    """The gate measured once for this module, from nothing (a fresh embedding cache, which later tests of
    the run reuse)."""
    cache = shared_embedding_cache
    if cache.exists():  # another test embedded first: the gate still starts from nothing
        cache = tmp_path_factory.mktemp("gate") / "fresh-cache.sqlite"
    return gate.measure(EVAL, cache)


@NEEDS_DATA
def test_default_configuration_keeps_its_recorded_recall(figures):
    recorded = json.loads(RECORD.read_text())
    assert recorded["embed_text"] == Settings().ingest.embed_text, (
        "default changed: rerun `make eval` to re-record"
    )
    assert (figures["documents"], figures["queries"]) == (recorded["documents"], recorded["queries"])
    # one query of slack (1 / 105): float rounding on another CPU may swap two near-tied paragraphs.
    # Recall@5 is the gate; the slice saturates it, so Recall@1 and MRR@10 (which it does not) are held too
    slack = one_query(figures["queries"])
    for metric in ("recall@5", "recall@1", "mrr@10"):
        assert figures[metric] >= recorded[metric] - slack, (metric, figures, recorded)
    for lang in gate.USER_LANGS:
        measured, kept = figures["user_questions"][lang], recorded["user_questions"][lang]
        assert measured["queries"] == kept["queries"]
        slack = one_query(measured["queries"])
        assert measured["recall@5"] >= kept["recall@5"] - slack, (lang, measured, kept)
        # do no harm: the rules on top of dense + BM25 must not lose to a plain fusion of the two. The plain
        # fusion swaps near-tied paragraphs across CPUs too (es: 33/49 where it was recorded, 34/49 on
        # another machine, Sabio 33/49 on both), so it gets the same one query of slack
        assert measured["recall@5"] >= measured["plain_rrf"]["recall@5"] - slack, (lang, measured)


@NEEDS_DATA
def test_spanish_questions_over_english_documents_keep_their_recorded_recall(figures):
    """es -> en: the question is translated (Apertium) and searched as an English one; the record was made
    with the translator this machine runs, or the comparison says nothing."""
    recorded = json.loads(RECORD.read_text())
    if figures["translator"] != recorded["translator"]:
        pytest.skip(
            f"recorded with translator {recorded['translator']!r}, this machine runs {figures['translator']!r} "
            "(Debian: apt-get install apertium-eng-spa; .ci/run installs it)"
        )
    name = " -> ".join(gate.CROSS)
    measured, kept = figures["user_questions"][name], recorded["user_questions"][name]
    assert measured["queries"] == kept["queries"]
    assert measured["recall@5"] >= kept["recall@5"] - one_query(measured["queries"]), (measured, kept)
    assert measured["recall@5"] >= measured["plain_rrf"]["recall@5"] - one_query(measured["queries"]), (
        measured
    )


def test_the_gate_names_the_translator_by_its_setting_not_by_a_wrapper():
    # the cross-language gate runs only where the translator matches the record's: a name taken from a
    # wrapper's class ("translationmemo") skipped it on every machine
    assert gate.translator_name() in ("apertium", "none")
    assert gate.translator_name(Settings(translator="none")) == "none"
