"""The end user's identity: JWTs from a real OIDC issuer over HTTP (discovery, JWKS), checked by PyJWT. Every
bad token is a clear 401 / 403 and reads nothing; a rotated key set is fetched again; a key may name a user
only when configured to; ``sabio serve --as`` and the CLI read as the user they name."""

from __future__ import annotations

import base64
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from chalice.test import Client
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

import app as sabio_app
from chalicelib.access.identity import JwtVerifier
from chalicelib.composition import Container
from chalicelib.config.identity import IdentityConfig
from chalicelib.settings import Settings
from sabio import cli
from tests.jwks_server import AUDIENCE, Issuer

pytestmark = pytest.mark.slow
PUBLIC_DOC = "---\nsabio-read: public\n---\n# Horario de oficina\n\nLa oficina abre de ocho a seis.\n"
FINANCE_DOC = (
    "---\nsabio-read: group:finance\n---\n# Cierre contable\n\n"
    "El cierre contable del trimestre se firma el día cinco. Código FIN-7731.\n"
)
SECRET = "FIN-7731"


@pytest.fixture(scope="module")
def issuer() -> Iterator[Issuer]:
    with Issuer().running() as running:
        yield running


@pytest.fixture(scope="module")
def store(tmp_path_factory, examples_container) -> Path:  # type: ignore[no-untyped-def]
    root = tmp_path_factory.mktemp("identity")
    (root / "docs").mkdir()
    (root / "docs" / "horario.md").write_text(PUBLIC_DOC, encoding="utf-8")
    (root / "docs" / "cierre.md").write_text(FINANCE_DOC, encoding="utf-8")
    container = Container(Settings(store_path=str(root / "s.db")))
    container.__dict__["embedder"] = examples_container.embedder
    assert container.ingestor().index_folder(root / "docs", "docs").ok
    return root / "s.db"


def serve(store: Path, examples_container: Container, **settings: Any) -> Client:
    container = Container(Settings(store_path=str(store), **settings))
    container.__dict__["embedder"] = examples_container.embedder
    sabio_app._container = container
    return Client(sabio_app.app)


@pytest.fixture
def jwt_only(store, issuer, examples_container) -> Iterator[Client]:  # type: ignore[no-untyped-def]
    with serve(store, examples_container, jwt_issuer=issuer.url, jwt_audience=AUDIENCE) as client:
        yield client
    sabio_app._container = None


def ask(client: Client, headers: dict[str, str]) -> Any:
    body = json.dumps({"query": "¿Cuándo se firma el cierre contable?", "lang": "all"})
    return client.http.post("/retrieve", headers={"Content-Type": "application/json", **headers}, body=body)


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def test_a_valid_token_reads_as_its_user_and_groups(jwt_only, issuer):
    finance = ask(jwt_only, bearer(issuer.token("ana@acme.com", ["finance"])))
    assert finance.status_code == 200 and SECRET in finance.body.decode()
    other = ask(jwt_only, bearer(issuer.token("eve@acme.com", ["sales"])))
    assert other.status_code == 200 and SECRET not in other.body.decode()
    assert [i["title"] for i in other.json_body["items"]] == ["Horario de oficina"]


def _unsigned(issuer: Issuer) -> str:
    """``alg: none``: a token anyone can write."""

    def part(obj: dict[str, Any]) -> str:
        return base64.urlsafe_b64encode(json.dumps(obj).encode()).rstrip(b"=").decode()

    claims = {"iss": issuer.url, "aud": AUDIENCE, "email": "ana@acme.com", "groups": ["finance"]}
    return f"{part({'alg': 'none', 'typ': 'JWT', 'kid': issuer.kid})}.{part({**claims, 'exp': time.time() + 600})}."


def _hs256_with_the_public_key(issuer: Issuer) -> str:
    """The old key-confusion attack: HS256 signed with the issuer's public key as the shared secret."""
    import hmac
    from hashlib import sha256

    pem = (
        issuer.keys[issuer.kid]
        .public_key()
        .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    )

    def part(obj: dict[str, Any]) -> str:
        return base64.urlsafe_b64encode(json.dumps(obj).encode()).rstrip(b"=").decode()

    claims = {"iss": issuer.url, "aud": AUDIENCE, "email": "ana@acme.com", "groups": ["finance"]}
    signing = f"{part({'alg': 'HS256', 'typ': 'JWT', 'kid': issuer.kid})}.{part({**claims, 'exp': time.time() + 600})}"
    signature = base64.urlsafe_b64encode(hmac.new(pem, signing.encode(), sha256).digest()).rstrip(b"=")
    return f"{signing}.{signature.decode()}"


@pytest.mark.parametrize(
    "case, status, reason",
    [
        ("expired", 401, "expired"),
        ("wrong audience", 401, "audience"),
        ("wrong issuer", 401, "issuer"),
        ("bad signature", 401, "signature"),
        ("alg none", 401, "'none' is not accepted"),
        ("HS256 with the public key", 401, "'HS256' is not accepted"),
        ("no groups claim", 403, "no 'groups' claim"),
        ("no token", 401, "bearer token from the identity provider is required"),
        ("not a JWT", 401, "required"),
    ],
)
def test_a_bad_token_is_refused_with_its_reason_and_reads_nothing(jwt_only, issuer, case, status, reason):
    stranger = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    tokens = {
        "expired": lambda: issuer.token("ana@acme.com", ["finance"], exp=int(time.time()) - 120),
        "wrong audience": lambda: issuer.token("ana@acme.com", ["finance"], aud="another-app"),
        "wrong issuer": lambda: issuer.token("ana@acme.com", ["finance"], iss="https://evil.example.com"),
        "bad signature": lambda: issuer.token("ana@acme.com", ["finance"], key=stranger),
        "alg none": lambda: _unsigned(issuer),
        "HS256 with the public key": lambda: _hs256_with_the_public_key(issuer),
        "no groups claim": lambda: issuer.token("ana@acme.com", None),
        "no token": lambda: None,
        "not a JWT": lambda: "just-some-string",
    }
    token = tokens[case]()
    r = ask(jwt_only, bearer(token) if token else {})
    assert r.status_code == status, (case, r.body)
    assert reason.lower() in r.json_body["message"].lower(), r.json_body
    assert SECRET not in r.body.decode() and "Cierre" not in r.body.decode()


