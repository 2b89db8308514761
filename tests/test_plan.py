"""`sabio plan`: sizes projected from the committed benchmark figures, each traceable to them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from sabio import planning
from tests.conftest import ROOT

FIGURES = ROOT / "docs" / "performance.json"


def sabio_plan(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "sabio.cli", "plan", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_projection_interpolates_between_measured_sizes_and_extrapolates_the_last_segment():
    points = [(1000.0, 10.0), (10000.0, 20.0), (100000.0, 110.0)]
    assert planning.project(points, 1000) == 10.0
    assert planning.project(points, 500) == 10.0  # never below the smallest measurement
    assert planning.project(points, 5500) == pytest.approx(15.0)
    assert planning.project(points, 1_000_000) == pytest.approx(110 + 90 * (1_000_000 - 100_000) / 90_000)


def test_a_measured_size_gives_back_the_measured_figures():
    figures = json.loads(FIGURES.read_text())
    measured = figures["scale"][1]
    p = planning.plan(figures, measured["chunks"], price_in=0.27, price_out=1.10, source="test")
    assert p.embedded["p50_ms"] == pytest.approx(measured["full retrieve"]["p50_ms"])
    assert p.embedded["rss_mb"] == pytest.approx(measured["peak_rss_mb"])
    # what opening the store takes: a second process's, as `sabio index` left it (else the first search's)
    assert p.embedded["open_s"] == pytest.approx(measured.get("reopen_s", measured.get("load_s")))
    assert p.embedded["beside_mb"] == pytest.approx(measured.get("beside_mb", 0.0))
    # the OpenSearch formula with the index's own settings: 384 dims, M = 16
    million = planning.plan(figures, 1_000_000, price_in=0.27, price_out=1.10, source="test")
    assert million.opensearch["hnsw_gb_per_copy"] == pytest.approx(1.1 * (4 * 384 + 8 * 16) * 1e6 / 1e9)
    # Serverless: 1.83 GB of graphs fit one OCU's assumed 3.2 GB share, doubled for redundancy
    assert million.opensearch["serverless_search_ocus"] == 2
    assert million.llm["usd"] == pytest.approx(
        1e6 * (million.llm["tokens_in_per_chunk"] * 0.27 + million.llm["tokens_out_per_chunk"] * 1.10) / 1e6
    )


def test_the_cli_says_when_to_move_to_opensearch():
    small = sabio_plan("--chunks", "10000", "--figures", str(FIGURES))
    large = sabio_plan("--chunks", "1000000", "--queries-per-s", "50", "--figures", str(FIGURES))
    assert small.returncode == 0 and "stays embedded" in small.stdout, small.stderr
    assert "ready to search in ~" in small.stdout
    assert large.returncode == 0 and "move to OpenSearch" in large.stdout, large.stderr
    assert (
        "HNSW memory" in large.stdout and "DynamoDB" in large.stdout and "50 queries/s need" in large.stdout
    )


def test_bad_input_is_refused_clearly(tmp_path: Path):
    zero = sabio_plan("--chunks", "0")
    assert zero.returncode == 2 and "at least 1" in zero.stderr
    missing = sabio_plan("--chunks", "10", "--figures", str(tmp_path / "nope.json"))
    assert missing.returncode == 2 and "make bench" in missing.stderr
