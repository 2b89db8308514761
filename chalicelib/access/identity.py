"""Who is asking, from the company's identity provider: a JWT (Cognito user pool or any OIDC issuer) checked
with PyJWT against the issuer's key set: signature, issuer, audience, expiry; its user and groups claims.

Only asymmetric algorithms are accepted (never ``none``, never HS256 with a public key as its secret). The
key set is fetched on the first token, kept five minutes, and fetched again when a token names a key it does
not hold (a rotated set); a key withdrawn from the set is refused once the set is fetched again. Every failure is a clear 401 (or 403 for a token without groups) and nothing is read.
"""

from __future__ import annotations

import json
import threading
import urllib.request
from typing import Any

from chalicelib.access.principals import group_names
from chalicelib.config.identity import IdentityConfig
from chalicelib.errors import Forbidden, Unauthorized

ALGORITHMS = ("RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512")


def looks_like_jwt(token: str) -> bool:
    parts = token.split(".")
    return len(parts) == 3 and all(parts[:2]) and token.startswith("eyJ")


class JwtVerifier:
    def __init__(self, config: IdentityConfig) -> None:
        self.config = config
        self._client: Any = None
        self._lock = threading.Lock()

    def verify(self, token: str) -> tuple[str, tuple[str, ...]]:
        """The token's user and groups; Unauthorized / Forbidden with the reason otherwise."""
        import jwt

        try:
            header = jwt.get_unverified_header(token)
        except jwt.PyJWTError as exc:
            raise Unauthorized(f"bearer token is not a readable JWT ({exc})") from exc
        if header.get("alg") not in ALGORITHMS:
            raise Unauthorized(f"bearer token algorithm {header.get('alg')!r} is not accepted")
        try:
            key = self._keys().get_signing_key_from_jwt(token).key
            claims = jwt.decode(
                token,
                key,
                algorithms=list(ALGORITHMS),
                audience=self.config.audience,
                issuer=self.config.issuer,
                leeway=self.config.leeway_s,
                options={"require": ["exp", "iss"], "verify_aud": self.config.audience is not None},
            )
        except jwt.PyJWKClientError as exc:
            raise Unauthorized(f"bearer token: {exc}") from exc
        except jwt.PyJWTError as exc:
            raise Unauthorized(f"bearer token refused: {exc}") from exc
        return self._who(claims)

    def _who(self, claims: dict[str, Any]) -> tuple[str, tuple[str, ...]]:
        user = claims.get(self.config.user_claim) or claims.get("sub")
        if not isinstance(user, str) or not user:
            raise Unauthorized(f"bearer token names no user ({self.config.user_claim!r} or 'sub' claim)")
        groups = claims.get(self.config.groups_claim)
        if groups is None:
            if self.config.groups_required:
                raise Forbidden(
                    f"bearer token has no {self.config.groups_claim!r} claim: its groups are unknown "
                    "(SABIO_JWT_GROUPS_CLAIM names the claim; SABIO_JWT_GROUPS_REQUIRED=0 lets such a user "
                    "read public documents only)"
                )
            groups = []
        if isinstance(groups, str):
            groups = group_names(groups)
        if not isinstance(groups, list):
            raise Forbidden(f"bearer token's {self.config.groups_claim!r} claim is not a list of groups")
        return user, tuple(str(g) for g in groups)

    def _keys(self) -> Any:
        """PyJWKClient for the issuer's key set (refetched by PyJWT when a token names an unknown key)."""
        with self._lock:
            if self._client is None:
                from jwt import PyJWKClient

                # the set is kept 5 minutes, never key by key: a key the issuer withdrew stops working
                self._client = PyJWKClient(
                    self._jwks_url(),
                    cache_keys=False,
                    lifespan=300,
                    timeout=5,
                    cooldown_duration=self.config.refetch_cooldown_s,
                )
            return self._client

    def _jwks_url(self) -> str:
        if self.config.jwks_url:
            return self.config.jwks_url
        url = (self.config.issuer or "").rstrip("/") + "/.well-known/openid-configuration"  # built with one
        try:
            with urllib.request.urlopen(url, timeout=5) as response:  # noqa: S310 (the configured issuer)
                return str(json.load(response)["jwks_uri"])
        except (OSError, ValueError, KeyError) as exc:
            raise Unauthorized(
                f"the identity provider's discovery document could not be read ({exc})"
            ) from exc
