"""The evaluation harness: fusion, naive chunking and its section mapping, near-duplicates, the datasets as the
evaluation issue defines them, the report, and a whole ``sabio eval`` run on a slice of real data."""

from __future__ import annotations

import json

import pytest

from chalicelib.enrichment.embedding_text import contextual_text
from chalicelib.retrieve.fusion import score_fusion
from sabio.evaluation.ablation import anchors_in, naive_windows, near_duplicate_rate, section_starts
from sabio.evaluation.datasets import fastapi_corpus, heading_queries, standard_suite
from sabio.evaluation.metrics import overlap_at
from sabio.evaluation.report import details, markdown
from sabio.evaluation.report.retrieval import reproduction
from sabio.evaluation.runner import rrf
from tests.conftest import EVAL

needs_data = pytest.mark.skipif(not (EVAL / "derived").is_dir(), reason="needs ../shared/eval")


def test_score_fusion_normalises_each_list_before_adding():
    dense = [("a", 0.91), ("b", 0.90), ("c", 0.10)]
    bm25 = [("c", 30.0), ("b", 29.0), ("a", 0.0)]
    # raw scores would let BM25's large numbers decide; normalised, b is near the top of both lists
    assert score_fusion([dense, bm25])[0][0] == "b"
    assert [d for d, _ in score_fusion([dense, []])] == ["a", "b", "c"]
    assert score_fusion([[("only", 3.0)]]) == [("only", 1.0)]
    assert rrf([dense, bm25])[0] == "a"  # ranks only: a's first place outweighs b's two close seconds


def test_overlap_with_the_baseline_top_k():
    base = {"q1": ["a", "b", "c", "d"], "q2": ["x", "y"]}
    assert overlap_at(base, base, 2) == 100.0
    assert overlap_at({"q1": ["b", "z"], "q2": ["z", "w"]}, base, 2) == 25.0


def test_naive_windows_cover_the_text_with_the_asked_overlap():
    text = "".join(chr(97 + i % 26) for i in range(2500))
    windows = naive_windows(text, 1000, 100)
    assert [(w.start, w.end) for w in windows] == [(0, 1000), (900, 1900), (1800, 2500)]
    assert all(text[w.start : w.end] == w.text for w in windows)
    assert len(naive_windows(text, 1000, 500)) == 4


def test_a_naive_window_counts_for_every_section_it_touches_and_ignores_headings_in_code():
    md = "# Title { #top }\n\nintro\n\n## First\n\n```bash\n# not a heading\n```\n\nbody\n\n## Second { #two }\n\nend\n"
    starts = section_starts(md)
    assert [a for _, a in starts] == ["top", "first", "two"]
    first = md.index("## First")
    assert anchors_in(starts, first + 3, first + 10) == ["first"]
    assert anchors_in(starts, 0, len(md)) == ["top", "first", "two"]


def test_near_duplicate_rate_counts_results_that_repeat_a_better_one():
    words = " ".join(f"w{i}" for i in range(200))
    shifted = " ".join(f"w{i}" for i in range(100, 300))
    other = " ".join(f"v{i}" for i in range(200))
    assert near_duplicate_rate([[words, shifted, other]]) == pytest.approx(100 / 3, abs=0.1)
    assert near_duplicate_rate([[words, other]]) == 0.0


def test_contextual_text_is_a_breadcrumb_over_the_chunk():
    assert contextual_text("FastAPI", ["FastAPI", "Tutorial", "Path Params"], "body") == (
        "FastAPI > Tutorial > Path Params\n\nbody"
    )
    assert contextual_text("", [], "body") == "body"


