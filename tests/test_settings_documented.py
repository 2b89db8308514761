"""Every setting is documented: each ``Settings`` field's ``SABIO_*`` variable is named in the README, in full
or as a shorthand beside its family (`SABIO_LLM_PRICE_INPUT_PER_MTOK` / `_OUTPUT_PER_MTOK`)."""

from __future__ import annotations

import re
from pathlib import Path

from chalicelib.settings import Settings

README = Path(__file__).resolve().parent.parent / "README.md"


def documented(text: str) -> set[str]:
    names: set[str] = set()
    for line in text.splitlines():
        full = re.findall(r"SABIO_[A-Z0-9_]*[A-Z0-9]", line)
        names |= set(full)
        for short in re.findall(r"`(_[A-Z0-9_]+)`", line):
            for name in full:
                parts = name.split("_")
                names |= {"_".join(parts[:k]) + short for k in range(2, len(parts))}
    return names


def test_every_setting_is_named_in_the_readme():
    named = documented(README.read_text(encoding="utf-8"))
    missing = sorted(
        f"SABIO_{field.upper()}" for field in Settings.model_fields if f"SABIO_{field.upper()}" not in named
    )
    assert not missing, f"settings the README does not name: {missing}"
