"""The sabio command: index a folder, query, answer, stats, and serve the API (or MCP) locally."""

# Each command group lives in a module of its own and adds its parsers; this one assembles them in the order
# `sabio --help` lists the commands, and runs the one asked for. The docstring above is that help's text.

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import time

from pydantic import ValidationError

from chalicelib.errors import ConfigurationError, SabioError, invalid_input
from sabio.cli import asking, evaluating, indexing, operating, planning, serving

GROUPS = (indexing, asking, operating, evaluating, planning, serving)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="sabio", description=__doc__)
    parser.add_argument("--store", help="SQLite store file (default: $SABIO_STORE_PATH or .sabio/sabio.db)")
    sub = parser.add_subparsers(dest="command", required=True)
    for group in GROUPS:
        group.add_parsers(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    started = time.perf_counter()
    try:
        return int(args.func(args))
    except SabioError as exc:
        print(f"error: {exc.message}", file=sys.stderr)
        return 2
    # a request the API would refuse with a 400 ("--top-k 0", a 5,000-character question)
    except ValidationError as exc:
        print(f"error: {invalid_input(exc).message}", file=sys.stderr)
        return 2
    except ConfigurationError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"\ninterrupted after {time.perf_counter() - started:.1f}s", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader went away (`sabio insights | head`): nothing more to say
        _quiet_stdout()
        return 141  # as a command stopped by SIGPIPE


def _quiet_stdout() -> None:
    """What is left to flush at exit goes nowhere, not into a second traceback."""
    with contextlib.suppress(OSError, ValueError):  # no file behind stdout: nothing to quiet
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