def test_the_report_shows_every_cell_or_why_it_was_not_run():
    results = {
        "when": "now",
        "machine": "m",
        "seconds": 1,
        "default_embed_text": "raw",
        "sets": {
            "set A": {
                "corpus": "c",
                "documents": 2,
                "queries": 1,
                "lang": "es",
                "note": "",
                "coverage": 100.0,
                "variants": {
                    "yardstick: dense": {"recall@1": 50.0, "recall@5": 100.0, "mrr@10": 75.0},
                    "Sabio retrieve · raw": {"recall@1": 100.0, "recall@5": 100.0, "mrr@10": 100.0},
                    "Sabio retrieve + HyDE": {"not_run": "no LLM configured"},
                },
            }
        },
        "indexing": {},
        "variants": [],
    }
    text = markdown(results, "sabio eval")
    assert "| set A | **100.0 / 100.0 / 100.0** | 50.0 / 100.0 / 75.0 |" in text
    every = details(results)  # every set x variant, on the details page the report links to
    assert "not run: no LLM configured" in every
    assert "**Sabio retrieve · raw** (default)" in every
    assert "evaluation-details.md" in text

    # a reader meets today's figures first and the runs behind them; the notes (levers, then the dated
    # changelog) come after them
    results["when"], results["machine"], results["seconds"] = "2026-12-04", "x86_64", 1.0
    results["updates"] = [
        {"command": "sabio eval --only X", "when": "2026-12-05", "seconds": 2.0, "sets": ["X"]}
    ]
    notes = "# What each lever does\n\n## Fusion\n\n# Changelog, newest first\n\n## 2026-12-04: a finding"
    text = markdown(results, "sabio eval", notes)
    order = [text.index(s) for s in ("## Headline", "Produced by", "## Fusion", "a finding")]
    assert order == sorted(order), order
    assert text.index("Then re-measured by `sabio eval --only X`") > text.index("Produced by")


def test_the_report_checks_its_baselines_against_the_yardstick():
    def row(r1: float, r5: float, mrr: float) -> dict[str, float]:
        return {"recall@1": r1, "recall@5": r5, "mrr@10": mrr}

    results = {
        "sets": {
            "hard Spanish pool": {
                "variants": {
                    "yardstick: dense": row(74.6, 92.0, 82.3),
                    "yardstick: BM25 stemmed": row(78.4, 93.8, 85.0),
                    "yardstick: simple hybrid": row(79.7, 95.5, 86.7),
                }
            }
        }
    }
    gaps = {r["variant"]: r["gap"] for r in reproduction(results)}
    assert gaps == {"yardstick: dense": 0.0, "yardstick: BM25 stemmed": 0.5, "yardstick: simple hybrid": 2.2}


@needs_data
def test_the_standard_suite_has_every_dataset_the_issue_names():
    corpora, sets = standard_suite(EVAL)
    names = {s.name for s in sets}
    assert {
        "hard Spanish pool",
        "XQuAD es",
        "XQuAD en",
        "cross-lingual es -> en",
        "cross-lingual en -> es",
    } <= names
    assert {"FastAPI heading queries es", "FastAPI heading queries en"} <= names
    assert any("lang=auto" in n for n in names) and any("lang=all" in n for n in names)
    by_name = {c.name: c for c in corpora}
    for qs in sets:  # every relevant id is a document of the corpus the set asks
        corpus = by_name[qs.corpus]
        plain = {d for d, _ in corpus.plain}
        ids = {d.split("/", 1)[-1] for d in plain} if qs.either_language else plain
        assert all(d in ids for rel in qs.qrels.values() for d in rel), qs.name
    assert not any(k.startswith("_llm-test") for k in by_name["fastapi-es"].files)


@needs_data
def test_fastapi_heading_queries_point_at_sections_of_the_files():
    corpus = fastapi_corpus(EVAL, "en")
    qs = heading_queries(EVAL, "en")
    assert len(qs.queries) == 943
    files = set(corpus.files)
    assert all(next(iter(rel)).split("#")[0] in files for rel in qs.qrels.values())


@pytest.fixture(scope="module")
def eval_cache(shared_embedding_cache):  # type: ignore[no-untyped-def]
    """The run's embedding cache: XQuAD es is embedded once (much of it by the regression gate already)."""
    return shared_embedding_cache


