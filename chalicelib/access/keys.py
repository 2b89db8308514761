"""API keys: who may call, which scopes each key may read, and how fast (scope is enforced in every search)."""

from __future__ import annotations

import hashlib
import hmac
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from chalicelib.access.principals import PUBLIC, group_names, may_read, principals_of
from chalicelib.errors import Forbidden, TooManyRequests, Unauthorized
from chalicelib.llms.ratelimit import TokenBucket

if TYPE_CHECKING:
    from chalicelib.access.identity import JwtVerifier


@dataclass(frozen=True)
class KeyPolicy:
    """What one caller may read: source ids, object-key prefixes, tags (each ``None`` = no restriction), and
    ``readers``: the principals it reads documents as (chalicelib.access.principals; ``None``: every document).

    A configured key reads as ``public`` and its own ``groups`` unless it is configured ``all_documents``; a
    request made for a user (a JWT, or a key that ``acts_for_users``) reads as that user (``for_user``)."""

    name: str
    source_ids: tuple[str, ...] | None = None
    source_refs: tuple[str, ...] | None = None
    tags: tuple[str, ...] | None = None
    rate_per_minute: float | None = None
    readers: tuple[str, ...] | None = (PUBLIC,)
    acts_for_users: bool = False

    @property
    def unrestricted(self) -> bool:
        return (
            self.source_ids is None
            and self.source_refs is None
            and self.tags is None
            and self.readers is None
        )

    def for_user(self, user: str | None, groups: Iterable[str]) -> KeyPolicy:
        """This key's reach, reading as ``user`` and ``groups`` (and never more than the key's own scope)."""
        name = f"{self.name}/{user or '-'}" if self.name else f"user:{user or '-'}"
        return replace(self, name=name, readers=principals_of(user, groups))


def require_all_sources(access: KeyPolicy | None, what: str) -> None:
    """Forbidden unless the caller may read every source (no keys configured, or an unrestricted key)."""
    if access is not None and not access.unrestricted:
        from chalicelib.errors import Forbidden

        raise Forbidden(f"{what} cover every document: this caller may read only some")


def visible(access: KeyPolicy | None, chunk: Any) -> bool:
    """Whether a caller may read this chunk: the same reach as its searches (sources, key prefixes, tags,
    readers)."""
    if access is None:
        return True
    if not may_read(access.readers, chunk.readers):
        return False
    if access.source_ids is not None and chunk.source_id not in access.source_ids:
        return False
    if access.source_refs is not None and not any(chunk.key.startswith(r) for r in access.source_refs):
        return False
    return access.tags is None or bool(set(access.tags) & set(chunk.tags))


def reaches(access: KeyPolicy | None, document: Any) -> bool:
    """A document is listed to a caller that may read it by readers, source and key prefix (tags are checked
    per chunk when it is read)."""
    if access is None:
        return True
    if not may_read(access.readers, document.readers or ()):
        return False
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
    """``{"sha256:<hex>" or "<plain key>": {"name", "source_ids", "source_refs", "tags", "rate_per_minute",
    "groups", "all_documents", "acts_for_users"}}``.

    Store digests in real configuration (``sabio key`` prints one); plain keys are accepted for local use.
    """
    policies = {}
    for key, spec in config.items():
        digest = key if key.startswith("sha256:") else key_digest(key)
        unknown = set(spec) - _KEY_FIELDS
        if unknown:
            raise ValueError(
                f"API key {spec.get('name') or digest[7:15]}: unknown field(s) {sorted(unknown)}"
            )
        policies[digest] = KeyPolicy(
            name=str(spec.get("name") or digest[7:15]),
            source_ids=_tuple(spec.get("source_ids")),
            source_refs=_tuple(spec.get("source_refs")),
            tags=_tuple(spec.get("tags")),
            rate_per_minute=float(spec["rate_per_minute"]) if spec.get("rate_per_minute") else None,
            readers=None
            if spec.get("all_documents")
            else principals_of(None, _tuple(spec.get("groups")) or ()),
            acts_for_users=bool(spec.get("acts_for_users")),
        )
    return policies


_KEY_FIELDS = {
    "name",
    "source_ids",
    "source_refs",
    "tags",
    "rate_per_minute",
    "groups",
    "all_documents",
    "acts_for_users",
    "rate_per_second",  # the stack's API Gateway usage plan (infra/)
    "burst",
}


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


def caller(
    headers: Mapping[str, str],
    keys: Authenticator | None,
    identity: JwtVerifier | None,
    local: KeyPolicy | None = None,
) -> KeyPolicy | None:
    """Who asks, from a request's headers: the API key's policy (x-api-key, or a bearer that is not a JWT),
    read as the user a bearer JWT names, or the user a key that ``acts_for_users`` names (x-sabio-user,
    x-sabio-groups). None: a server without keys or identity provider (every document). Fails closed: a bad
    token, or a user named by a key that may not, is refused, never read past."""
    bearer = headers.get("authorization") or ""
    token = bearer[7:].strip() if bearer.lower().startswith("bearer ") else ""
    from chalicelib.access.identity import looks_like_jwt

    jwt_token = token if identity is not None and looks_like_jwt(token) else ""
    policy = keys.check(headers.get("x-api-key") or (token if not jwt_token else None)) if keys else None
    named = headers.get("x-sabio-user")
    if named is not None or headers.get("x-sabio-groups") is not None:
        if policy is None or not policy.acts_for_users:
            raise Forbidden(
                "x-sabio-user / x-sabio-groups: only a key configured acts_for_users may name a user"
            )
        return policy.for_user(named, group_names(headers.get("x-sabio-groups")))
    if jwt_token and identity is not None:
        user, groups = identity.verify(jwt_token)
        return (policy or KeyPolicy(name="")).for_user(user, groups)
    if identity is not None and policy is None:
        raise Unauthorized(
            "a bearer token from the identity provider is required (Authorization: Bearer <JWT>)"
        )
    return policy if keys is not None else local
