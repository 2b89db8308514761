"""API keys: who may call, which scopes each key may read, and how fast (scope is enforced in every search)."""

from __future__ import annotations

import hashlib
import hmac
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from chalicelib.errors import Forbidden, TooManyRequests, Unauthorized
from chalicelib.llms.ratelimit import TokenBucket


@dataclass(frozen=True)
class KeyPolicy:
    """What one key may read: source ids, object-key prefixes, tags (each ``None`` = no restriction)."""

    name: str
    source_ids: tuple[str, ...] | None = None
    source_refs: tuple[str, ...] | None = None
    tags: tuple[str, ...] | None = None
    rate_per_minute: float | None = None

    @property
    def unrestricted(self) -> bool:
        return self.source_ids is None and self.source_refs is None and self.tags is None


def require_all_sources(access: KeyPolicy | None, what: str) -> None:
    """Forbidden unless the caller may read every source (no keys configured, or an unrestricted key)."""
    if access is not None and not access.unrestricted:
        from chalicelib.errors import Forbidden

        raise Forbidden(f"{what} cover every source: this key is limited to some")


def visible(access: KeyPolicy | None, chunk: Any) -> bool:
    """Whether a key may read this chunk: the same reach as its searches (sources, key prefixes, tags)."""
    if access is None:
        return True
    if access.source_ids is not None and chunk.source_id not in access.source_ids:
        return False
    if access.source_refs is not None and not any(chunk.key.startswith(r) for r in access.source_refs):
        return False
    return access.tags is None or bool(set(access.tags) & set(chunk.tags))


def reaches(access: KeyPolicy | None, document: Any) -> bool:
    """A document is listed to a key that may read it by source and key prefix (tags are checked per chunk
    when it is read)."""
    if access is None:
        return True
    if access.source_ids is not None and document.source_id not in access.source_ids:
        return False
    return access.source_refs is None or any(document.key.startswith(r) for r in access.source_refs)


def key_digest(key: str) -> str:
    return "sha256:" + hashlib.sha256(key.encode()).hexdigest()


def _tuple(value: Any) -> tuple[str, ...] | None:
    if value is None:
        return None
    return (value,) if isinstance(value, str) else tuple(str(v) for v in value)


def load_policies(config: Mapping[str, Mapping[str, Any]]) -> dict[str, KeyPolicy]:
    """``{"sha256:<hex>" or "<plain key>": {"name", "source_ids", "source_refs", "tags", "rate_per_minute"}}``.

    Store digests in real configuration (``sabio key`` prints one); plain keys are accepted for local use.
    """
    policies = {}
    for key, spec in config.items():
        digest = key if key.startswith("sha256:") else key_digest(key)
        policies[digest] = KeyPolicy(
            name=str(spec.get("name") or digest[7:15]),
            source_ids=_tuple(spec.get("source_ids")),
            source_refs=_tuple(spec.get("source_refs")),
            tags=_tuple(spec.get("tags")),
            rate_per_minute=float(spec["rate_per_minute"]) if spec.get("rate_per_minute") else None,
        )
    return policies


class Authenticator:
    def __init__(self, policies: dict[str, KeyPolicy], clock: Callable[[], float] = time.monotonic) -> None:
        self.policies = policies
        self._clock = clock
        self._buckets: dict[str, TokenBucket] = {}
        self._lock = threading.Lock()

    def check(self, presented: str | None) -> KeyPolicy:
        """The key's policy; 401 without a key, 403 for an unknown one, 429 over its rate."""
        if not presented:
            raise Unauthorized("an API key is required (header x-api-key)")
        digest = key_digest(presented)
        policy = next((p for d, p in self.policies.items() if hmac.compare_digest(d, digest)), None)
        if policy is None:
            raise Forbidden("unknown API key")
        if policy.rate_per_minute:
            with self._lock:
                bucket = self._buckets.setdefault(digest, TokenBucket(policy.rate_per_minute, self._clock))
                if bucket.wait_time(1) > 0:
                    raise TooManyRequests(
                        f"rate limit of {policy.rate_per_minute:g} requests per minute exceeded"
                    )
                bucket.consume(1)
        return policy