@needs_data
def test_sabio_eval_writes_json_markdown_and_chart(tmp_path, eval_cache):
    """One real run end to end (real model, real SQLite) on a few queries of the smallest set."""
    from sabio.cli import main

    out = tmp_path / "out"
    code = main(
        [
            "eval",
            "--data",
            str(EVAL),
            "--only",
            "XQuAD es",
            "--limit",
            "5",
            "--no-ablation",
            "--modes",
            "raw",
            "--out",
            str(out),
            "--cache",
            str(eval_cache),
        ]
    )
    assert code == 0
    results = json.loads((out / "results.json").read_text())
    row = results["sets"]["XQuAD es"]["variants"]
    assert row["yardstick: dense"]["recall@5"] > 50  # real vectors find real paragraphs
    assert "not_run" in row["Sabio retrieve + rerank"]
    assert (out / "chart.png").read_bytes()[:4] == b"\x89PNG"
    assert "XQuAD es" in (out / "report.md").read_text()

    # one set measured again on top of a full run's results: the rest of the report is kept, and it says
    # which command produced which figures
    base = dict(results, sets={**results["sets"], "an earlier set": results["sets"]["XQuAD es"]})
    (tmp_path / "base.json").write_text(json.dumps(base))
    again = ["eval", "--data", str(EVAL), "--only", "XQuAD es", "--limit", "3", "--no-ablation"]
    again += ["--modes", "raw", "--out", str(tmp_path / "again"), "--cache", str(eval_cache)]
    docs = tmp_path / "docs" / "evaluation.md"
    assert main([*again, "--merge", str(tmp_path / "missing.json")]) == 2  # refused before any work
    assert main([*again, "--only", "compnay set"]) == 2  # a mistyped set: refused, not an empty run
    assert main([*again, "--merge", str(tmp_path / "base.json"), "--publish", str(docs)]) == 0
    merged = json.loads(docs.with_suffix(".json").read_text())
    assert merged["sets"]["XQuAD es"]["queries"] == 3  # the set measured again
    assert merged["sets"]["an earlier set"]["queries"] == 5  # kept from the full run
    assert [u["sets"] for u in merged["updates"]] == [["XQuAD es"]]
    text = docs.read_text()
    assert "Then re-measured by `" in text and "XQuAD es." in text
    assert "## an earlier set" in (docs.parent / "evaluation-details.md").read_text()
    assert docs.with_suffix(".png").read_bytes()[:4] == b"\x89PNG"


def test_a_short_list_is_scaled_by_its_best_score_and_keeps_its_weight():
    from chalicelib.retrieve.fusion import fuse

    long_dense = [(f"d{i}", 0.9 - i * 0.01) for i in range(20)]
    few = [("d5", 3.0), ("d0", 2.9)]
    fused = dict(fuse([long_dense, few], "score"))
    # the short list's last item is not "unrelated" (min-max would give it 0): 2.9 / 3.0 of its first
    assert fused["d0"] == pytest.approx(1.0 + 2.9 / 3.0)
    assert fused["d5"] == pytest.approx((0.85 - 0.71) / 0.19 + 1.0)
    # and its weight counts (a fall back to RRF, ranks only, ignored it)
    weighted = dict(fuse([long_dense, few], "score", weights=[1.0, 0.5]))
    assert weighted["d5"] == pytest.approx((0.85 - 0.71) / 0.19 + 0.5)
    scaled = fuse([long_dense, [(f"d{19 - i}", 20.0 - i) for i in range(20)]], "score")
    assert len(scaled) == 20 and scaled[0][1] == pytest.approx(1.0)  # min-max sums: ends score 1 + 0


def _plain_corpus(lang: str, plain: dict[str, str] | list[tuple[str, str]]):
    from sabio.evaluation.datasets import Corpus

    rows = list(plain.items()) if isinstance(plain, dict) else plain
    return Corpus("plain", {}, rows, lang, lambda chunk: [])


def test_simple_hybrid_gives_equal_fused_scores_to_the_document_listed_first_in_the_corpus():
    from sabio.evaluation.runner import Yardstick

    y = Yardstick(_plain_corpus("es", {"p1": "uno", "p2": "dos", "p3": "tres"}), embedder=None)
    # p3 is 1st by dense and 2nd by BM25, p1 the reverse: the same RRF score, p1 comes first in the corpus
    dense = [("p3", 0.9), ("p1", 0.8)]
    bm25 = [("p1", 7.0), ("p3", 6.0), ("p2", 1.0)]
    assert y.hybrid(dense, bm25) == ["p1", "p3", "p2"]
    assert y.hybrid(bm25, dense) == ["p1", "p3", "p2"]  # whichever list comes first
    assert rrf([dense, bm25])[:2] == ["p3", "p1"]  # Sabio's RRF keeps first-seen order


