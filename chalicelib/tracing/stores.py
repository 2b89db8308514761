"""Store calls as spans: the chunk store and the vector index seen through a proxy whose reads on the request
path (chunks by id, vectors, dense and keyword searches) each leave a ``store.<method>`` span. The composition
root puts it in place only while tracing is on; every other attribute is the store's own."""

from __future__ import annotations

import functools
from typing import Any

from chalicelib import tracing

TRACED = frozenset({"get_chunks", "get_vectors", "dense_search", "keyword_search", "chunk_ids", "stats"})


class TracedStore:
    """``inner`` with a span around each call named in TRACED (``db.system``: sqlite, dynamodb, opensearch)."""

    def __init__(self, inner: Any, system: str) -> None:
        self._inner = inner
        self._system = system

    def __getattr__(self, name: str) -> Any:
        found = getattr(self._inner, name)
        if name not in TRACED or not callable(found):
            return found
        return functools.partial(_traced_call, found, name, self._system)

    def __repr__(self) -> str:
        return f"TracedStore({self._inner!r})"


def _traced_call(method: Any, name: str, system: str, *args: Any, **kwargs: Any) -> Any:
    attributes = {"db.system": system, "db.operation.name": name}
    with tracing.span(f"store.{name}", tracing.TOOL, attributes) as span:
        result = method(*args, **kwargs)
        if isinstance(result, (list, dict, set)):
            span.set("sabio.results", len(result))
        return result


def traced(store: Any, system: str) -> Any:
    """``store`` behind the tracing proxy while tracing is on, else ``store`` itself."""
    return TracedStore(store, system) if tracing.on() else store
