"""The test kit's fake upstream (:mod:`medlit.testing`) with our providers' defaults.

What is specific to the services our plugins call lives here, not in the kit: the seven service
names :meth:`FakeUpstream.env` points at the fake, NCBI's shared per-second limit across
E-utilities and the ID converter (10 with an ``api_key``), NCBI-flavoured fault bodies, the
``ncbi_error_200`` fault and the EInfo route answered from our fixtures (or the corpus).
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from aiohttp import web

from medlit.testing import FakeUpstream as KitUpstream
from medlit.testing import Req, json_response, xml_response

from support.corpus import corpus_root

__all__ = [
    "FIXTURES",
    "SERVICES",
    "FakeUpstream",
    "Req",
    "fixture_or_corpus",
    "json_response",
    "xml_response",
]

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
SERVICES = ("ncbi", "idconv", "europepmc", "icite", "unpaywall", "openalex", "pubtator", "crossref")
NCBI_FAMILY = ("ncbi", "idconv")


def fixture_or_corpus(fixture: str, corpus_rel: str | None = None) -> bytes:
    """Prefer the real recorded response when the corpus is present, else our own fixture."""
    root = corpus_root()
    if corpus_rel and root is not None and (root / corpus_rel).exists():
        return (root / corpus_rel).read_bytes()
    return (FIXTURES / fixture).read_bytes()


class FakeUpstream(KitUpstream):
    """``FakeUpstream(ncbi_limit=3.0, ncbi_keyed_limit=10.0)``: ``ncbi_limit=None`` lifts NCBI's limit."""

    truncated_body = b"<?xml version='1.0'?><eInfoResult><DbList>" + b"<DbName>pubmed</DbName>" * 200
    invalid_xml_body = b"<?xml version='1.0'?><eInfoResult><DbList><DbName>pubmed</DbList>"
    prolog_only_body = (
        b'<?xml version="1.0" encoding="UTF-8" ?>\n<!DOCTYPE eSearchResult PUBLIC "-//NLM//DTD esearch '
        b'20060628//EN" "https://eutils.ncbi.nlm.nih.gov/eutils/dtd/20060628/esearch.dtd">\n'
    )
    entity_bomb_body = (
        b'<?xml version="1.0"?>\n<!DOCTYPE lolz [<!ENTITY lol "lol">'
        b'<!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">'
        b'<!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]>\n'
        b"<eInfoResult><DbList><DbName>&lol3;</DbName></DbList></eInfoResult>"
    )
    html_error_body = (
        b"<!DOCTYPE html><html><head><title>Service unavailable</title></head>"
        b"<body><h1>NCBI is temporarily unavailable</h1></body></html>"
    )

    def __init__(
        self, *, ncbi_limit: float | None = 3.0, ncbi_keyed_limit: float = 10.0, port: int = 0
    ) -> None:
        self.ncbi_limit = ncbi_limit
        self.ncbi_keyed_limit = ncbi_keyed_limit
        super().__init__(
            services=SERVICES,
            limits={"ncbi": self._ncbi_rule if ncbi_limit is not None else None},
            groups={"ncbi": NCBI_FAMILY},
            port=port,
        )
        self.route("ncbi", "einfo.fcgi", _einfo)
        # Crossref knows nothing until a test installs records (tests/support/crossref_routes.py).
        self.route("crossref", "works", _crossref_empty)

    def _ncbi_rule(self, req: Req) -> float:
        # NCBI counts per IP across E-utilities and the ID converter; a key raises the limit.
        return self.ncbi_keyed_limit if req.params.get("api_key") else (self.ncbi_limit or 0)

    def fault(
        self, kind: str, service: str = "ncbi", path: str | None = None, times: int = 1, **options: Any
    ) -> None:
        """The kit's faults, NCBI by default, plus ``ncbi_error_200`` (root=, message=): an
        ``<ERROR>`` inside an E-utility result (HTTP 200)."""
        if kind == "ncbi_error_200":
            kind = "xml_error_200"
            options.setdefault("root", "eSearchResult")
            options.setdefault("message", "Invalid db name specified: nosuchdb")
        super().fault(kind, service, path, times, **options)


def _einfo(req: Req) -> web.Response:
    db = req.params.get("db")
    if not db:
        return xml_response(fixture_or_corpus("ncbi/einfo_dblist.xml", "ncbi/einfo/einfo_dblist.xml"))
    if db == "pubmed":
        return xml_response(fixture_or_corpus("ncbi/einfo_pubmed.xml", "ncbi/einfo/einfo_pubmed.xml"))
    if db == "protein":
        return xml_response(
            fixture_or_corpus("ncbi/einfo_pubmed.xml", "ncbi/einfo/einfo_protein_version2.xml")
        )
    return xml_response(
        f'<?xml version="1.0"?>\n<eInfoResult><ERROR>Can not retrieve DbInfo for db={db}</ERROR></eInfoResult>'
    )


def _crossref_empty(req: Req) -> web.Response:
    return json_response(
        {"status": "ok", "message-type": "work-list", "message": {"total-results": 0, "items": []}},
        headers={"x-rate-limit-limit": "50", "x-rate-limit-interval": "1s"},
    )


def main() -> None:
    """Run the fake standalone (for the MCP Inspector or manual checks):
    ``python tests/support/fake_upstream.py --port 8765`` prints the MEDLIT_BASE_URL_* settings."""
    import argparse

    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--fault", action="append", default=[], help="kind:service:path:times")
    args = parser.parse_args()

    async def run() -> None:
        async with FakeUpstream(ncbi_limit=None, port=args.port) as fake:
            for spec in args.fault:
                kind, service, path, times = [*spec.split(":"), "", "", "", "1"][:4]
                fake.fault(kind, service or "ncbi", path or None, int(times or 1))
            for k, v in fake.env().items():
                print(f"{k}={v}", flush=True)
            await asyncio.Event().wait()

    asyncio.run(run())


if __name__ == "__main__":
    main()
