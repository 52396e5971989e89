"""The files of a plugin's pages (:class:`~medlit.core.types.WebPage`): read from the plugin's
package, served as they are over HTTP (``core/webapp.py``), and as one self-contained document
for an MCP App, the ``ui://`` resource a host renders in its sandboxed frame.

An MCP App's HTML arrives as one resource: the host fetches nothing else, so the page's own
scripts and stylesheets are inlined here (the host's sandbox, not our CSP, confines it there).
Over HTTP the same entry is served with its assets as separate files, so that the CSP can say
``script-src 'self'`` and allow no inline script at all.
"""

from __future__ import annotations

import hashlib
import html
import mimetypes
import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

from .types import ResourceSpec, ToolContext, WebPage

APP_MIME = "text/html;profile=mcp-app"  # the MCP Apps extension's resource type
# the page's asset references the inliner replaces: <script src="x.js" ...></script>, <link ... href="x.css">
_SCRIPT = re.compile(r'<script\s+src="([A-Za-z0-9_.-]+)"[^>]*>\s*</script>')
_STYLE = re.compile(r'<link\s+rel="stylesheet"\s+href="([A-Za-z0-9_.-]+)"\s*/?>')
_ASSET_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,99}")


@dataclass(frozen=True)
class PageFile:
    """One file of a page: its bytes, content type and strong ETag."""

    body: bytes
    content_type: str
    etag: str


class PageFileError(Exception):
    """A declared file that is not in the plugin's package (the plugin's bug)."""


def asset_name_ok(name: str) -> bool:
    """A plain file name (no path, no leading dot): what a page may declare and a URL may ask."""
    return bool(_ASSET_NAME.fullmatch(name)) and ".." not in name


@lru_cache(maxsize=64)
def page_file(package: str, name: str) -> PageFile:
    """A page's file from its package (read once: the files ship with the installed package)."""
    if not asset_name_ok(name):
        raise PageFileError(f"{name!r} is not a plain file name")
    try:
        body = resources.files(package).joinpath(name).read_bytes()
    except (FileNotFoundError, ModuleNotFoundError, IsADirectoryError) as exc:
        raise PageFileError(f"{package}/{name} is not in the package: {exc}") from None
    kind = mimetypes.guess_type(name)[0] or "application/octet-stream"
    if kind.startswith("text/") or kind in ("application/javascript", "image/svg+xml"):
        kind += "; charset=utf-8"
    return PageFile(body, kind, '"' + hashlib.sha256(body).hexdigest()[:32] + '"')


def app_html(page: WebPage) -> str:
    """The entry as one document: its declared scripts and stylesheets inlined."""
    text = page_file(page.package, page.entry).body.decode("utf-8")

    def script(m: re.Match[str]) -> str:
        if m.group(1) not in page.assets:
            return m.group(0)
        code = page_file(page.package, m.group(1)).body.decode("utf-8")
        return "<script>" + code.replace("</script", "<\\/script") + "</script>"

    def style(m: re.Match[str]) -> str:
        if m.group(1) not in page.assets:
            return m.group(0)
        css = page_file(page.package, m.group(1)).body.decode("utf-8")
        return "<style>" + css.replace("</style", "<\\/style") + "</style>"

    return _STYLE.sub(style, _SCRIPT.sub(script, text))


def with_meta(document: str, values: dict[str, str]) -> str:
    """``document`` with ``<meta name=... content=...>`` tags for ``values`` after ``<head>``
    (how the host hands the page its CSRF token and API path without inline script)."""
    tags = "".join(
        f'<meta name="{html.escape(k)}" content="{html.escape(v)}">' for k, v in sorted(values.items())
    )
    head = re.search(r"<head[^>]*>", document, re.IGNORECASE)
    if head is None:
        return tags + document
    return document[: head.end()] + tags + document[head.end() :]


def app_resource(page: WebPage) -> ResourceSpec:
    """The page as an MCP App resource: the inlined entry, typed ``text/html;profile=mcp-app``."""

    async def read(ctx: ToolContext) -> str:
        return with_meta(app_html(page), {"medlit-mode": "app"})

    return ResourceSpec(
        uri=page.app_uri,
        name=page.app_uri.removeprefix("ui://").replace("/", "_") or "app",
        title=page.title,
        description=page.description or page.title,
        read=read,
        mime_type=APP_MIME,
        plugin=page.plugin,
    )
