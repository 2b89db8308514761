"""The answer tables: the company sets per kind of question, and XQuAD answers with and without their paragraph."""

from __future__ import annotations

from typing import Any


def company_table(results: dict[str, Any], key: str, label: str) -> list[str]:
    """The company set (datasets/company-dev): answers per kind of question, against the bar they must reach."""
    data = results.get(key)
    if not data:
        return []
    head = ("hit@1", "hit@5", "answer correct", "abstained", "confidently wrong")
    lines = [
        "",
        f"## Answers on company folders{label}",
        "",
        "Three invented company folders (65 documents, every format Sabio reads, es + en with most facts in "
        "one language only) and 279 questions written before Sabio ran on them "
        "([datasets/company-dev](../datasets/company-dev/README.md); `python -m sabio.evaluation.companyset`). "
        "*Answer correct*: the quotes hold a gold answer (how-to: every step); for unanswerable questions, "
        "abstaining. *Confidently wrong*: answered and not correct.",
        "",
        "| kind | questions | " + " | ".join(head) + " |",
        "|---|---|" + "---|" * len(head),
    ]
    groups = {**data["kinds"], "answerable": data["answerable"], "unanswerable": data["unanswerable"]}
    groups["all"] = data["all"]
    for name, row in groups.items():
        cells = " | ".join("-" if row[h] is None else str(row[h]) for h in head)
        lines.append(f"| {name} | {row['questions']} | {cells} |")
    lines += ["", "| the bar | measured | met |", "|---|---|---|"]
    lines += [f"| {t['what']} | {t['value']} | {'yes' if t['met'] else '**no**'} |" for t in data["targets"]]
    return lines


def threads_table(results: dict[str, Any]) -> list[str]:
    """Follow-up questions in conversations (datasets/threads): each way a follow-up turn is asked."""
    data = results.get("threads")
    if not data:
        return []
    lines = [
        "",
        "## Follow-up questions in conversations",
        "",
        f"{data['threads']} two- and three-turn threads over the training company folders, written blind "
        "([datasets/threads](../datasets/threads/README.md); `python -m sabio.evaluation.threads`). Each "
        "follow-up turn asked in its conversation, as its standalone form, and as typed with no history: "
        "hit@5 / answer correct; *in language*: the question searched is in the user's.",
        "",
        "| turns | n | in its conversation | standalone | no history | in language |",
        "|---|---|---|---|---|---|",
    ]
    groups = {"all": data["all"], **data["by language"], "language switched": data["language switched"]}
    for name, row in groups.items():
        cells = " | ".join(
            f"{row[w]['hit@5']} / {row[w]['answer correct']}"
            for w in ("followed", "standalone", "no history")
        )
        share = row["in the user's language"]
        lines.append(f"| {name} | {row['turns']} | {cells} | {share} |")
    lines += ["", "| the bar | measured | bar | met |", "|---|---|---|---|"]
    lines += [
        f"| {t['what']} | {t['value']} | {t['bar']} | {'yes' if t['met'] else '**no**'} |"
        for t in data["targets"]
    ]
    return lines


def answer_table(results: dict[str, Any]) -> list[str]:
    """/answer on XQuAD: correct quotes against the simple baseline, and abstention with and without the
    question's paragraph in the pool."""
    pools = results.get("answers")
    if not pools:
        return []
    lines = [
        "",
        "## Answers: correct, and silent when the documents do not answer",
        "",
        "Every XQuAD question answered by `/answer`'s extractive path over the paragraphs of one language "
        "(`python -m sabio.evaluation.answers --limit 0`). *Correct*: a cited quote contains the gold "
        "answer, over all questions (an abstention counts as wrong); *of answered*: over the questions it "
        "answered. Baseline: the top chunk's sentence sharing most stems with the question. *Abstained*: "
        'share of questions answered "not in the documents" with their paragraph taken out of the pool '
        "(unanswerable: should be high) and with it (answerable: should be low).",
        "",
        "| pool | questions | correct | of answered | baseline | abstained, unanswerable | "
        "abstained, answerable |",
        "|---|---|---|---|---|---|---|",
    ]
    for pool, data in pools.items():
        for qlang, row in data["questions"].items():
            answered = 100 - row["abstained_answerable"]
            of_answered = round(100 * row["answer_correct"] / answered, 1) if answered else 0.0
            base = row["baseline_correct"]
            lines.append(
                f"| XQuAD {pool} | {qlang} ({row['questions']}) | **{row['answer_correct']}** | {of_answered} "
                f"| {base if base is not None else '-'} | {row['abstained_unanswerable']} | "
                f"{row['abstained_answerable']} |"
            )
    return lines
