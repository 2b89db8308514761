"""Where a benchmark's figures are written: bench/results/<name>-<UTC time>.json."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"


def write_result(name: str, result: object) -> Path:
    """``result`` as JSON in a new time-stamped file; its path."""
    RESULTS.mkdir(parents=True, exist_ok=True)
    out = RESULTS / f"{name}-{datetime.now(UTC).strftime('%Y%m%dT%H%M%SZ')}.json"
    out.write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return out
