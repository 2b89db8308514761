"""The answer tables: the company sets per kind of question, and XQuAD answers with and without their paragraph."""

from __future__ import annotations

from typing import Any

SPLITS = (("companyset", "development"), ("companyset_train", "training"), ("companyset_test", "test"))
HEAD = ("hit@1", "hit@5", "answer correct", "abstained", "confidently wrong")


def company_table(results: dict[str, Any], key: str, label: str) -> list[str]:
    """The company folders' answers per kind of question, each split side by side (answer correct /
    confidently wrong), the gap between development and test, and the bars each split must reach."""
    if key != "companyset":  # the LLM's answers, one split
        return _split_table(results.get(key), label)
    splits = [(name, results[k]) for k, name in SPLITS if results.get(k)]
    if not splits:
        return []
    lines = [
        "",
        "## Answers on company folders",
        "",
        "Company folders in every format Sabio reads, es + en with most facts in one language only, and questions "
        "written before Sabio ran on them ([datasets](../datasets/README.md); `python -m sabio.evaluation."
        "companyset --split dev|train|test`): *development*, the three folders the first answer rules were "
        "written on; *training*, four folders written blind that the confidence is fitted on; *test*, five "
        "folders written blind by helpers who saw only a brief, read in aggregate only. *Answer correct*: the "
        "quotes hold a gold answer (how-to: every step; multi-part: every part); for unanswerable questions, "
        "abstaining. *Confidently wrong*: answered and not correct. Each cell: answer correct / confidently wrong.",
        "",
        "| kind | " + " | ".join(f"{name} ({data['all']['questions']})" for name, data in splits) + " |",
        "|---|" + "---|" * len(splits),
    ]
    kinds = list(dict.fromkeys(k for _, data in splits for k in data["kinds"]))
    for kind in [*kinds, "answerable", "unanswerable", "all"]:
        cells = [_pair(data["kinds"].get(kind) or data.get(kind)) for _, data in splits]
        lines.append(f"| {kind} | " + " | ".join(cells) + " |")
    lines += _gap(dict(splits)) + _bars(splits)
    return lines


def _pair(row: dict[str, Any] | None) -> str:
    if not row:
        return "-"
    return f"{_cell(row['answer correct'])} / {_cell(row['confidently wrong'])}"


def _cell(value: Any) -> str:
    return "-" if value is None else str(value)


def _gap(splits: dict[str, dict[str, Any]]) -> list[str]:
    dev, test = splits.get("development"), splits.get("test")
    if not dev or not test:
        return []
    gap = round(dev["answerable"]["answer correct"] - test["answerable"]["answer correct"], 1)
    return ["", f"Development minus test, answerable correct: **{gap:+} points**."]


def _bars(splits: list[tuple[str, dict[str, Any]]]) -> list[str]:
    lines = ["", "| split | the bar | measured | met |", "|---|---|---|---|"]
    for name, data in splits:
        lines += [
            f"| {name} | {t['what']} | {t['value']} | {'yes' if t['met'] else '**no**'} |"
            for t in data["targets"]
        ]
    return lines


def _split_table(data: dict[str, Any] | None, label: str) -> list[str]:
    """One split's answers per kind of question, every measure."""
    if not data:
        return []
    lines = [
        "",
        f"## Answers on company folders{label}",
        "",
        "| kind | questions | " + " | ".join(HEAD) + " |",
        "|---|---|" + "---|" * len(HEAD),
    ]
    groups = {**data["kinds"], "answerable": data["answerable"], "unanswerable": data["unanswerable"]}
    groups["all"] = data["all"]
    for name, row in groups.items():
        cells = " | ".join("-" if row[h] is None else str(row[h]) for h in HEAD)
        lines.append(f"| {name} | {row['questions']} | {cells} |")
    return lines


