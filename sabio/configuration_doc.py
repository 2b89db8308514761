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

from chalicelib.config.section import ConfigSection, nested
from chalicelib.settings import Settings

TARGET = Path(__file__).resolve().parent.parent / "docs" / "configuration.md"

# each top-level field goes under the first group that names it (a name ending in "_" is a prefix); REST takes the rest
SECTIONS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("Who enriches and answers", ("enrichment", "answer")),
    ("AWS and OpenSearch", ("chunk_store", "dynamodb_table", "aws_", "source_map", "vector_index", "opensearch_")),
    ("API keys", ("auth", "api_keys")),
)  # fmt: skip
REST = "Store, languages and answers"
OTHER = (
    ("SABIO_OCR_LANGUAGES", "spa+eng", "Tesseract's languages for PDF pages with no text layer (read by the OCR step)"),
)  # fmt: skip

HEADER = """# Configuration

Generated from `chalicelib/settings.py` and its sections (`chalicelib/config/`) by `make configuration`; a
test fails when this page is stale. Every setting is read from an argument, then its `SABIO_*` environment variable, then its default.
A component's settings form a section it is given whole (`settings.retrieval.candidates` is
`SABIO_RETRIEVAL_CANDIDATES`); the names stay flat, as a deployment sets them.
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


def row(name: str, field: FieldInfo) -> str:
    default = field.get_default(call_default_factory=True)
    return f"| `SABIO_{name.upper()}` | `{shown(default)}` | {field.description}{choices(field)} |"


def table(title: str, rows: list[str], intro: str = "") -> str:
    intro = f"{intro}\n\n" if intro else ""
    return f"## {title}\n\n{intro}| variable | default | meaning |\n|---|---|---|\n" + "\n".join(rows) + "\n"


def section_tables(section: type[ConfigSection]) -> list[str]:
    """A section's own settings, then each section within it, a table each."""
    own = [row(f.alias, f) for f in section.model_fields.values() if f.alias and nested(f) is None]
    title, _, what = (section.__doc__ or section.__name__).partition(":")
    where = f"Read whole by `{section.__name__}` (`{section.__module__.replace('.', '/')}.py`):{what.rstrip('.')}."
    inner = (nested(f) for f in section.model_fields.values())
    return [table(title, own, where), *(t for s in inner if s is not None for t in section_tables(s))]


def render() -> str:
    titles = [REST, *(title for title, _ in SECTIONS)]
    rows: dict[str, list[str]] = {title: [] for title in titles}
    for name, field in Settings.model_fields.items():
        if nested(field) is None:
            rows[section_of(name)].append(row(name, field))
    parts = [HEADER, table(REST, rows[REST])]
    parts += [t for _, section in Settings.sections() for t in section_tables(section)]
    parts += [table(title, rows[title]) for title, _ in SECTIONS]
    other = [f"| `{n}` | `{d}` | {m} |" for n, d, m in OTHER]
    parts.append(table("Read by one component", other))
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
