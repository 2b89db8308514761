"""``chalice local`` with a listen queue fit for concurrent clients: what ``sabio serve`` runs.

Chalice's local server is a ``socketserver`` whose listen backlog is five connections. More clients than
that connecting at once (a web page's requests, an agent's parallel tool calls, bench/load.py at concurrency
60) overflowed it and their connections were reset: 14 to 56 of 600 requests failed. The server is
otherwise Chalice's own.
"""

from __future__ import annotations

import sys

LISTEN_BACKLOG = 256


def main() -> int:
    from chalice import local
    from chalice.cli import main as chalice_main

    local.ThreadedHTTPServer.request_queue_size = LISTEN_BACKLOG
    return int(chalice_main() or 0)


if __name__ == "__main__":
    sys.exit(main())
