"""``sabio plan``: the sizing of a corpus, projected from the measured benchmark figures (sabio.planning)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def cmd_plan(args: argparse.Namespace) -> int:
    from chalicelib.settings import Settings
    from sabio import planning

    if args.chunks < 1:
        print("error: --chunks must be at least 1", file=sys.stderr)
        return 2
    root = Path(__file__).resolve().parents[2]  # the checkout: sabio/cli/ is two folders down
    path = args.figures or planning.find_figures(root)
    if not path.is_file():
        print(f"error: no benchmark figures at {path} (run `make bench`)", file=sys.stderr)
        return 2
    figures = json.loads(path.read_text(encoding="utf-8"))
    if not figures.get("scale"):
        print(f"error: {path} has no scale curve (run `make bench`)", file=sys.stderr)
        return 2
    settings = Settings()
    shown = path.relative_to(root) if path.is_relative_to(root) else path
    result = planning.plan(
        figures,
        args.chunks,
        price_in=settings.llm.price_input_per_mtok,
        price_out=settings.llm.price_output_per_mtok,
        source=str(shown),
    )
    print(planning.render(result, args.queries_per_s))
    return 0


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """The parser of plan."""
    p = sub.add_parser("plan", help="size a corpus: embedded store, OpenSearch, DynamoDB, indexing, LLM cost")
    p.add_argument("--chunks", type=int, required=True, help="how many chunks the corpus will have")
    p.add_argument("--queries-per-s", type=float, help="expected peak queries per second")
    p.add_argument("--figures", type=Path, help="benchmark JSON to project from (default: the newest)")
    p.set_defaults(func=cmd_plan)