def test_a_rotated_key_set_is_fetched_again_and_the_old_key_is_refused(store, examples_container):
    with Issuer().running() as issuer:
        with serve(store, examples_container, jwt_issuer=issuer.url, jwt_audience=AUDIENCE) as client:
            # the key set is rotated within the test
            config = IdentityConfig(issuer=issuer.url, audience=AUDIENCE, refetch_cooldown_s=0)
            sabio_app.container().__dict__["identity"] = JwtVerifier(config)
            old = issuer.token("ana@acme.com", ["finance"])
            assert ask(client, bearer(old)).status_code == 200
            fetched = issuer.fetches
            assert ask(client, bearer(issuer.token("ana@acme.com", ["finance"]))).status_code == 200
            assert issuer.fetches == fetched  # the key set is kept between tokens
            issuer.rotate()
            new = ask(client, bearer(issuer.token("ana@acme.com", ["finance"])))
            assert new.status_code == 200 and SECRET in new.body.decode()
            assert issuer.fetches == fetched + 1  # a token naming an unknown key: the set fetched again
            refused = ask(client, bearer(old))
            assert refused.status_code == 401 and SECRET not in refused.body.decode()
        sabio_app._container = None


def test_only_a_key_configured_to_may_name_a_user(store, examples_container):
    keys = {
        "k-portal": {"name": "portal", "acts_for_users": True},
        "k-app": {"name": "app", "groups": ["ops"]},
    }
    with serve(store, examples_container, auth="keys", api_keys=keys) as client:
        named = {"x-sabio-user": "ana@acme.com", "x-sabio-groups": "finance"}
        portal = ask(client, {"x-api-key": "k-portal", **named})
        assert portal.status_code == 200 and SECRET in portal.body.decode()
        app = ask(client, {"x-api-key": "k-app", **named})
        assert app.status_code == 403 and "acts_for_users" in app.json_body["message"]
        alone = ask(client, {"x-api-key": "k-portal"})  # the key alone reads public documents
        assert alone.status_code == 200 and SECRET not in alone.body.decode()
    sabio_app._container = None


def test_an_unknown_key_field_is_refused_rather_than_ignored():
    from chalicelib.access.keys import load_policies

    with pytest.raises(ValueError, match="unknown field"):
        load_policies({"k": {"name": "x", "group": ["finance"]}})  # "groups", misspelt


def test_a_server_without_keys_reads_as_the_user_sabio_serve_names(store, examples_container):
    with serve(store, examples_container, as_user="eve@acme.com", as_groups=("sales",)) as client:
        assert SECRET not in ask(client, {}).body.decode()
    with serve(store, examples_container, as_user="ana@acme.com", as_groups=("finance",)) as client:
        assert SECRET in ask(client, {}).body.decode()
    sabio_app._container = None


def test_the_cli_reads_as_the_user_it_is_told(store, capsys):
    question = [
        "--store",
        str(store),
        "query",
        "¿Cuándo se firma el cierre contable?",
        "--lang",
        "all",
        "--json",
    ]
    assert cli.main([*question, "--as", "eve@acme.com", "--groups", "sales"]) == 0
    assert SECRET not in capsys.readouterr().out
    assert cli.main([*question, "--as", "ana@acme.com", "--groups", "finance,legal"]) == 0
    assert SECRET in capsys.readouterr().out
    assert cli.main(question) == 0  # the store's owner reads every document
    assert SECRET in capsys.readouterr().out


def test_sabio_key_makes_an_entry_that_admits_its_key_with_its_groups(capsys):
    from chalicelib.access.keys import Authenticator, load_policies

    assert cli.main(["key", "--name", "portal", "--groups", "ops", "sales", "--acts-for-users"]) == 0
    out = capsys.readouterr().out
    key = out.split("it is not stored): ")[1].split()[0]
    entry = json.loads(out.split("configuration entry: ")[1])
    policy = Authenticator(load_policies(entry)).check(key)
    assert policy.readers == ("group:ops", "group:sales", "public") and policy.acts_for_users
    assert cli.main(["key", "--name", "ops", "--all-documents"]) == 0
    entry = json.loads(capsys.readouterr().out.split("configuration entry: ")[1])
    assert next(iter(load_policies(entry).values())).readers is None


def test_the_claims_and_key_set_settings_name_what_they_say(issuer):
    """Cognito's shape: groups in cognito:groups, the user in a claim of its own, the key set named
    directly (no discovery); without the groups claim, SABIO_JWT_GROUPS_REQUIRED=0 reads as public only."""
    settings = Settings(
        jwt_issuer=issuer.url,
        jwt_audience=AUDIENCE,
        jwt_jwks_url=issuer.url + "/jwks.json",
        jwt_groups_claim="cognito:groups",
        jwt_user_claim="cognito:username",
        jwt_groups_required=False,
    )
    verifier = Container(settings).identity
    assert verifier is not None
    token = issuer.token("ana@acme.com", None, **{"cognito:groups": ["finance"], "cognito:username": "ana"})
    assert verifier.verify(token) == ("ana", ("finance",))
    assert verifier.verify(issuer.token("eve@acme.com", None, **{"cognito:username": "eve"})) == ("eve", ())
