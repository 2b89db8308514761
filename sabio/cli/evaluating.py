"""``sabio eval``: retrieval quality on the evaluation data, with a report (and the regression gate)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def cmd_eval(args: argparse.Namespace) -> int:
    from sabio.evaluation import gate, report, suite

    eval_dir = Path(args.data).resolve()
    if not (eval_dir / "derived").is_dir():
        print(
            f"error: no evaluation data at {eval_dir} (expected ../shared/eval, see its README)",
            file=sys.stderr,
        )
        return 2
    unknown, names = suite.unmatched(eval_dir, args.only) if args.only else ([], [])
    if unknown:  # a typo would otherwise run nothing and merge nothing, in silence
        print(
            f"error: --only {', '.join(map(repr, unknown))} names no set; the sets: {'; '.join(names)}",
            file=sys.stderr,
        )
        return 2
    base = Path(args.merge) if args.merge else None
    if base is not None and not base.is_file():  # before the run, not after an hour of it
        print(f"error: no results to merge into at {base} (a full run's results.json)", file=sys.stderr)
        return 2
    cache = None if args.no_cache else Path(args.cache)
    if args.llm:
        from chalicelib.settings import Settings

        if not Settings().llm.base_url:
            print("error: --llm needs an OpenAI-compatible endpoint: set SABIO_LLM_BASE_URL", file=sys.stderr)
            return 2
    command = " ".join(["sabio", "eval", *sys.argv[2:]]) if sys.argv[1:2] == ["eval"] else "sabio eval"
    results = suite.run(
        eval_dir,
        cache,
        only=args.only,
        limit=args.limit,
        with_ablation=not args.no_ablation,
        llm=args.llm,
        rerank=args.rerank,
        rewrite=args.rewrite,
        modes=tuple(args.modes),
        log=lambda line: print(line, flush=True),
    )
    if not args.only and not args.limit and len(args.modes) == 3:
        results["gate"] = gate.record(eval_dir, cache, Path(args.gate_file))
        print(f"regression gate: default Recall@5 {results['gate']['recall@5']} recorded in {args.gate_file}")
    if base is not None:
        results = report.merge(json.loads(base.read_text(encoding="utf-8")), results, command)
        print(f"merged {', '.join(results['updates'][-1]['sets'])} into the results of {base}")
    notes = Path(args.notes).read_text(encoding="utf-8") if args.notes else ""
    path = report.write(results, Path(args.out), command, notes)
    print(f"wrote {path} (+ results.json, chart.png)")
    if args.publish:
        report.publish(Path(args.out), Path(args.publish))
        print(f"published {args.publish}")
    return 0


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """The parser of eval."""
    p = sub.add_parser(
        "eval",
        help="retrieval and answer quality on the public evaluation data (--data: ../shared/eval beside the "
        "clone, docs/measuring.md): every dataset x variant, with a report",
    )
    p.add_argument("--data", default="../shared/eval", help="evaluation data folder")
    p.add_argument("--out", default="bench/results/eval", help="results folder (JSON, Markdown, PNG)")
    p.add_argument("--only", nargs="*", help="only query sets whose name contains one of these")
    p.add_argument("--limit", type=int, help="only the first N queries of each set (a quick look)")
    p.add_argument("--cache", default="bench/cache/embeddings.sqlite", help="embedding cache (SQLite)")
    p.add_argument("--no-cache", action="store_true", help="embed everything afresh")
    p.add_argument("--no-ablation", action="store_true", help="skip the FastAPI chunking ablation")
    p.add_argument(
        "--llm",
        action="store_true",
        help="also answer the company set with the configured LLM (SABIO_LLM_BASE_URL), held to its citations",
    )
    p.add_argument(
        "--rerank",
        choices=["cross-encoder", "bedrock", "http", "llm"],
        help="add the default pipeline with this reranker as its second stage (its model, endpoint or "
        "region from SABIO_RERANKER_MODEL / _URL / _API_KEY, SABIO_AWS_REGION); "
        "the report says why when it cannot run",
    )
    p.add_argument(
        "--rewrite",
        action="store_true",
        help="add the default pipeline with LLM query rewriting (needs SABIO_LLM_BASE_URL)",
    )
    p.add_argument(
        "--modes",
        nargs="+",
        default=["raw", "contextual", "enriched"],
        choices=["raw", "contextual", "enriched"],
        help="embed_text configurations to build (the default one is always built)",
    )
    p.add_argument("--gate-file", default="bench/eval_gate.json", help="where the full run records the gate")
    p.add_argument("--notes", help="Markdown inserted at the top of the report (the findings)")
    p.add_argument("--publish", help="also write the report, chart and JSON here, e.g. docs/evaluation.md")
    p.add_argument(
        "--merge",
        help="a full run's results.json (e.g. docs/evaluation.json) whose query sets this run replaces",
    )
    p.set_defaults(func=cmd_eval)
