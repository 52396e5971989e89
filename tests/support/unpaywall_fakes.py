"""Test material for the Unpaywall plugin: PDFs made on the spot with pypdf, pages and records
from tests/fixtures/unpaywall/, and routes that put them on the loopback fake.

Content is served under the fake's ``content`` service (``http://127.0.0.1:<port>/content/...``),
which the open-web client may reach only with ``MEDLIT_ALLOW_LOOPBACK_CONTENT=1``.
"""

from __future__ import annotations

import io
import json
import textwrap
from pathlib import Path
from typing import Any

from aiohttp import web

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "unpaywall"
CONTENT = "content"
EMAIL = "librarian@example.org"
ENV = {"UNPAYWALL_EMAIL": EMAIL, "MEDLIT_ALLOW_LOOPBACK_CONTENT": "1"}

BODY = (
    "Introduction. Triose phosphate isomerase deficiency is a rare autosomal recessive disorder. "
    "Methods. We expressed the human variants in yeast and measured activity in crude extracts. "
    "Results. The mutant enzymes keep their catalytic activity but fail to dimerize correctly. "
)


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


def make_pdf(
    pages: list[str],
    *,
    title: str | None = None,
    subject: str | None = None,
    user_password: str | None = None,
    owner_password: str | None = None,
    scanned: bool = False,
) -> bytes:
    """A PDF with one page per string (Helvetica, wrapped lines). ``scanned`` draws an image on
    each page instead of text; a ``user_password`` encrypts it so it needs that password to open,
    an ``owner_password`` alone restricts it but opens without one."""
    from pypdf import PdfWriter
    from pypdf.generic import DecodedStreamObject, DictionaryObject, NameObject, NumberObject

    writer = PdfWriter()
    font = writer._add_object(
        DictionaryObject(
            {
                NameObject("/Type"): NameObject("/Font"),
                NameObject("/Subtype"): NameObject("/Type1"),
                NameObject("/BaseFont"): NameObject("/Helvetica"),
                NameObject("/Encoding"): NameObject("/WinAnsiEncoding"),
            }
        )
    )
    for text in pages:
        page = writer.add_blank_page(612, 792)
        resources = DictionaryObject({NameObject("/Font"): DictionaryObject({NameObject("/F1"): font})})
        content = DecodedStreamObject()
        if scanned:
            image = DecodedStreamObject()
            image.set_data(b"\x80" * 64)
            image.update(
                {
                    NameObject("/Type"): NameObject("/XObject"),
                    NameObject("/Subtype"): NameObject("/Image"),
                    NameObject("/Width"): NumberObject(8),
                    NameObject("/Height"): NumberObject(8),
                    NameObject("/ColorSpace"): NameObject("/DeviceGray"),
                    NameObject("/BitsPerComponent"): NumberObject(8),
                }
            )
            resources[NameObject("/XObject")] = DictionaryObject(
                {NameObject("/Im1"): writer._add_object(image)}
            )
            content.set_data(b"q 500 0 0 700 50 50 cm /Im1 Do Q")
        else:
            lines = textwrap.wrap(text, 90) or [""]
            ops = ["BT", "/F1 10 Tf", "12 TL", "50 750 Td"]
            ops += [f"({_escape(line)}) Tj T*" for line in lines]
            ops.append("ET")
            content.set_data("\n".join(ops).encode("latin-1", "replace"))
        page[NameObject("/Resources")] = resources
        page[NameObject("/Contents")] = writer._add_object(content)
    meta = {k: v for k, v in (("/Title", title), ("/Subject", subject)) if v}
    if meta:
        writer.add_metadata(meta)
    if user_password is not None or owner_password is not None:
        writer.encrypt(user_password=user_password or "", owner_password=owner_password, algorithm="RC4-128")
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def article_pdf(title: str, doi: str | None = None, pages: int = 2) -> bytes:
    first = f"{title}. " + (f"doi:{doi}. " if doi else "") + BODY * 4
    return make_pdf([first] + [BODY * 6] * (pages - 1), title=title, subject=f"doi:{doi}" if doi else None)


def fixture(name: str) -> bytes:
    return (FIXTURES / name).read_bytes()


def page(name: str, **values: str) -> bytes:
    """A fixture page with ``{name}`` placeholders filled in."""
    text = fixture(name).decode("utf-8")
    for key, value in values.items():
        text = text.replace("{" + key + "}", value)
    return text.encode("utf-8")


def location(
    *,
    pdf: str | None = None,
    landing: str | None = None,
    host_type: str = "repository",
    version: str = "acceptedVersion",
    license: str | None = "cc-by",
    best: bool = False,
) -> dict[str, Any]:
    return {
        "url": pdf or landing,
        "url_for_pdf": pdf,
        "url_for_landing_page": landing,
        "host_type": host_type,
        "version": version,
        "license": license,
        "is_best": best,
        "evidence": "oa repository (via OAI-PMH doi match)",
    }


def record(doi: str, title: str, locations: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    """An Unpaywall v2 record, the first location the best."""
    locs = [dict(loc, is_best=i == 0) for i, loc in enumerate(locations)]
    data = {
        "doi": doi,
        "doi_url": f"https://doi.org/{doi}",
        "title": title,
        "journal_name": "Journal of Loopback Studies",
        "year": 2021,
        "is_oa": bool(locs),
        "oa_status": "green" if locs else "closed",
        "best_oa_location": locs[0] if locs else None,
        "oa_locations": locs,
        "genre": "journal-article",
    }
    data.update(extra)
    return data


def serve(fake: Any, path: str, body: bytes, content_type: str, status: int = 200, **headers: str) -> str:
    """Serve ``body`` at ``/content/<path>`` on the fake; returns its absolute URL."""

    def handler(req: Any) -> web.Response:
        return web.Response(body=body, status=status, headers={"Content-Type": content_type, **headers})

    fake.route(CONTENT, path, handler)
    return f"{fake.url(CONTENT)}/{path}"


def redirect(fake: Any, path: str, to: str, status: int = 302) -> str:
    def handler(req: Any) -> web.Response:
        return web.Response(status=status, headers={"Location": to})

    fake.route(CONTENT, path, handler)
    return f"{fake.url(CONTENT)}/{path}"


def publish(fake: Any, data: dict[str, Any]) -> None:
    """Answer Unpaywall's ``v2/<doi>`` with ``data``."""
    fake.respond("unpaywall", f"v2/{data['doi']}", json.loads(json.dumps(data)))