def test_a_section_listed_twice_takes_one_place_in_a_yardstick_ranking_at_its_lower_score():
    from sabio.evaluation.datasets import QuerySet
    from sabio.evaluation.runner import Yardstick

    # two release-notes rows share one id (no anchor); both match better than the wanted section
    rows = [
        ("notes.md#", "Fixes: fix the path parameters fix"),
        ("path.md#params", "Path parameters are declared in the path"),
        ("notes.md#", "Fixes: path parameters fix"),
        ("other.md#x", "Cookies"),
    ]
    y = Yardstick(_plain_corpus("en", rows), embedder=None)
    runs, _ = y.bm25(
        QuerySet("h", "plain", {"q": "path parameters fix"}, {"q": {"path.md#params": 1}}, "auto", "en"),
        stem=True,
    )
    ids = [d for d, _ in runs["q"]]
    assert ids.count("notes.md#") == 1 and len(ids) == 2  # the repeated id is one entry, not two
    notes = [s for d, s in runs["q"] if d == "notes.md#"][0]
    scores = y._bm25[("en", True)].get_scores(["path", "paramet", "fix"])
    assert notes == pytest.approx(min(scores[0], scores[2]))  # its lower score: the last one a top-k gives it


def test_yardstick_bm25_analyses_documents_in_their_language_and_questions_in_theirs():
    from sabio.evaluation.datasets import QuerySet
    from sabio.evaluation.runner import Yardstick

    english = _plain_corpus("en", {"a": "The dogs were running all night", "b": "Cats sleep most of the day"})
    y = Yardstick(english, embedder=None)
    # English stems on the documents ("running" -> "run"), Spanish on the question (stop-word "las" dropped)
    asked = QuerySet("es->en", "plain", {"q": "¿run las?"}, {"q": {"a": 1}}, "auto", "es")
    runs, _ = y.bm25(asked, stem=True)
    assert [d for d, _ in runs["q"]] == ["a"]
    nothing, _ = y.bm25(QuerySet("es->en", "plain", {"q": "las"}, {}, "auto", "es"), stem=True)
    assert nothing["q"] == []


def test_the_report_shows_answer_correctness_and_abstention_per_pool():
    from sabio.evaluation.report.answers import answer_table

    row = {"questions": 10, "answer_correct": 72.0, "baseline_correct": 60.0, "abstained_answerable": 10.0}
    results = {
        "answers": {
            "es": {"questions": {"es": {**row, "abstained_unanswerable": 85.0}}},
            "en": {"questions": {"es": {**row, "baseline_correct": None, "abstained_unanswerable": 50.0}}},
        }
    }
    lines = answer_table(results)
    assert "| XQuAD es | es (10) | **72.0** | 80.0 | 60.0 | 85.0 | 10.0 |" in lines  # 72 of the 90 answered
    assert (
        "| XQuAD en | es (10) | **72.0** | 80.0 | - | 50.0 | 10.0 |" in lines
    )  # no baseline across languages
    assert answer_table({"sets": {}}) == []


def test_code_questions_count_a_result_by_file_and_line_or_by_anchor_text():
    from types import SimpleNamespace

    from sabio.evaluation.codeset import Question, Target, first_hit, summarise

    def chunk(key, content, lines=(None, None), title=""):
        return SimpleNamespace(
            key=key, content=content, line_start=lines[0], line_end=lines[1], section_title=title
        )

    chunks = {
        "other-file": chunk("src/a.py", "def main(", (10, 20)),
        "wrong-lines": chunk("src/click/core.py", "def main(", (1, 9)),
        "right-lines": chunk("src/click/core.py", "...", (30, 45)),
        "doc": chunk("docs/options.rst", "use show_default=True to show it"),
    }
    code = Question("q1", "en", "where", "?", (Target("src/click/core.py", "def main(", frozenset({40})),))
    doc = Question(
        "q2", "es", "howto", "?", (Target("docs/options.rst", "show_default=True", frozenset({99})),)
    )
    assert first_hit(["other-file", "wrong-lines", "right-lines"], chunks, code) == 3
    assert first_hit(["doc"], chunks, doc) == 1 and first_hit(["wrong-lines"], chunks, doc) is None
    assert summarise([1, 3, None, 12]) == {
        "recall@1": 25.0,
        "recall@5": 50.0,
        "recall@10": 50.0,
        "mrr@10": 33.3,
    }


