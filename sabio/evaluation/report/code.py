"""The code tables: the click code-question set (each variant, what a code chunk's vector sees) and the whole repositories."""

from __future__ import annotations

from typing import Any


def code_table(results: dict[str, Any]) -> list[str]:
    """The code-question set (datasets/code): Sabio's retrieve, each mode forced, and the plain RRF."""
    code = results.get("codeset")
    if not code:
        return []
    groups = list(code["groups"])
    lines = [
        "",
        f"## Code questions: {code['package']}",
        "",
        f"{code['questions']} questions written by hand before any retrieval ran on them "
        "([datasets/code](../datasets/code/README.md)), over the package's PyPI sdist "
        f"({code['chunks']} chunks: code, docs, examples, tests). A result answers when it is from a "
        "target file and covers the target line (or holds the anchor text). Recall@1 / Recall@5 / Recall@10 "
        "(`python -m sabio.evaluation.codeset`).",
        "",
        "| variant | " + " | ".join(f"{g} ({code['groups'][g]})" for g in groups) + " |",
        "|---|" + "---|" * len(groups),
    ]
    metrics = ("recall@1", "recall@5", "recall@10")
    return lines + variant_rows(code["variants"], groups, metrics) + header_table(code)


def variant_rows(variants: dict[str, Any], groups: list[str], metrics: tuple[str, ...]) -> list[str]:
    """One table row per variant (Sabio's retrieve in bold): each group's ``metrics``, joined by " / "."""
    rows = []
    for name, row in variants.items():
        cells = [" / ".join(str(row[g][m]) for m in metrics) for g in groups]
        label = f"**{name}**" if name == "Sabio retrieve" else name
        rows.append(f"| {label} | " + " | ".join(cells) + " |")
    return rows


def repos_table(results: dict[str, Any]) -> list[str]:
    """The whole-repository code set: Pass@10 / Pass@1 per code language and kind, by symbol and in windows."""
    repos = results.get("coderepos")
    if not repos:
        return []
    lines = [
        "",
        "## Code questions: whole repositories (leveldb, javapoet, anyhow)",
        "",
        "66 questions written before Sabio indexed the repositories ([datasets/code](../datasets/code/README.md)),"
        " over three repositories indexed as they are in one store: C++, Java, Rust; each question names an "
        "identifier or asks in plain words. Pass@10 / Pass@1 (`python -m sabio.evaluation.coderepos`).",
    ]
    for chunks, found in repos.items():
        groups = [g for g in found["groups"] if " " not in g]  # language x kind cells stay in the JSON
        cut = "by symbol" if chunks == "symbols" else "in line windows"
        lines += [
            "",
            f"**Code cut {cut}**: {found['chunks']} chunks ({found['code_chunks']} of code, "
            f"{found['mean_code_lines']} lines on average).",
            "",
            "| variant | " + " | ".join(f"{g} ({found['groups'][g]})" for g in groups) + " |",
            "|---|" + "---|" * len(groups),
        ]
        lines += variant_rows(found["variants"], groups, ("recall@10", "recall@1"))
    return lines


HEADER_NOTES = {
    "contextual": "path and symbols, their names' words, the enclosing doc comments and the file's purpose, "
    "then the lines",
    "enriched-name": "the enrichment header under the file name (the header before issue 23)",
    "enriched": "the enrichment header under the path",
    "path": "the path and symbol path once, then the lines",
    "path-summary": "path and symbol, the docstring's first sentence, then the lines",
    "raw": "the lines alone",
}


def header_table(code: dict[str, Any]) -> list[str]:
    """What a code chunk's vector sees (``code_embed_text``): each header on the same chunks and questions."""
    headers = code.get("headers")
    if not headers:
        return []
    chosen = code.get("code_embed_text")
    names = list(next(iter(headers.values())))
    lines = [
        "",
        "### What a code chunk's vector sees",
        "",
        "The same chunks and questions, indexed once per `code_embed_text` (only the code chunks' dense "
        "vectors differ; BM25 reads the same enrichment). Recall@5 / Recall@10, all questions, then "
        "English / Spanish Recall@10. The chosen default is in bold.",
        "",
        "| code_embed_text | what the vector sees | " + " | ".join(names) + " | en R@10 | es R@10 |",
        "|---|---|" + "---|" * (len(names) + 2),
    ]
    for header, rows in headers.items():
        label = f"**{header}**" if header == chosen else header
        cells = [f"{rows[n]['all']['recall@5']} / {rows[n]['all']['recall@10']}" for n in names]
        retrieve = rows.get("Sabio retrieve", {})
        by_lang = [str(retrieve.get(g, {}).get("recall@10", "–")) for g in ("en", "es")]
        lines.append(f"| {label} | {HEADER_NOTES.get(header, '')} | " + " | ".join(cells + by_lang) + " |")
    return lines
