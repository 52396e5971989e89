"""``medlit demo``: the server over a bundled sample, with no network.

A :class:`~medlit.testing.FakeUpstream` on loopback answers from ``demo_sample/`` (its README says
where every record was recorded): NCBI's ESearch evaluates the query over the sample's records
(:func:`medlit.testing.demo_records.matching`) and keeps a History handle (``usehistory=y``) for
EFetch and ESummary; EFetch writes PubMed XML for the records and serves the sample's PMC full
texts; the ID converter maps PMIDs, PMCIDs and DOIs; Europe PMC, iCite and ELink answer from the
same records (:mod:`medlit.testing.demo_services`). Every other service the plugins declare points
at the fake too and is answered 404, so a tool reaching one reports that source failed, never the
internet. The server (:func:`medlit.core.cli.main` ``serve``) then runs in the foreground, over
stdio by default or ``--http``; ``medlit demo call TOOL ARGUMENTS`` runs one tool over it instead.
Review sets and exports are kept in the user's cache folder (:func:`demo_folder`), apart from real
ones, and the sample's OpenAlex export is copied there for ``review_import`` by ``path``.
"""

from __future__ import annotations

import asyncio
import itertools
import os
import shutil
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

from aiohttp import web

from . import demo_services
from .demo_records import FULL_TEXTS, SAMPLE, Record, by_pmid, full_text, matching, records
from .fake_upstream import FakeUpstream, Req, json_response, xml_response

__all__ = ["demo_env", "demo_folder", "install", "main", "matching", "records"]

EXPORT = "openalex_export.ris"  # the sample's export, for review_import

# -- the upstream -------------------------------------------------------------------------------


@dataclass
class Histories:
    """ESearch's History server: WebEnv -> the PMIDs it found."""

    found: dict[str, list[str]] = field(default_factory=dict)
    counter: Iterator[int] = field(default_factory=lambda: itertools.count(1))

    def keep(self, pmids: list[str]) -> str:
        webenv = f"MCID_DEMO_{next(self.counter)}"
        self.found[webenv] = pmids
        return webenv

    def ids(self, req: Req) -> list[str]:
        """The request's ids, or the page of its History handle."""
        webenv = req.params.get("WebEnv") or req.params.get("webenv")
        if webenv:
            pmids = self.found.get(webenv, [])
            start = int(req.params.get("retstart", "0") or 0)
            size = int(req.params.get("retmax", "20") or 20)
            return pmids[start : start + size]
        return [i for raw in req.repeated("id") for i in raw.split(",") if i.strip()]


def esearch(histories: Histories) -> Callable[[Req], web.Response]:
    def handler(req: Req) -> web.Response:
        term = req.params.get("term", "")
        pmids = [r["pmid"] for r in matching(term)] if req.params.get("db", "pubmed") == "pubmed" else []
        start = int(req.params.get("retstart", "0") or 0)
        size = int(req.params.get("retmax", "20") or 20)
        page = pmids[start : start + size]
        result: dict[str, Any] = {
            "count": str(len(pmids)),
            "retmax": str(len(page)),
            "retstart": str(start),
            "idlist": page,
            "translationset": [],
            "querytranslation": term,
        }
        if req.params.get("usehistory") == "y":
            result.update(webenv=histories.keep(pmids), querykey="1")
        return json_response({"header": {"type": "esearch", "version": "0.3"}, "esearchresult": result})

    return handler


def pubmed_xml(r: Record) -> str:
    authors = "".join(
        f'<Author ValidYN="Y"><LastName>{escape(name.rsplit(" ", 1)[0])}</LastName>'
        f"<Initials>{escape(name.rsplit(' ', 1)[-1])}</Initials></Author>"
        for name in r["authors"]
    )
    ids = f'<ArticleId IdType="pubmed">{r["pmid"]}</ArticleId>'
    ids += f'<ArticleId IdType="doi">{escape(r["doi"])}</ArticleId>' if r.get("doi") else ""
    ids += f'<ArticleId IdType="pmc">{r["pmcid"]}</ArticleId>' if r.get("pmcid") else ""
    types = "".join(f"<PublicationType>{escape(t)}</PublicationType>" for t in r["pubtypes"])
    abstract = (
        f"<Abstract><AbstractText>{escape(r['abstract'])}</AbstractText></Abstract>" if r["abstract"] else ""
    )
    doi = f'<ELocationID EIdType="doi" ValidYN="Y">{escape(r["doi"])}</ELocationID>' if r.get("doi") else ""
    return (
        '<PubmedArticle><MedlineCitation Status="MEDLINE" Owner="NLM">'
        f'<PMID Version="1">{r["pmid"]}</PMID><Article PubModel="Print"><Journal>'
        f'<JournalIssue CitedMedium="Print"><Volume>{escape(r["volume"])}</Volume><Issue>{escape(r["issue"])}</Issue>'
        f"<PubDate><Year>{r.get('year') or ''}</Year></PubDate></JournalIssue>"
        f"<Title>{escape(r['journal'])}</Title><ISOAbbreviation>{escape(r['source'])}</ISOAbbreviation></Journal>"
        f"<ArticleTitle>{escape(r['title'])}</ArticleTitle>"
        f"<Pagination><MedlinePgn>{escape(r['pages'])}</MedlinePgn></Pagination>{doi}{abstract}"
        f'<AuthorList CompleteYN="Y">{authors}</AuthorList><Language>eng</Language>'
        f"<PublicationTypeList>{types}</PublicationTypeList></Article></MedlineCitation>"
        f"<PubmedData><ArticleIdList>{ids}</ArticleIdList></PubmedData></PubmedArticle>"
    )


