"""The authentication pieces without a server: the token file (parsing, refusals naming the line,
re-read when it changes, a comparison against every line), the principal of a request, and the
configuration refusals."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from types import SimpleNamespace

import pytest

from medlit.core import auth
from medlit.core.auth import (
    LOCAL_PRINCIPAL,
    AuthConfigError,
    MedlitAccessToken,
    TokenFile,
    load_auth,
    metadata_urls,
    parse_token_file,
    principal_of,
)

pytestmark = pytest.mark.anyio


def hexdigest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def test_parses_lines_comments_and_blank_lines():
    text = f"# who  sha256\n\nalice {hexdigest('a')}\n   \n  bob.smith@lab {hexdigest('b').upper()}  \n"
    entries = parse_token_file(text)
    assert [p for p, _ in entries] == ["alice", "bob.smith@lab"]
    assert entries[1][1] == hashlib.sha256(b"b").digest()


@pytest.mark.parametrize(
    ("line", "says"),
    [
        ("alice", "expected 'principal sha256-hex-of-token', got 1 field"),
        (f"alice {hexdigest('a')} extra", "got 3 field"),
        ("alice deadbeef", "not a SHA-256 hex digest"),
        ("alice " + "g" * 64, "not a SHA-256 hex digest"),
        (f"al/ice {hexdigest('a')}", "is not 1-128 letters"),
        (f"oauth:x {hexdigest('a')}", "is not 1-128 letters"),
    ],
)
def test_malformed_lines_are_refused_naming_the_line(line, says):
    with pytest.raises(AuthConfigError) as err:
        parse_token_file(f"# header\nok {hexdigest('ok')}\n{line}\n")
    assert "line 3" in str(err.value) and says in str(err.value)


def test_one_token_for_two_principals_is_refused():
    with pytest.raises(AuthConfigError, match="line 2: the same token digest as line 1"):
        parse_token_file(f"a {hexdigest('t')}\nb {hexdigest('t')}\n")


def write(path: Path, text: str, mtime_ns: int) -> None:
    path.write_text(text)
    os.utime(path, ns=(mtime_ns, mtime_ns))


def test_re_read_when_the_file_changes(tmp_path):
    path = tmp_path / "tokens"
    write(path, f"alice {hexdigest('one')}\n", 1_000_000_000_000_000_000)
    tokens = TokenFile(path)
    assert tokens.principal_for("one") == "alice" and tokens.principal_for("two") is None
    write(path, f"bob {hexdigest('two')}\n", 1_000_000_001_000_000_000)
    assert tokens.principal_for("two") == "bob" and tokens.principal_for("one") is None


def test_an_unchanged_file_is_not_read_again(tmp_path, monkeypatch):
    path = tmp_path / "tokens"
    write(path, f"alice {hexdigest('one')}\n", 1_000_000_000_000_000_000)
    tokens = TokenFile(path)
    reads = []
    monkeypatch.setattr(TokenFile, "_read", lambda self: reads.append(1) or (None, []))
    assert tokens.principal_for("one") == "alice"
    assert reads == []


def test_a_file_turned_malformed_keeps_the_previous_entries(tmp_path):
    path = tmp_path / "tokens"
    write(path, f"alice {hexdigest('one')}\n", 1_000_000_000_000_000_000)
    tokens = TokenFile(path)
    write(path, "alice half-written\n", 1_000_000_001_000_000_000)
    assert tokens.principal_for("one") == "alice"
    write(path, f"carol {hexdigest('three')}\n", 1_000_000_002_000_000_000)
    assert tokens.principal_for("three") == "carol" and tokens.principal_for("one") is None


def test_start_up_refuses_a_malformed_or_missing_file(tmp_path):
    path = tmp_path / "tokens"
    path.write_text("alice nope\n")
    with pytest.raises(AuthConfigError, match="line 1"):
        TokenFile(path)
    with pytest.raises(AuthConfigError, match="cannot read"):
        TokenFile(tmp_path / "absent")


def test_every_line_is_compared_in_constant_time(tmp_path, monkeypatch):
    path = tmp_path / "tokens"
    path.write_text("".join(f"p{i} {hexdigest(f't{i}')}\n" for i in range(5)))
    tokens = TokenFile(path)
    compared: list[tuple[bytes, bytes]] = []
    real = auth.hmac.compare_digest

    def spy(a: bytes, b: bytes) -> bool:
        compared.append((a, b))
        return real(a, b)

    monkeypatch.setattr(auth.hmac, "compare_digest", spy)
    assert tokens.principal_for("t0") == "p0"  # the first line matches: the other four are compared too
    assert len(compared) == 5 and all(a == hashlib.sha256(b"t0").digest() for a, _ in compared)
    compared.clear()
    assert tokens.principal_for("nobody") is None
    assert len(compared) == 5


async def test_the_verifier_answers_the_principal_of_a_known_token(tmp_path):
    path = tmp_path / "tokens"
    path.write_text(f"alice {hexdigest('secret')}\n")
    config = load_auth({"MEDLIT_AUTH_TOKENS": str(path)})
    assert config.configured and config.jwt is None
    token = await config.verify_token("secret")
    assert isinstance(token, MedlitAccessToken) and token.principal == "alice" and token.token == ""
    assert await config.verify_token("wrong") is None
    assert await config.verify_token("") is None
    assert await config.verify_token("x" * 10_000) is None


def test_nothing_configured_is_no_authentication():
    assert not load_auth({}).configured


@pytest.mark.parametrize(
    ("env", "says"),
    [
        ({"MEDLIT_AUTH_ISSUER": "https://id.example.org"}, "MEDLIT_AUTH_AUDIENCE"),
        ({"MEDLIT_AUTH_AUDIENCE": "https://m.example.org/mcp"}, "MEDLIT_AUTH_ISSUER"),
        ({"MEDLIT_AUTH_ISSUER": "id.example.org", "MEDLIT_AUTH_AUDIENCE": "x"}, "not an http(s) URL"),
        (
            {
                "MEDLIT_AUTH_ISSUER": "https://id.example.org",
                "MEDLIT_AUTH_AUDIENCE": "x",
                "MEDLIT_AUTH_JWKS_URL": "file:///k",
            },
            "MEDLIT_AUTH_JWKS_URL",
        ),
    ],
)
def test_oauth_settings_are_refused_when_incomplete(env, says):
    with pytest.raises(AuthConfigError, match=says.replace("(", r"\(").replace(")", r"\)")):
        load_auth(env)


def test_the_resource_url_is_the_audience_url_or_the_served_one():
    env = {
        "MEDLIT_AUTH_ISSUER": "https://id.example.org",
        "MEDLIT_AUTH_AUDIENCE": "https://m.example.org/mcp",
    }
    assert (
        load_auth(env, default_resource="http://127.0.0.1:1/mcp").resource_url == "https://m.example.org/mcp"
    )
    env["MEDLIT_AUTH_AUDIENCE"] = "medlit"
    assert load_auth(env, default_resource="http://127.0.0.1:1/mcp").resource_url == "http://127.0.0.1:1/mcp"
    env["MEDLIT_AUTH_RESOURCE_URL"] = "https://public.example.org/mcp"
    assert load_auth(env).resource_url == "https://public.example.org/mcp"


def test_metadata_urls_follow_rfc_8414_then_openid():
    assert metadata_urls("https://id.example.org") == [
        "https://id.example.org/.well-known/oauth-authorization-server",
        "https://id.example.org/.well-known/openid-configuration",
    ]
    assert metadata_urls("https://id.example.org/tenant1/") == [
        "https://id.example.org/.well-known/oauth-authorization-server/tenant1",
        "https://id.example.org/tenant1/.well-known/openid-configuration",
    ]


def test_the_principal_of_a_request():
    token = MedlitAccessToken(token="", client_id="c", scopes=[], principal="alice")
    assert principal_of(SimpleNamespace(scope={"user": SimpleNamespace(access_token=token)})) == "alice"
    assert principal_of(SimpleNamespace(scope={})) == LOCAL_PRINCIPAL
    assert principal_of(None) == LOCAL_PRINCIPAL  # stdio: no HTTP request


# -- OAuth access tokens against a loopback issuer ----------------------------------------------------


@pytest.fixture
def issuer():
    from support.oauth_issuer import Issuer

    it = Issuer()
    yield it
    it.close()


def oauth(issuer, **extra: str):
    from support.oauth_issuer import AUDIENCE

    return load_auth({"MEDLIT_AUTH_ISSUER": issuer.url, "MEDLIT_AUTH_AUDIENCE": AUDIENCE, **extra})


async def test_a_valid_jwt_is_the_oauth_principal_of_its_subject(issuer):
    config = oauth(issuer)
    token = await config.verify_token(issuer.token("carol", scope="read write"))
    assert isinstance(token, MedlitAccessToken)
    assert token.principal == "oauth:carol" and token.subject == "carol" and token.scopes == ["read", "write"]
    assert issuer.fetches == ["/.well-known/oauth-authorization-server", "/jwks.json"]
    await config.verify_token(issuer.token("dave"))
    assert len(issuer.fetches) == 2  # the JWKS is cached


async def test_refused_jwts(issuer):
    import jwt

    now = int(__import__("time").time())
    config = oauth(issuer, MEDLIT_AUTH_JWKS_URL=issuer.url + "/jwks.json")
    from cryptography.hazmat.primitives.asymmetric import rsa

    other = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    claims = {"iss": issuer.url, "aud": "https://medlit.example.org/mcp", "sub": "x", "exp": now + 600}
    refused = {
        "expired": issuer.token(exp=now - 3600),
        "not yet valid": issuer.token(nbf=now + 3600),
        "wrong audience": issuer.token(aud="https://other.example.org/mcp"),
        "wrong issuer": issuer.token(iss="https://evil.example.org"),
        "no exp": jwt.encode(
            {k: v for k, v in claims.items() if k != "exp"}, issuer.key, "RS256", {"kid": "k1"}
        ),
        "no sub": jwt.encode(
            {k: v for k, v in claims.items() if k != "sub"}, issuer.key, "RS256", {"kid": "k1"}
        ),
        "another key": jwt.encode(claims, other, "RS256", {"kid": "k1"}),
        "hmac": jwt.encode(claims, "k" * 32, "HS256", {"kid": "k1"}),
        "alg none": jwt.encode(claims, None, "none", {"kid": "k1"}),
        "garbage": "a.b.c",
    }
    for what, token in refused.items():
        assert await config.verify_token(token) is None, what
    assert await config.verify_token(issuer.token()) is not None


async def test_an_unknown_key_id_refetches_at_most_once_a_while(issuer):
    import jwt

    config = oauth(issuer, MEDLIT_AUTH_JWKS_URL=issuer.url + "/jwks.json")
    assert await config.verify_token(issuer.token()) is not None
    claims = {"iss": issuer.url, "aud": "https://medlit.example.org/mcp", "sub": "x", "exp": 2**31}
    stray = jwt.encode(claims, issuer.key, "RS256", {"kid": "rotated"})
    for _ in range(5):
        assert await config.verify_token(stray) is None
    assert issuer.fetches == ["/jwks.json"]  # fetched within JWKS_MIN_REFETCH: not again


def test_a_removed_file_lets_no_one_in_until_it_is_back(tmp_path):
    path = tmp_path / "tokens"
    write(path, f"alice {hexdigest('one')}\n", 1_000_000_000_000_000_000)
    tokens = TokenFile(path)
    path.unlink()
    assert tokens.principal_for("one") is None
    write(path, f"alice {hexdigest('one')}\n", 1_000_000_000_000_000_000)
    assert tokens.principal_for("one") == "alice"


async def test_the_documented_skew_holds_on_exp_through_the_sdks_bearer_backend(issuer):
    """README: 30 s of clock skew on exp and nbf. The SDK's BearerAuthBackend checks
    ``expires_at`` itself, so the leeway must hold there too, not only in our verifier."""
    import time

    from mcp.server.auth.middleware.bearer_auth import BearerAuthBackend
    from starlette.requests import HTTPConnection

    backend = BearerAuthBackend(oauth(issuer))

    async def authenticated(token: str) -> bool:
        scope = {"type": "http", "headers": [(b"authorization", f"Bearer {token}".encode())]}
        return await backend.authenticate(HTTPConnection(scope)) is not None

    now = int(time.time())
    assert await authenticated(issuer.token(exp=now - 5))  # within the skew: accepted
    assert await authenticated(issuer.token(nbf=now + 5))
    assert not await authenticated(issuer.token(exp=now - 60))  # beyond it: refused
    assert not await authenticated(issuer.token(nbf=now + 60))
