"""moto's real HTTP server for a test: the AWS credentials and region it needs, a free port, its URL."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

REGION = "eu-west-1"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def moto_server(region: str = REGION) -> Iterator[str]:
    """moto's server on a free port, with test credentials in the environment; yields its URL. moto keeps
    one state per process whatever the server: name buckets, queues and tables apart."""
    from moto.server import ThreadedMotoServer

    mp = pytest.MonkeyPatch()
    for var, value in (
        ("AWS_ACCESS_KEY_ID", "test"),
        ("AWS_SECRET_ACCESS_KEY", "test"),
        ("AWS_DEFAULT_REGION", region),
    ):
        mp.setenv(var, value)
    port = free_port()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.stop()
        mp.undo()
