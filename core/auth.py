"""Who is calling over Streamable HTTP: bearer tokens from a file, OAuth 2.1 access tokens (JWT)
from one configured issuer, and the principal a request runs for.

Two kinds of credential, either or both:

- ``MEDLIT_AUTH_TOKENS``: a file of ``principal sha256-hex-of-token`` lines (``#`` comments and
  blank lines allowed). Re-read when its modification time or size changes (a ``stat`` per
  request, nothing more); a presented token's SHA-256 is compared with every line's digest by
  ``hmac.compare_digest`` (no early exit, so timing says nothing about which line matched).
  The principal is the line's name.
- ``MEDLIT_AUTH_ISSUER`` + ``MEDLIT_AUTH_AUDIENCE`` (+ ``MEDLIT_AUTH_JWKS_URL``, else the
  ``jwks_uri`` of the issuer's RFC 8414 / OpenID metadata): the MCP authorization spec's
  resource-server role. A JWT must be signed by a key of the issuer's JWKS (asymmetric
  algorithms only), name the issuer and the audience, and be within ``exp``/``nbf``. The
  principal is ``oauth:<sub>`` (a namespace apart from the token file's names).

The SDK's pieces do the HTTP part (``BearerAuthBackend`` + ``RequireAuthMiddleware`` answer 401
with ``WWW-Authenticate``; ``create_protected_resource_routes`` serves RFC 9728 metadata); this
module is the ``TokenVerifier`` and the configuration. Over stdio, or HTTP without
authentication, every call is the local user's (:data:`LOCAL_PRINCIPAL`).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import json
import logging
import os
import re
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from mcp.server.auth.provider import AccessToken

from .settings import SettingsError, require_extra

log = logging.getLogger("medlit.auth")

LOCAL_PRINCIPAL = ""  # the local user: stdio, or HTTP bound to loopback without authentication
OAUTH_PREFIX = "oauth:"
PRINCIPAL = re.compile(r"[A-Za-z0-9][A-Za-z0-9._@+-]{0,127}")
DIGEST = re.compile(r"[0-9a-fA-F]{64}")
MAX_TOKEN_FILE = 1_000_000  # bytes
MAX_TOKEN = 8192  # characters of a presented token
JWKS_MAX_BYTES = 1_000_000
JWKS_TTL = 300.0  # seconds a fetched JWKS is used before it is fetched again
JWKS_MIN_REFETCH = 30.0  # an unknown key id refetches at most this often
JWKS_TIMEOUT = 10.0
LEEWAY = 30  # seconds of clock skew allowed on exp/nbf
ALGORITHMS = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"]


class AuthConfigError(Exception):
    """The authentication settings are refused (the server does not start)."""


class MedlitAccessToken(AccessToken):
    """The SDK's access token plus the principal the server files work under."""

    principal: str


# -- the token file -----------------------------------------------------------------------------


def parse_token_file(text: str, source: str = "MEDLIT_AUTH_TOKENS") -> list[tuple[str, bytes]]:
    """``(principal, sha256 digest)`` per line; raises :class:`AuthConfigError` naming the line."""
    entries: list[tuple[str, bytes]] = []
    seen: dict[bytes, int] = {}
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        parts = line.split()
        if len(parts) != 2:
            raise AuthConfigError(
                f"{source} line {number}: expected 'principal sha256-hex-of-token', got {len(parts)} field(s)"
            )
        principal, digest = parts
        if not PRINCIPAL.fullmatch(principal):
            raise AuthConfigError(
                f"{source} line {number}: principal {principal[:40]!r} is not 1-128 letters, digits or . _ @ + -"
            )
        if not DIGEST.fullmatch(digest):
            raise AuthConfigError(
                f"{source} line {number}: {digest[:16]!r}... is not a SHA-256 hex digest (64 hex digits; "
                'make one with: printf %s "$TOKEN" | sha256sum)'
            )
        value = bytes.fromhex(digest)
        if value in seen:
            raise AuthConfigError(f"{source} line {number}: the same token digest as line {seen[value]}")
        seen[value] = number
        entries.append((principal, value))
    return entries


def digest_of(token: str) -> bytes:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).digest()


