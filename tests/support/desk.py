"""The reviewer's desk under test: a ``medlit serve --transport http`` subprocess with two
principals in a token file, a browser-like HTTP session signed in as one of them, and an RIS file
whose titles are hostile markup (``<script>``, ``<img onerror>``, ``javascript:`` links)."""

from __future__ import annotations

import hashlib
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx2

from support.environments import server_env
from support.fake_upstream import FakeUpstream
from support.http_serving import http_serving

TOKENS = {"alice": "alice-token-0123456789", "bob": "bob-token-9876543210"}
HOSTILE_TITLES = (
    "<script>window.__pwned = 1</script>Asthma in children",
    '<img src=x onerror="window.__pwned = 2">Wheeze and inhaled steroids',
    '<a href="javascript:window.__pwned=3">Click</a> bronchiolitis outcomes',
)


def hostile_ris() -> str:
    """Three RIS records whose titles and abstracts carry markup a careless page would run."""
    out = []
    for i, title in enumerate(HOSTILE_TITLES, 1):
        out += [
            "TY  - JOUR",
            f"TI  - {title}",
            f"AB  - {title} (abstract {i}) <b onmouseover=alert(1)>bold</b>",
            f"AU  - Tester, A{i}",
            "JO  - Journal of Hostile Strings",
            f"PY  - 202{i}",
            f"DO  - 10.9999/hostile.{i}",
            "ER  - ",
            "",
        ]
    return "\n".join(out)


def token_file(path: Path) -> Path:
    lines = [f"{p} {hashlib.sha256(t.encode()).hexdigest()}" for p, t in TOKENS.items()]
    path.write_text("\n".join(lines) + "\n")
    return path


@asynccontextmanager
async def desk_server(fake: FakeUpstream, tmp: Path, **extra: str) -> AsyncIterator[str]:
    """The server's base URL while it runs (review store and exports under ``tmp``)."""
    env = server_env(
        fake,
        MEDLIT_STORE=f"sqlite:///{tmp / 'review.db'}",
        MEDLIT_EXPORT_DIR=str(tmp / "exports"),
        MEDLIT_AUTH_TOKENS=str(token_file(tmp / "tokens")),
        **extra,
    )
    async with http_serving(env) as base:
        yield base


class DeskSession:
    """A browser's session with the desk: signed in by the form, the CSRF token read from the page."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.http = httpx2.AsyncClient(base_url=base, timeout=60, follow_redirects=False)
        self.csrf = ""

    async def sign_in(self, principal: str) -> httpx2.Response:
        signed = await self.http.post(
            "/desk/signin", data={"token": TOKENS[principal]}, headers={"Origin": self.base}
        )
        page = await self.http.get("/desk/")
        found = re.search(r'name="medlit-csrf" content="([0-9a-f]+)"', page.text)
        self.csrf = found.group(1) if found else ""
        return signed

    async def call(self, tool: str, arguments: dict[str, Any], *, csrf: bool = True) -> httpx2.Response:
        headers = {"X-CSRF-Token": self.csrf} if csrf else {}
        return await self.http.post(
            "/desk/api/call", json={"tool": tool, "arguments": arguments}, headers=headers
        )

    async def aclose(self) -> None:
        await self.http.aclose()