def confidence_tables(results: dict[str, Any]) -> list[str]:
    """The answer confidence per set: AUROC, where the default threshold sits, the precision-coverage curve
    and the reliability diagram (confidence bins against the share right)."""
    sets = [(name, results[k]["calibration"]) for k, name in SPLITS if results.get(k, {}).get("calibration")]
    for pool, data in (results.get("answers") or {}).items():
        for qlang, row in data["questions"].items():
            if row.get("calibration"):
                sets.append((f"XQuAD {pool}, {qlang} questions", row["calibration"]))
    if not sets:
        return []
    lines = [
        "",
        "## How sure an answer is: the confidence, read on each set",
        "",
        "`confidence` estimates the probability that an answer is right (chalicelib/answer/confidence.py, fitted "
        "by `python -m sabio.evaluation.confidence.fit` on the development and training folders and XQuAD). "
        "*AUROC*: how often a right answer is surer than a wrong one. *At the default*: the share of questions "
        "answered at `SABIO_ANSWER_MIN_CONFIDENCE` and the share of those answers that is right. XQuAD counts "
        "each question twice, with its paragraph and without it (then no answer is right).",
        "",
        "| set | answers | right | AUROC | default threshold | answered at it | right of answered | calibration error |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for name, c in sets:
        d = c["default"]
        lines.append(
            f"| {name} | {c['answers']} | {c['right']} | **{c['auroc']}** | {d['threshold']} | {d['coverage']} "
            f"| {d['precision']} | {c['expected_calibration_error']} |"
        )
    lines += _curves(sets) + _reliability(sets)
    return lines


def _curves(sets: list[tuple[str, dict[str, Any]]]) -> list[str]:
    thresholds = [p["threshold"] for p in sets[0][1]["curve"]][::2]
    rows = []
    for name, c in sets:
        by = {p["threshold"]: p for p in c["curve"]}
        rows.append(
            [name, *(f"{_cell(by[t]['coverage'])} / {_cell(by[t]['precision'])}" for t in thresholds)]
        )
    caption = "Precision-coverage: at each threshold, the share answered / the share of those right."
    return _per_set(caption, [f"{t:.1f}" for t in thresholds], rows)


def _reliability(sets: list[tuple[str, dict[str, Any]]]) -> list[str]:
    bins = [round(0.1 * b, 1) for b in range(10)]
    rows = []
    for name, c in sets:
        by = {b["bin"]: b for b in c["reliability"]}
        rows.append([name, *(f"{by[b]['right']} ({by[b]['answers']})" if b in by else "-" for b in bins)])
    caption = "Reliability: answers whose confidence falls in each bin, and the share of them right (n in brackets)."
    return _per_set(caption, [f"{b:.1f}-{b + 0.1:.1f}" for b in bins], rows)


def _per_set(caption: str, columns: list[str], rows: list[list[str]]) -> list[str]:
    """A captioned table with a row per set and ``columns`` after the set's name."""
    lines = ["", caption, "", "| set | " + " | ".join(columns) + " |", "|---|" + "---|" * len(columns)]
    return lines + ["| " + " | ".join(r) + " |" for r in rows]


def threads_table(results: dict[str, Any]) -> list[str]:
    """Follow-up questions in conversations (datasets/threads, datasets/threads-test): each way a follow-up
    turn is asked, the training folders' threads beside the test folders' (blind, aggregate only)."""
    sets = {
        name: results[key]
        for key, name in (("threads", "train"), ("threads_test", "test (blind)"))
        if results.get(key)
    }
    if not sets:
        return []
    lines = [
        "",
        "## Follow-up questions in conversations",
        "",
        "Two- and three-turn threads written blind: over the training company folders "
        "([datasets/threads](../datasets/threads/README.md)) and over the test folders, read in aggregate only "
        "([datasets/threads-test](../datasets/threads-test/README.md)); `python -m sabio.evaluation.threads "
        "[--split test]`. Each follow-up turn asked in its conversation, as its standalone form, and as typed "
        "with no history: hit@5 / answer correct / confidently wrong (answered, not correct); *in language*: "
        "the question searched is in the user's.",
        "",
        "| set | turns | n | in its conversation | standalone | no history | in language |",
        "|---|---|---|---|---|---|---|",
    ]
    for set_name, data in sets.items():
        groups = {"all": data["all"], **data["by language"], "language switched": data["language switched"]}
        for name, row in groups.items():
            cells = " | ".join(
                " / ".join(str(row[w].get(k, "-")) for k in ("hit@5", "answer correct", "confidently wrong"))
                for w in ("followed", "standalone", "no history")
            )
            share = row["in the user's language"]
            lines.append(f"| {set_name} | {name} | {row['turns']} | {cells} | {share} |")
    lines += ["", "| set | the bar | measured | bar | met |", "|---|---|---|---|---|"]
    lines += [
        f"| {set_name} | {t['what']} | {t['value']} | {t['bar']} | {'yes' if t['met'] else '**no**'} |"
        for set_name, data in sets.items()
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
