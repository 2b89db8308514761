"""A real OIDC issuer for tests: an RSA key set served over HTTP (discovery document and JWKS), and ID tokens
signed with PyJWT the way Cognito or any OIDC provider signs them. ``rotate()`` replaces the key set."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import jwt
from cryptography.hazmat.primitives.asymmetric import rsa
from jwt.algorithms import RSAAlgorithm

AUDIENCE = "sabio-web"


class Issuer:
    def __init__(self) -> None:
        self.keys: dict[str, Any] = {}
        self.fetches = 0  # how often the key set was read (PyJWT keeps it between tokens)
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self.rotate()

    def rotate(self) -> str:
        """A new signing key; the old ones leave the published set. Returns the new key id."""
        kid = f"k{len(self.keys) + 1}"
        self.keys = {kid: rsa.generate_private_key(public_exponent=65537, key_size=2048)}
        return kid

    @property
    def kid(self) -> str:
        return next(iter(self.keys))

    def token(self, user: str, groups: list[str] | None, **overrides: Any) -> str:
        """An ID token for ``user`` (``groups`` None: no groups claim); ``overrides`` change claims, or
        ``key`` / ``kid`` / ``algorithm`` the signature."""
        now = int(time.time())
        claims: dict[str, Any] = {
            "iss": self.url,
            "aud": AUDIENCE,
            "sub": user.split("@")[0],
            "email": user,
            "iat": now,
            "exp": now + 600,
        }
        if groups is not None:
            claims["groups"] = groups
        key = overrides.pop("key", None) or self.keys[self.kid]
        kid = overrides.pop("kid", self.kid)
        algorithm = overrides.pop("algorithm", "RS256")
        claims.update(overrides)
        return jwt.encode(claims, key, algorithm=algorithm, headers={"kid": kid})

    def _jwks(self) -> dict[str, Any]:
        keys = []
        for kid, key in self.keys.items():
            jwk = json.loads(RSAAlgorithm.to_jwk(key.public_key()))
            keys.append({**jwk, "kid": kid, "use": "sig", "alg": "RS256"})
        return {"keys": keys}

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        issuer = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802
                if self.path == "/.well-known/openid-configuration":
                    body = {"issuer": issuer.url, "jwks_uri": issuer.url + "/jwks.json"}
                elif self.path == "/jwks.json":
                    issuer.fetches += 1
                    body = issuer._jwks()
                else:
                    self.send_error(404)
                    return
                data = json.dumps(body).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                return None

        return Handler

    @contextmanager
    def running(self) -> Iterator[Issuer]:
        thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        thread.start()
        try:
            yield self
        finally:
            self._server.shutdown()
            self._server.server_close()
