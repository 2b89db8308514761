"""``sabio serve`` and ``sabio mcp``: the store served over HTTP (chalice local) or to an MCP client (stdio)."""

from __future__ import annotations

import argparse
import sys

from sabio.cli.store_options import as_arguments


def cmd_mcp(args: argparse.Namespace) -> int:
    """MCP over stdio on the embedded store: stdout is the protocol, every message for people goes to stderr."""
    from chalicelib.agents.mcp_server import run_stdio
    from chalicelib.composition import Container
    from chalicelib.settings import Settings
    from sabio.local_server import store_path

    store = store_path(args.store)
    if not store.exists():
        print(f"error: no store at {store}; index something first (sabio index PATH)", file=sys.stderr)
        return 2
    print(f"Sabio MCP server on {store} (stdio)", file=sys.stderr, flush=True)
    run_stdio(Container(Settings(store_path=str(store))))
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    from chalicelib.composition import Container
    from sabio.cli import notices
    from sabio.local_server import serve, store_path

    container = Container()
    _ = container.reranker  # a reranker that cannot work stops the server before it starts
    notice = notices.translation(container, notices.user_language())
    reader = {"SABIO_AS_USER": args.as_user or "", "SABIO_AS_GROUPS": args.groups or ""}
    return serve(args.host, args.port, store_path(args.store), reload=args.reload, env=reader, notice=notice)


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """The parsers of serve and mcp."""
    p = sub.add_parser("serve", help="serve the HTTP API on the embedded store (chalice local)")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8000)
    p.add_argument("--reload", action="store_true", help="restart when app.py or chalicelib/ changes")
    as_arguments(p)
    p.set_defaults(func=cmd_serve)

    p = sub.add_parser("mcp", help="serve the embedded store to an MCP client over stdio")
    p.set_defaults(func=cmd_mcp)
