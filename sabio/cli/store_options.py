"""What the commands that open the store share: its container (--store, and --as/--groups to read as a user)."""

from __future__ import annotations

import argparse
from typing import Any


def container_for(args: argparse.Namespace) -> Any:
    from chalicelib.composition import Container
    from chalicelib.settings import Settings

    overrides: dict[str, Any] = {"store_path": args.store} if getattr(args, "store", None) else {}
    if getattr(args, "as_user", None) or getattr(args, "groups", None):  # --as: read as that user
        overrides |= {"as_user": args.as_user, "as_groups": args.groups or ""}
    return Container(Settings(**overrides))


def as_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--as", dest="as_user", metavar="USER", help="read as this user (user:USER; testing permissions)"
    )
    p.add_argument("--groups", help="the groups of --as, comma-separated (group:NAME each)")
