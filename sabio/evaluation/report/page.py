"""The two pages of a run: the evaluation itself (today's figures on every set, how they were produced, and
what each lever earned) and its details (every query set x variant, the configuration, the variants)."""

from __future__ import annotations

from typing import Any

from sabio.evaluation.report.answers import (
    answer_table,
    company_table,
    confidence_tables,
    threads_table,
)
from sabio.evaluation.report.code import code_table, repos_table
from sabio.evaluation.report.retrieval import (
    BASELINES,
    COLUMNS,
    LABELS,
    cell,
    default_variant,
    do_no_harm,
    reproduction,
    setting,
    triple,
)

DETAILS = "evaluation-details.md"  # the details page, beside the report


def markdown(results: dict[str, Any], command: str, preamble: str = "") -> str:
    """The report: figures first, then how they were produced, then the notes (what each lever earned)."""
    lines = _intro(results) + _headline(results) + do_no_harm(results)
    lines += company_table(results, "companyset", "")
    lines += company_table(results, "companyset_llm", " (LLM answers)") + threads_table(results)
    lines += answer_table(results) + confidence_tables(results) + code_table(results) + repos_table(results)
    lines += _reproduced(results) + _ablation(results) + _index_time(results)
    lines += _produced(results, command)
    if preamble:  # the notes: what each lever does and earned
        lines += ["", preamble.strip()]
    return "\n".join(lines) + "\n"


def details(results: dict[str, Any]) -> str:
    """Every query set x variant, the configuration the run used, and what each variant is."""
    lines = [
        "# Sabio's evaluation: every query set x variant",
        "",
        "The tables behind [the evaluation](evaluation.md): each query set with every variant measured, the "
        "configuration of the run and what each variant is. Metrics x100.",
        "",
    ]
    default = default_variant(results)
    for name, data in results["sets"].items():
        lines += _set_table(name, data, default)
    lines += _configuration(results)
    lines += ["", "## Variants", "", "| variant | what |", "|---|---|"]
    lines += [f"| {v['name']} | {v['what']} |" for v in results["variants"]]
    return "\n".join(lines) + "\n"


def _intro(results: dict[str, Any]) -> list[str]:
    default = default_variant(results)
    return [
        "# Sabio's evaluation",
        "",
        "Today's figures first, on every set, and how each was produced (the command behind it, and when); then",
        "what each lever of the pipeline does and earned. Every query set x variant is in "
        f"[{DETAILS}]({DETAILS}); the dated findings in [evaluation-history.md](evaluation-history.md).",
        f"Sabio's default configuration is `embed_text={results['default_embed_text']}`: the row **{default}**.",
        "Metrics x100; latency is per query, excluding the query embedding (served by the cache).",
        "",
        "![Recall@5 per query set](chart.png)",
        "",
    ]


def _headline(results: dict[str, Any]) -> list[str]:
    default = default_variant(results)
    lines = [
        "## Headline: Sabio's default against the yardstick",
        "",
        "| query set | default R@1 / R@5 / MRR@10 | dense | stemmed BM25 | simple hybrid |",
        "|---|---|---|---|---|",
    ]
    for name, data in results["sets"].items():
        v = data["variants"]
        cells = [triple(v.get(x, {})) for x in (default, *BASELINES)]
        lines.append(f"| {name} | **{cells[0]}** | {cells[1]} | {cells[2]} | {cells[3]} |")
    return lines


def _reproduced(results: dict[str, Any]) -> list[str]:
    repro = reproduction(results)
    if not repro:
        return []
    worst = max(r["gap"] for r in repro)
    lines = [
        "",
        "## Yardstick reproduction",
        "",
        f"The harness's baselines against the issue's figures (R@1 / R@5 / MRR@10): largest gap {worst} "
        f"point{'s' if worst != 1 else ''}, {sum(r['gap'] <= 1 for r in repro)} of {len(repro)} cells "
        "within 1.",
        "",
        "| query set | baseline | issue | this harness | largest gap |",
        "|---|---|---|---|---|",
    ]
    for r in repro:
        issue, ours = (" / ".join(f"{v:.1f}" for v in r[k]) for k in ("expected", "measured"))
        lines.append(f"| {r['set']} | {r['variant']} | {issue} | {ours} | {r['gap']} |")
    return lines


def _set_table(name: str, data: dict[str, Any], default: str) -> list[str]:
    lines = [
        f"## {name}",
        "",
        f"{data['documents']} documents (corpus `{data['corpus']}`), {data['queries']} queries, request "
        f"`lang={data['lang']}`. {data['note']} Relevant ids reachable through Sabio's chunks: "
        f"{data['coverage']}%.",
        "",
        "| variant | " + " | ".join(LABELS[c] for c in COLUMNS) + " |",
        "|---|" + "---|" * len(COLUMNS),
    ]
    for variant, row in data["variants"].items():
        label = f"**{variant}** (default)" if variant == default else variant
        if "not_run" in row:
            reason = row["not_run"].replace("|", "\\|")  # a pipe in the reason would split the cell
            lines.append(f"| {label} | not run: {reason} |" + " |" * (len(COLUMNS) - 1))
        else:
            lines.append(f"| {label} | " + " | ".join(cell(row.get(c)) for c in COLUMNS) + " |")
    return [*lines, ""]


def _ablation(results: dict[str, Any]) -> list[str]:
    if not results.get("ablation"):
        return []
    lines = ["", "## Chunking ablation (FastAPI docs)", ""]
    for name, rows in results["ablation"].items():
        lines += [
            f"### {name}",
            "",
            "| chunking | chunks | mean chars | sections / chunk | dense R@1 / R@5 | BM25 R@1 / R@5 | "
            "RRF R@1 / R@5 / MRR@10 | near-duplicates in top 5 |",
            "|---|---|---|---|---|---|---|---|",
        ]
        for r in rows:
            lines.append(
                f"| {r['chunking']} | {r['chunks']} | {r['mean_chars']} | {r['sections_per_chunk']} | "
                f"{r['dense']['recall@1']} / {r['dense']['recall@5']} | {r['bm25']['recall@1']} / "
                f"{r['bm25']['recall@5']} | {triple(r['rrf'])} | {r['near_duplicates@5']}% |"
            )
    return lines


def _index_time(results: dict[str, Any]) -> list[str]:
    lines = [
        "",
        "## Index time",
        "",
        "| corpus · embed_text | chunks | seconds | vectors computed |",
        "|---|---|---|---|",
    ]
    for name, row in results["indexing"].items():
        lines.append(f"| {name} | {row['chunks']} | {row['index_s']} | {row['vectors_computed']} |")
    return lines


def _configuration(results: dict[str, Any]) -> list[str]:
    if not results.get("configuration"):
        return []
    lines = ["", "## Configuration (Sabio's defaults for this run)", "", "| setting | value |", "|---|---|"]
    return lines + [f"| `{k}` | `{setting(v)}` |" for k, v in results["configuration"].items()]


def _produced(results: dict[str, Any], command: str) -> list[str]:
    lines = ["", "# How these figures were produced", ""]
    lines.append(
        f"Produced by `{command}` on {results['when']} ({results['machine']}, {results['seconds']} s)."
    )
    lines += [
        f"Then re-measured by `{r['command']}` on {r['when']} ({r['seconds']} s): "
        + ", ".join(r["sets"])
        + "."
        for r in results.get("updates", [])
    ]
    return lines
