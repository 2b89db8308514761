"""The identity provider's settings: whose JWTs are accepted and which claims name the user and their groups
(docs/permissions.md)."""

from __future__ import annotations

from chalicelib.config.section import ConfigSection, setting


class IdentityConfig(ConfigSection):
    """Who is asking: a JWT from the company's identity provider, beside the API key; off with no issuer."""

    issuer: str | None = setting(
        "jwt_issuer",
        None,
        "the identity provider's issuer (Cognito: https://cognito-idp.<region>.amazonaws.com/<pool "
        "id>); set, every request reads as the user its bearer JWT names, and a request without one as its "
        "API key alone (public documents and the key's groups), or is refused when the server has no keys",
    )
    audience: str | None = setting(
        "jwt_audience", None, "the token's required audience (Cognito ID tokens: the app client id)"
    )
    jwks_url: str | None = setting(
        "jwt_jwks_url", None, "the issuer's key set; default: the jwks_uri of its OIDC discovery document"
    )
    user_claim: str = setting(
        "jwt_user_claim", "email", "the claim naming the user (user:<it>); sub when absent"
    )
    groups_claim: str = setting(
        "jwt_groups_claim", "groups", "the claim listing the user's groups (Cognito: cognito:groups)"
    )
    groups_required: bool = setting(
        "jwt_groups_required",
        True,
        "a token without the groups claim is refused (403); false: such a user reads public "
        "documents only (Cognito leaves the claim out for a user in no group)",
    )
    leeway_s: int = 30
    # a token naming a key the set lacks fetches the set again, at most this often (a flood of made-up key
    # ids must not become a flood of requests to the issuer)
    refetch_cooldown_s: float = 30.0
