"""A section of the settings: what one component reads, given to it whole (composition.py copies nothing).

A field with an alias is a setting (declared with ``setting``): its environment variable is ``SABIO_`` + the
alias, the flat name a deployment has always used (``SABIO_RETRIEVAL_CANDIDATES`` sets
``RetrievalConfig.candidates``), and ``Settings(retrieval_candidates=...)`` reaches it the same way. A field
without one is a constant tuned in code beside the measurement that chose it. A field whose type is a section
is a section within it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any, Self

from pydantic import BaseModel, ConfigDict, Field
from pydantic.fields import FieldInfo


class ConfigSection(BaseModel):
    model_config = ConfigDict(frozen=True, populate_by_name=True, extra="forbid")

    def changed(self, **changes: Any) -> Self:
        """This section with ``changes`` (field names), validated: a misspelt name is an error."""
        return self.model_validate({**self.model_dump(), **changes})


def setting(alias: str, default: Any, description: str, **constraints: Any) -> Any:
    """A setting's field: ``SABIO_`` + ``alias`` is its variable, ``default`` its value when unset,
    ``description`` its line in docs/configuration.md; ``constraints`` as ``Field`` takes them (``ge=1``)."""
    return Field(default, alias=alias, description=description, **constraints)


def from_json(value: object, empty: object) -> object:
    """A setting given as text (an environment variable) read as JSON, blank text as ``empty``; any other
    value as it is."""
    if not isinstance(value, str):
        return value
    return json.loads(value) if value.strip() else empty


def nested(field: FieldInfo) -> type[ConfigSection] | None:
    kind = field.annotation
    return kind if isinstance(kind, type) and issubclass(kind, ConfigSection) else None


def settings_of(section: type[ConfigSection]) -> Iterator[tuple[str, FieldInfo]]:
    """Each setting of ``section`` and of the sections within it, by its flat name, in declaration order."""
    for field in section.model_fields.values():
        inner = nested(field)
        if inner is not None:
            yield from settings_of(inner)
        elif field.alias:
            yield field.alias, field


def gather(section: type[ConfigSection], flat: Mapping[str, Any]) -> dict[str, Any]:
    """The values ``flat`` holds for ``section`` (by flat name), nested the way the section nests them."""
    out: dict[str, Any] = {}
    for name, field in section.model_fields.items():
        inner = nested(field)
        if inner is not None:
            found = gather(inner, flat)
            if found:
                out[name] = found
        elif field.alias and field.alias in flat:
            out[field.alias] = flat[field.alias]
    return out


def flatten(section: ConfigSection) -> dict[str, Any]:
    """``{flat name: value}`` for every setting of ``section`` (the inverse of ``gather``)."""
    out: dict[str, Any] = {}
    for name, field in type(section).model_fields.items():
        value = getattr(section, name)
        if nested(field) is not None:
            out.update(flatten(value))
        elif field.alias:
            out[field.alias] = value
    return out
