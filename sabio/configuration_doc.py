"""docs/configuration.md, generated from ``Settings``: each field's variable, default and description.

python -m sabio.configuration_doc          # rewrites docs/configuration.md
python -m sabio.configuration_doc --check  # exit 1 when it is stale (tests/test_configuration_doc.py)
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from pydantic import SecretStr
from pydantic.fields import FieldInfo

from chalicelib.settings import Settings

TARGET = Path(__file__).resolve().parent.parent / "docs" / "configuration.md"

# each field goes under the first section that names it (a name ending in "_" is a prefix); REST takes the rest
SECTIONS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("LLM (optional)", ("llm_", "enrichment", "answer", "retrieval_hyde", "hyde_", "retrieval_rewrite", "rewrite_")),
    ("Rerank (optional)", ("reranker", "reranker_", "rerank_")),
    ("AWS and OpenSearch", ("chunk_store", "dynamodb_table", "aws_", "source_map", "vector_index", "opensearch_")),
    ("API keys", ("auth", "api_keys")),
    ("Query log and feedback", ("query_log", "log_query_text", "query_log_days", "feedback_ranking")),
)  # fmt: skip
REST = "Store, indexing, retrieval and answers"
OTHER = (
    ("SABIO_OCR_LANGUAGES", "spa+eng", "Tesseract's languages for PDF pages with no text layer (read by the OCR step)"),
)  # fmt: skip

HEADER = """# Configuration

Generated from `chalicelib/settings.py` by `make configuration`; a test fails when this page
is stale. Every setting is read from an argument, then its `SABIO_*` environment variable, then its default.
Lists are comma-separated (`SABIO_LANGUAGES=es,en,pt`); maps are JSON, or `k=v,k=v` where the field says so.
"""


def section_of(name: str) -> str:
    for title, names in SECTIONS:
        if any(name.startswith(n) if n.endswith("_") else name == n for n in names):
            return title
    return REST


def shown(value: Any) -> str:
    """A default as a user types it in the environment."""
    if value is None:
        return "unset"
    if value == "":
        return "empty"
    if isinstance(value, SecretStr):
        return "(secret)"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, (tuple, list)):
        return ",".join(map(str, value))
    if isinstance(value, dict):
        return ",".join(f"{k}={v}" for k, v in value.items()) if value else "empty"
    return str(value)


def choices(field: FieldInfo) -> str:
    """A closed set of values, unless the description already names each."""
    args = getattr(field.annotation, "__args__", ())
    values = [a for a in args if isinstance(a, str)]
    if not values or all(v in (field.description or "") for v in values):
        return ""
    return " (" + " / ".join(f"`{v}`" for v in values) + ")"


def render() -> str:
    titles = [REST, *(title for title, _ in SECTIONS)]
    rows: dict[str, list[str]] = {title: [] for title in titles}
    for name, field in Settings.model_fields.items():
        default = field.get_default(call_default_factory=True)
        line = f"| `SABIO_{name.upper()}` | `{shown(default)}` | {field.description}{choices(field)} |"
        rows[section_of(name)].append(line)
    parts = [HEADER]
    for title in titles:
        parts.append(
            f"## {title}\n\n| variable | default | meaning |\n|---|---|---|\n" + "\n".join(rows[title]) + "\n"
        )
    other = "\n".join(f"| `{n}` | `{d}` | {m} |" for n, d, m in OTHER)
    parts.append(f"## Read by one component\n\n| variable | default | meaning |\n|---|---|---|\n{other}\n")
    return "\n".join(parts)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when docs/configuration.md is stale")
    args = parser.parse_args(argv)
    text = render()
    if args.check:
        current = TARGET.read_text(encoding="utf-8") if TARGET.exists() else ""
        if current != text:
            print(f"{TARGET} is stale: run python -m sabio.configuration_doc", file=sys.stderr)
            return 1
        return 0
    TARGET.write_text(text, encoding="utf-8")
    print(f"wrote {TARGET}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
