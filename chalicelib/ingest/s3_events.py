"""S3 event notifications as they arrive through SQS: parsing, ordering (sequencer), source mapping."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import unquote_plus


class PoisonMessage(ValueError):
    """A message that can never be processed: reported in batchItemFailures, never silently dropped."""


@dataclass(frozen=True)
class ObjectEvent:
    bucket: str
    key: str
    kind: Literal["created", "removed"]
    sequencer: str
    etag: str | None = None
    version_id: str | None = None


def parse_body(body: str) -> list[ObjectEvent]:
    """The object events in one SQS message body (S3 directly, or wrapped by SNS); a test event has none."""
    try:
        data = json.loads(body)
    except ValueError as exc:
        raise PoisonMessage(f"body is not JSON: {body[:80]!r}") from exc
    if isinstance(data, dict) and data.get("Type") == "Notification" and "Message" in data:
        return parse_body(data["Message"])
    if not isinstance(data, dict):
        raise PoisonMessage("body is not a JSON object")
    if data.get("Event") == "s3:TestEvent":
        return []
    records = data.get("Records")
    if not isinstance(records, list):
        raise PoisonMessage("no Records in the message")
    return [_event(r) for r in records]


def _event(record: dict[str, Any]) -> ObjectEvent:
    try:
        name = str(record["eventName"])
        s3 = record["s3"]
        obj = s3["object"]
        kind: Literal["created", "removed"]
        if name.startswith("ObjectCreated:"):
            kind = "created"
        elif name.startswith("ObjectRemoved:"):
            kind = "removed"
        else:
            raise PoisonMessage(f"unsupported event {name!r}")
        return ObjectEvent(
            bucket=str(s3["bucket"]["name"]),
            key=unquote_plus(str(obj["key"])),  # S3 URL-encodes keys in notifications ("a+b.md" is "a b.md")
            kind=kind,
            sequencer=order_key(obj.get("sequencer"), record.get("eventTime")),
            etag=obj.get("eTag") or obj.get("etag"),
            version_id=obj.get("versionId"),
        )
    except (KeyError, TypeError) as exc:
        raise PoisonMessage(f"malformed S3 record: missing {exc}") from exc


TIME_PREFIX = "time:"


def order_key(sequencer: object, event_time: object) -> str:
    """S3's ``sequencer``; emulators that omit it (moto) are ordered by ``eventTime`` instead."""
    if sequencer:
        return str(sequencer)
    return f"{TIME_PREFIX}{event_time}" if event_time else ""


def newer(candidate: str, current: str | None) -> bool:
    """S3's rule: right-pad the shorter sequencer with zeros, then compare the hex strings."""
    if not current:
        return True
    if not candidate:
        return False
    if candidate.startswith(TIME_PREFIX) != current.startswith(TIME_PREFIX):
        return (
            True  # not comparable (a sequencer against a time): process it, content hashes keep it idempotent
        )
    if candidate.startswith(TIME_PREFIX):
        return candidate > current
    width = max(len(candidate), len(current))
    return candidate.upper().ljust(width, "0") > current.upper().ljust(width, "0")


RESERVED_PREFIX = "_sabio/"  # Sabio's own objects in a bucket (a scheduled sync's state): never documents


def source_for(bucket: str, key: str, mapping: dict[str, str]) -> str | None:
    """Longest matching ``bucket/prefix`` (or ``bucket``) of the configuration; the bucket name by default;
    None for a key no source maps, or one of Sabio's own (``_sabio/``)."""
    if key.startswith(RESERVED_PREFIX):
        return None
    best: tuple[int, str] | None = None
    for pattern, source in mapping.items():
        pattern_bucket, _, prefix = pattern.partition("/")
        if pattern_bucket == bucket and key.startswith(prefix) and (best is None or len(pattern) > best[0]):
            best = (len(pattern), source)
    if best is not None:
        return best[1]
    return None if mapping else bucket
