"""The swappable parts by name (rerankers, translators, embedders, LLM clients): a name -> factory table per
kind that each implementation's own module adds itself to, so adding one touches its file and its test, not
the composition root.

A setting names one (``SABIO_RERANKER=http``) and the name is checked when the settings are read, in the
words pydantic uses for a value outside a closed set. Looking a name up imports the module named after it
first, so a configured part loads only itself; an unknown name imports every module of the kind's package
to list what is registered. Registering imports nothing heavy: each factory imports its library when called.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, TypeVar, cast

from pydantic_core import PydanticCustomError

from chalicelib.errors import ConfigurationError

if TYPE_CHECKING:
    from chalicelib.protocols import Embedder, Reranker, Translator

T = TypeVar("T")


@dataclass(frozen=True)
class Wiring:
    """What the composition root hands a factory besides its own section of the settings."""

    languages: tuple[str, ...]
    aws_region: str | None
    aws_endpoint_url: str | None
    # the primary chat model (a ChatLLM) or None, built only when a factory asks for it; Any because the
    # LLM client's module registers itself here, so this module cannot import its type
    llm: Callable[[], Any]


def _listed(names: list[str]) -> str:
    """``'a', 'b' or 'c'``: pydantic's own way of naming a closed set's values."""
    quoted = [repr(n) for n in names]
    return quoted[0] if len(quoted) == 1 else f"{', '.join(quoted[:-1])} or {quoted[-1]}"


class Registry(Generic[T]):
    """One kind's factories by name; ``off`` (e.g. ``none``) is a name that builds nothing and imports nothing."""

    def __init__(self, kind: str, package: str, off: str | None = None) -> None:
        self.kind, self.package, self.off = kind, package, off
        self._factories: dict[str, Callable[..., T]] = {}

    def register(self, name: str) -> Callable[[Callable[..., T]], Callable[..., T]]:
        """A decorator: ``name`` is built by the decorated factory."""

        def add(factory: Callable[..., T]) -> Callable[..., T]:
            self._factories[name] = factory
            return factory

        return add

    def names(self) -> list[str]:
        """Every name a setting may give: the off name, then each registered one."""
        for module in pkgutil.iter_modules(importlib.import_module(self.package).__path__):
            importlib.import_module(f"{self.package}.{module.name}")
        return [*([self.off] if self.off else []), *sorted(self._factories)]

    def require(self, name: str) -> str:
        """``name`` if something is registered under it (a pydantic validator: else a literal_error)."""
        if name == self.off or self._find(name) is not None:
            return name
        raise PydanticCustomError(
            "literal_error", "Input should be {expected}", {"expected": _listed(self.names())}
        )

    def build(self, name: str, *args: Any) -> T:
        """What ``name`` names, made by its factory from ``args`` (None for the off name)."""
        if name == self.off:
            return cast(T, None)
        factory = self._find(name)
        if factory is None:
            raise ConfigurationError(f"no {self.kind} {name!r}: input should be {_listed(self.names())}")
        return factory(*args)

    def _find(self, name: str) -> Callable[..., T] | None:
        module = name.replace("-", "_")
        if name not in self._factories and module.isidentifier():
            try:  # the module named after it: a configured part loads only itself
                importlib.import_module(f"{self.package}.{module}")
            except ModuleNotFoundError as exc:
                if exc.name != f"{self.package}.{module}":
                    raise
        if name not in self._factories:
            self.names()  # registered under another module's name (apertium's "auto"), or not at all
        return self._factories.get(name)


RERANKERS: Registry[Reranker | None] = Registry("reranker", "chalicelib.rerankers", off="none")
TRANSLATORS: Registry[Translator | None] = Registry("translator", "chalicelib.translators", off="none")
EMBEDDERS: Registry[Embedder] = Registry("embedder", "chalicelib.embedders")
# Any: ChatLLM's module registers itself here, so this module cannot import its type (an import cycle)
LLM_CLIENTS: Registry[Any] = Registry("LLM client", "chalicelib.llms")