def efetch(histories: Histories) -> Callable[[Req], web.Response]:
    def handler(req: Req) -> web.Response:
        ids = histories.ids(req)
        if req.params.get("db") == "pmc":
            found = [full_text(i.removeprefix("PMC")) for i in ids if i.removeprefix("PMC") in FULL_TEXTS]
            return xml_response(
                b'<?xml version="1.0" ?>\n<pmc-articleset>' + b"".join(found) + b"</pmc-articleset>"
            )
        known = by_pmid()
        body = "".join(pubmed_xml(known[i]) for i in ids if i in known)
        return xml_response(
            '<?xml version="1.0" encoding="UTF-8"?>\n<PubmedArticleSet>' + body + "</PubmedArticleSet>"
        )

    return handler


def _summary(r: Record) -> dict[str, Any]:
    ids = [{"idtype": "pubmed", "value": r["pmid"]}]
    ids += [{"idtype": "doi", "value": r["doi"]}] if r.get("doi") else []
    ids += [{"idtype": "pmc", "value": r["pmcid"]}] if r.get("pmcid") else []
    return {
        "uid": r["pmid"],
        "pubdate": str(r.get("year") or ""),
        "source": r["source"],
        "fulljournalname": r["journal"],
        "title": r["title"],
        "authors": [{"name": a, "authtype": "Author"} for a in r["authors"]],
        "volume": r["volume"],
        "issue": r["issue"],
        "pages": r["pages"],
        "pubtype": r["pubtypes"],
        "articleids": ids,
        "elocationid": f"doi: {r['doi']}" if r.get("doi") else "",
    }


def esummary(histories: Histories) -> Callable[[Req], web.Response]:
    def handler(req: Req) -> web.Response:
        known = by_pmid()
        ids = histories.ids(req)
        result: dict[str, Any] = {"uids": [i for i in ids if i in known]}
        result.update({i: _summary(known[i]) for i in ids if i in known})
        return json_response({"header": {"type": "esummary", "version": "0.3"}, "result": result})

    return handler


def idconv(req: Req) -> web.Response:
    """The PMC ID converter over the sample: PMIDs, PMCIDs and DOIs."""
    out: list[dict[str, Any]] = []
    for raw in req.params.get("ids", "").split(","):
        key = raw.strip().lower()
        hit = next(
            (
                r
                for r in records()
                if key in {r["pmid"], (r.get("pmcid") or "").lower(), (r.get("doi") or "").lower()}
            ),
            None,
        )
        if hit is None or not hit.get("pmcid"):
            out.append({"requested-id": raw, "status": "error", "errmsg": "invalid article id"})
            continue
        out.append({"requested-id": raw, "pmid": hit["pmid"], "pmcid": hit["pmcid"], "doi": hit.get("doi")})
    return json_response({"status": "ok", "records": out})


def install(fake: FakeUpstream) -> FakeUpstream:
    """The sample's routes on ``fake``: the NCBI E-utilities and the ID converter, then Europe PMC,
    iCite and ELink (:func:`medlit.testing.demo_services.install`)."""
    histories = Histories()
    fake.route("ncbi", "esearch.fcgi", esearch(histories))
    fake.route("ncbi", "efetch.fcgi", efetch(histories))
    fake.route("ncbi", "esummary.fcgi", esummary(histories))
    fake.route("idconv", "", idconv)
    demo_services.install(fake)
    return fake


# -- the command --------------------------------------------------------------------------------


def _start_in_thread(fake: FakeUpstream) -> None:
    """Run the fake on its own event loop in a daemon thread (the server owns the main one)."""
    ready = threading.Event()

    def run() -> None:
        loop = asyncio.new_event_loop()
        loop.run_until_complete(fake.start())
        ready.set()
        loop.run_forever()

    threading.Thread(target=run, name="medlit-demo-upstream", daemon=True).start()
    ready.wait(10)


def demo_env(fake: FakeUpstream, folder: Path) -> dict[str, str]:
    """Every declared service pointed at ``fake``; the store and exports under ``folder``, and
    ``folder/imports`` (where :func:`place_export` puts the sample's export) open to imports."""
    from .hosts import declared_services

    return fake.env(
        *dict.fromkeys([*declared_services(discover=True), "ncbi", "idconv"]),
        NCBI_EMAIL="demo@example.org",
        XDG_DATA_HOME=str(folder / "data"),
        MEDLIT_EXPORT_DIR=str(folder / "exports"),
        MEDLIT_IMPORT_DIRS=str(folder / "imports"),
        MEDLIT_SCHEMA_CACHE="off",
    )


def place_export(folder: Path) -> Path:
    """The sample's OpenAlex export copied to ``folder/imports`` (a folder imports may read)."""
    target = folder / "imports" / EXPORT
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(SAMPLE / EXPORT, target)
    return target


def demo_folder() -> Path:
    """Where the demo keeps its review sets and exports: the user's cache folder, so that one
    ``medlit demo call`` sees the sets an earlier one made (delete it to start again)."""
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("medlit-mcp")) / "demo"


def main(command: Sequence[str] = ("serve",)) -> int:
    """Start the fake upstream with the sample, then run ``medlit <command>`` over it: ``serve``
    (with its arguments) or ``call TOOL ARGUMENTS``."""
    from medlit.core.cli import main as cli

    fake = install(FakeUpstream(services=("ncbi", "idconv")))
    _start_in_thread(fake)
    folder = demo_folder()
    os.environ.update(demo_env(fake, folder))
    export = place_export(folder)
    if tuple(command[:1]) != ("call",):  # stdout carries the protocol: the note goes to stderr
        print(f"medlit demo: an export to try review_import with, by path: {export}", file=sys.stderr)
    return cli(list(command))