class TokenFile:
    """The token file, re-read when its mtime or size changes. A file that turns malformed after
    start-up is logged and the entries read before are kept (a half-written edit locks no one
    out); a file removed after start-up lets no one in until it is back."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._stamp: tuple[int, int] | None = None
        self._entries: list[tuple[str, bytes]] = []
        self.reload(strict=True)

    def _read(self) -> tuple[tuple[int, int], list[tuple[str, bytes]]]:
        st = self.path.stat()
        if st.st_size > MAX_TOKEN_FILE:
            raise AuthConfigError(f"MEDLIT_AUTH_TOKENS ({self.path}) is over {MAX_TOKEN_FILE:,} bytes")
        text = self.path.read_text("utf-8")
        return (st.st_mtime_ns, st.st_size), parse_token_file(text, f"MEDLIT_AUTH_TOKENS ({self.path})")

    def reload(self, strict: bool = False) -> None:
        try:
            self._stamp, self._entries = self._read()
        except (OSError, UnicodeDecodeError, AuthConfigError) as exc:
            if strict:
                raise AuthConfigError(
                    str(exc)
                    if isinstance(exc, AuthConfigError)
                    else f"MEDLIT_AUTH_TOKENS: cannot read {self.path}: {exc}"
                ) from None
            log.error("token file not re-read, keeping the previous %d entries: %s", len(self._entries), exc)
            with contextlib.suppress(OSError):
                st = self.path.stat()
                self._stamp = (st.st_mtime_ns, st.st_size)  # don't retry until it changes again

    def _fresh(self) -> None:
        try:
            st = self.path.stat()
        except OSError:
            if self._entries:
                log.error("token file %s is gone: no token is accepted until it is back", self.path)
            self._entries, self._stamp = [], None
            return
        if (st.st_mtime_ns, st.st_size) != self._stamp:
            self.reload()

    @property
    def principals(self) -> list[str]:
        return [p for p, _ in self._entries]

    def principal_for(self, token: str) -> str | None:
        """The principal whose digest matches, comparing against every line (constant time)."""
        self._fresh()
        presented = digest_of(token)
        found: str | None = None
        for principal, digest in self._entries:
            if hmac.compare_digest(presented, digest) and found is None:
                found = principal
        return found


# -- OAuth access tokens (JWT) ---------------------------------------------------------------------


def metadata_urls(issuer: str) -> list[str]:
    """Where an issuer publishes its metadata: RFC 8414 (path after the well-known part), then
    OpenID Connect Discovery (appended)."""
    parts = urlsplit(issuer)
    path = parts.path.rstrip("/")
    base = f"{parts.scheme}://{parts.netloc}"
    return [
        f"{base}/.well-known/oauth-authorization-server{path}",
        f"{base}{path}/.well-known/openid-configuration",
    ]


async def fetch_json(url: str) -> Any:
    """GET a small JSON document (bounded size and time)."""
    import aiohttp

    timeout = aiohttp.ClientTimeout(total=JWKS_TIMEOUT)
    async with aiohttp.ClientSession(timeout=timeout) as session:
        async with session.get(url, headers={"Accept": "application/json"}, allow_redirects=False) as resp:
            if resp.status != 200:
                raise ValueError(f"{url} answered HTTP {resp.status}")
            body = await resp.content.read(JWKS_MAX_BYTES + 1)
            if len(body) > JWKS_MAX_BYTES:
                raise ValueError(f"{url} answered over {JWKS_MAX_BYTES:,} bytes")
            return json.loads(body)


class JwtVerifier:
    """Checks JWT access tokens against the issuer's JWKS (fetched lazily, cached ``JWKS_TTL``,
    refetched at most every ``JWKS_MIN_REFETCH`` seconds for an unknown key id)."""

    def __init__(self, issuer: str, audience: str, jwks_url: str | None = None) -> None:
        self.issuer, self.audience, self.jwks_url = issuer, audience, jwks_url
        self._keys: dict[str, Any] = {}
        self._fetched = float("-inf")
        self._lock = asyncio.Lock()

    async def _jwks_url(self) -> str:
        if self.jwks_url:
            return self.jwks_url
        errors = []
        for url in metadata_urls(self.issuer):
            try:
                meta = await fetch_json(url)
            except Exception as exc:
                errors.append(str(exc))
                continue
            if isinstance(meta, dict) and isinstance(meta.get("jwks_uri"), str):
                self.jwks_url = meta["jwks_uri"]
                return self.jwks_url
        raise ValueError("no jwks_uri in the issuer's metadata: " + "; ".join(errors))

    async def _refresh(self, force: bool) -> None:
        import jwt

        async with self._lock:
            age = time.monotonic() - self._fetched
            if age < (JWKS_MIN_REFETCH if force else JWKS_TTL):
                return
            try:
                data = await fetch_json(await self._jwks_url())
                keys: dict[str, Any] = {}
                for jwk in jwt.PyJWKSet.from_dict(data).keys:
                    keys[jwk.key_id or ""] = jwk
                self._keys = keys
            except Exception as exc:
                log.warning("JWKS of %s not fetched (keeping %d keys): %s", self.issuer, len(self._keys), exc)
            self._fetched = time.monotonic()

    async def _key(self, kid: str) -> Any:
        await self._refresh(force=False)
        key = self._keys.get(kid) or (self._keys.get("") if not kid else None)
        if key is None and not kid and len(self._keys) == 1:
            key = next(iter(self._keys.values()))
        if key is None:
            await self._refresh(force=True)
            key = self._keys.get(kid)
        return key

    async def principal_for(self, token: str) -> tuple[str, dict[str, Any]] | None:
        import jwt

        try:
            header = jwt.get_unverified_header(token)
        except jwt.PyJWTError:
            return None
        if header.get("alg") not in ALGORITHMS:
            return None
        key = await self._key(str(header.get("kid") or ""))
        if key is None:
            return None
        try:
            claims = jwt.decode(
                token,
                key,
                algorithms=ALGORITHMS,
                audience=self.audience,
                issuer=self.issuer,
                leeway=LEEWAY,
                options={"require": ["exp", "sub", "iss", "aud"]},
            )
        except jwt.PyJWTError as exc:
            log.info("access token refused: %s", exc)
            return None
        sub = claims.get("sub")
        if not isinstance(sub, str) or not sub or len(sub) > 256:
            return None
        return OAUTH_PREFIX + sub, claims


# -- the verifier the SDK calls ---------------------------------------------------------------------


@dataclass
class AuthConfig:
    """The authentication the HTTP transport requires (none when nothing is configured)."""

    tokens: TokenFile | None = None
    jwt: JwtVerifier | None = None
    resource_url: str | None = None  # the public URL of the MCP endpoint (OAuth only)

    @property
    def configured(self) -> bool:
        return self.tokens is not None or self.jwt is not None

    async def verify_token(self, token: str) -> AccessToken | None:
        """The SDK's ``TokenVerifier``: the token file first, then the issuer's JWTs."""
        if not token or len(token) > MAX_TOKEN:
            return None
        try:
            return await self._verify(token)
        except Exception:  # a verifier that raises would answer 500: a bad token is a 401
            log.exception("token verification failed")
            return None

    async def _verify(self, token: str) -> AccessToken | None:
        if self.tokens is not None:
            principal = self.tokens.principal_for(token)
            if principal is not None:
                return MedlitAccessToken(token="", client_id=principal, scopes=[], principal=principal)
        if self.jwt is not None and token.count(".") == 2:
            found = await self.jwt.principal_for(token)
            if found is not None:
                principal, claims = found
                scope = claims.get("scope")
                exp = claims.get("exp")
                return MedlitAccessToken(
                    token="",
                    client_id=str(claims.get("client_id") or claims.get("azp") or principal),
                    scopes=scope.split() if isinstance(scope, str) else [],
                    # The SDK's bearer backend refuses a token past expires_at with no leeway
                    # of its own: the skew we allowed on exp above is added here, so a token 5 s
                    # past exp (accepted by us) is not refused by it after all.
                    expires_at=int(exp) + LEEWAY if isinstance(exp, int | float) else None,
                    subject=str(claims["sub"]),
                    claims={"iss": claims.get("iss")},
                    principal=principal,
                )
        return None


def load_auth(env: Mapping[str, str], *, default_resource: str | None = None) -> AuthConfig:
    """The authentication ``env`` configures; raises :class:`AuthConfigError` on a refused one."""
    tokens_path = (env.get("MEDLIT_AUTH_TOKENS") or "").strip()
    issuer = (env.get("MEDLIT_AUTH_ISSUER") or "").strip()
    audience = (env.get("MEDLIT_AUTH_AUDIENCE") or "").strip()
    jwks_url = (env.get("MEDLIT_AUTH_JWKS_URL") or "").strip() or None
    resource = (env.get("MEDLIT_AUTH_RESOURCE_URL") or "").strip() or None
    config = AuthConfig()
    if tokens_path:
        config.tokens = TokenFile(Path(os.path.expanduser(tokens_path)))
    if issuer or audience or jwks_url:
        if not issuer or not audience:
            raise AuthConfigError(
                "MEDLIT_AUTH_ISSUER and MEDLIT_AUTH_AUDIENCE go together (the issuer whose tokens are "
                "accepted and the audience they must name)"
            )
        for name, url in (("MEDLIT_AUTH_ISSUER", issuer), ("MEDLIT_AUTH_JWKS_URL", jwks_url or "https://x")):
            if urlsplit(url).scheme not in ("https", "http") or not urlsplit(url).netloc:
                raise AuthConfigError(f"{name}={url!r} is not an http(s) URL")
        try:
            require_extra("oauth", "MEDLIT_AUTH_ISSUER asks for OAuth access tokens")
        except SettingsError as exc:
            raise AuthConfigError(str(exc)) from None
        config.jwt = JwtVerifier(issuer, audience, jwks_url)
        config.resource_url = resource or (audience if audience.startswith(("https://", "http://")) else None)
        config.resource_url = config.resource_url or default_resource
    return config


def principal_of(request: Any) -> str:
    """The principal an MCP request runs for: the authenticated one, else the local user."""
    scope = getattr(request, "scope", None)
    user = scope.get("user") if isinstance(scope, dict) else None
    token = getattr(user, "access_token", None)
    if isinstance(token, MedlitAccessToken):
        return token.principal
    return LOCAL_PRINCIPAL
