"""What the commands that open the store share: its container (--store, and --as/--groups to read as a user);
a command that only reads a store refuses one that does not exist (a mistyped --store would otherwise be
created empty and answer nothing)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from chalicelib.errors import NotFound


def container_for(args: argparse.Namespace, *, reads: bool = False) -> Any:
    """The command's container; ``reads``: the command reads the store, which must exist already."""
    from chalicelib.composition import Container
    from chalicelib.settings import Settings

    overrides: dict[str, Any] = {"store_path": args.store} if getattr(args, "store", None) else {}
    if getattr(args, "as_user", None) or getattr(args, "groups", None):  # --as: read as that user
        overrides |= {"as_user": args.as_user, "as_groups": args.groups or ""}
    settings = Settings(**overrides)
    if reads and settings.chunk_store == "sqlite" and not Path(settings.store_path).exists():
        raise NotFound(
            f"no store at {Path(settings.store_path).resolve()}: index a folder into it first "
            f"(sabio{' --store ' + args.store if getattr(args, 'store', None) else ''} index PATH)"
        )
    return Container(settings)


def as_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--as", dest="as_user", metavar="USER", help="read as this user (user:USER; testing permissions)"
    )
    p.add_argument("--groups", help="the groups of --as, comma-separated (group:NAME each)")