def test_the_rerank_variant_measures_the_second_stage_or_says_why_not(tmp_path):
    """``sabio eval --rerank NAME``'s variant on a small corpus: the reranker (a real local /rerank server)
    reorders every query's results and its latency is measured; unconfigured, the report says why."""
    from chalicelib.rerankers.http import HttpReranker
    from sabio.evaluation.datasets import Corpus, QuerySet
    from sabio.evaluation.runner import build, pipeline
    from sabio.evaluation.variants import _reranked, chosen_reranker
    from tests.rerank_server import RerankTestServer

    texts = {
        "faro": "Faro es un gestor de tickets de soporte para equipos pequeños.",
        "marea": "Marea es un CRM con automatizaciones de correo y embudos de venta.",
        "ancla": "Ancla hace copias de seguridad de bases de datos cada hora.",
        "naranja": "La oficina de Valencia tiene un naranjo en el patio desde 1990.",
    }
    corpus = Corpus(
        "tiny",
        {f"{k}.md": f"# {k}\n\n{v}\n".encode() for k, v in texts.items()},
        list(texts.items()),
        "es",
        lambda chunk: [chunk.key.removesuffix(".md")],
    )
    qs = QuerySet(
        "tiny",
        "tiny",
        {"q1": "un gestor de tickets para el soporte", "q2": "copias de seguridad de bases de datos"},
        {"q1": {"faro": 1}, "q2": {"ancla": 1}},
        "auto",
        "es",
    )
    built = build(corpus, "raw", tmp_path, None)
    first = pipeline(built, qs)
    assert first.runs["q1"][0] == "faro"
    with RerankTestServer("cohere", scorer=lambda q, d: 5.0 if "naranjo" in d else 0.0) as server:
        outcome = _reranked(built, qs, HttpReranker(server.url + "/rerank"))
    assert all(run[0] == "naranja" for run in outcome.runs.values())  # as the reranker said
    assert outcome.row(qs.qrels, None)["recall@1"] == 0.0 and outcome.latency_ms
    assert "no reranker chosen" in _reranked(built, qs, None).not_run
    from sabio.evaluation.variants import _rewritten

    assert "no LLM configured" in (_rewritten(built, qs, True).not_run or "")
    assert "not asked" in (_rewritten(built, qs, False).not_run or "")
    assert "SABIO_RERANKER_MODEL" in str(chosen_reranker("cross-encoder"))  # the reason the report prints
    built.container.store.close()


def test_the_repository_code_set_locates_every_anchor_in_its_pinned_archives(tmp_path):
    """Each of the 66 questions points at lines that exist in the archived repositories, every language has
    both kinds, and line windows cut the same files without their grammar."""
    from chalicelib.extraction.dispatch import extract
    from sabio.evaluation import coderepos

    root = coderepos.unpack(tmp_path)
    asked = coderepos.questions(root)
    assert len(asked) == 66
    kinds = {(coderepos.LANGUAGE[repo], q.kind) for q, repo in asked}
    assert kinds == {(lang, kind) for lang in ("C++", "Java", "Rust") for kind in ("identifier", "plain")}
    assert all(t.lines for q, _ in asked for t in q.targets)
    source = (root / "leveldb" / "util" / "arena.cc").read_bytes()
    assert len(extract("arena.cc", source, max_bytes=10**6).sections) > 3
    with coderepos.line_windows():
        assert len(extract("arena.cc", source, max_bytes=10**6).sections) == 1


def test_a_click_question_names_an_identifier_when_it_spells_one_as_code_does():
    from sabio.evaluation.codeset import naming

    assert naming("Where is `make_context` called?") == "identifier"
    assert naming("What does resolve_command do?") == "identifier"
    assert naming("How do I show the default value of an option?") == "plain"
