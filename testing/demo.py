"""``medlit demo``: the server over a bundled sample, with no network.

A :class:`~medlit.testing.FakeUpstream` on loopback answers NCBI's E-utilities and ID converter
from ``demo_sample/`` (its README says what is real and what is invented): ESearch evaluates
the query over the sample's records (words, phrases, ``*`` truncation, AND/OR/NOT, brackets,
the tags ``[tiab]``/``[ti]``/``[ab]``/``[mh]`` (title and abstract: the sample has no MeSH),
``[au]``, ``[ta]``/``[journal]``, ``[pt]``, ``[dp]`` years and ranges) and keeps a History
handle (``usehistory=y``) for EFetch and ESummary; EFetch writes PubMed XML for the records and
serves the sample's PMC full texts. Every other service the plugins declare points at the fake
too and is answered 404, so a tool reaching one reports that source failed, never the internet.
The server (:func:`medlit.core.cli.main` ``serve``) then runs in the foreground, over stdio by
default or ``--http``; ``medlit demo call TOOL ARGUMENTS`` runs one tool over it instead. Review
sets and exports are kept in the user's cache folder (:func:`demo_folder`), apart from real ones.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import re
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

from aiohttp import web

from .fake_upstream import FakeUpstream, Req, json_response, xml_response

SAMPLE = Path(__file__).resolve().parent / "demo_sample"
FULL_TEXTS = {"7100001": "pmc7100001_research.xml", "7100002": "pmc7100002_brief.xml"}
Record = dict[str, Any]


@cache
def records() -> tuple[Record, ...]:
    data: list[Record] = json.loads((SAMPLE / "records.json").read_text(encoding="utf-8"))["records"]
    return tuple(data)


# -- the query language -------------------------------------------------------------------------

_TOKEN = re.compile(r'\s*(?:(\()|(\))|"([^"]*)"\s*(\[[^\]]*\])?|([^\s()"]+))')
_TAG = re.compile(r"^(.*?)\[([^\]]*)\]$")
Test = Callable[[Record], bool]


def _tokens(query: str) -> list[tuple[str, str, str]]:
    """``(kind, text, tag)``: kind is ``(``, ``)``, ``op`` or ``term``."""
    out: list[tuple[str, str, str]] = []
    for m in _TOKEN.finditer(query):
        opened, closed, phrase, phrase_tag, word = m.groups()
        if opened or closed:
            out.append((opened or closed, "", ""))
        elif phrase is not None:
            out.append(("term", phrase, (phrase_tag or "")[1:-1]))
        elif word:
            if word in ("AND", "OR", "NOT"):
                out.append(("op", word, ""))
                continue
            tagged = _TAG.match(word)
            if not tagged:
                out.append(("term", word, ""))
                continue
            # PubMed reads "randomized controlled trial[pt]" as one tagged phrase
            words = [tagged.group(1)]
            while out and out[-1][0] == "term" and not out[-1][2] and " " not in out[-1][1]:
                words.insert(0, out.pop()[1])
            out.append(("term", " ".join(words), tagged.group(2)))
    return out


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


def _fields(record: Record, tag: str) -> str:
    tag = tag.lower()
    if tag in ("au", "author", "1au", "lastau"):
        return " ".join(record["authors"])
    if tag in ("ta", "journal", "so"):
        return f"{record['journal']} {record['source']}"
    if tag in ("pt", "publication type"):
        return " ".join(record["pubtypes"])
    if tag in ("ti", "title"):
        return str(record["title"])
    if tag in ("tiab", "ab", "mh", "mesh", "majr", "tw"):
        return f"{record['title']} {record['abstract']}"
    return (
        " ".join(str(record[k]) for k in ("title", "abstract", "journal", "source") if record.get(k))
        + " "
        + " ".join(record["authors"])
    )


def _years(text: str) -> tuple[int, int] | None:
    found = re.findall(r"\d{4}", text)
    if not found:
        return None
    return int(found[0]), int(found[-1])


def _term(text: str, tag: str) -> Test:
    """Whether a record matches one term: years for ``[dp]``, else its words in the tag's fields
    (a phrase as consecutive words, ``*`` as a prefix)."""
    if tag.lower() in ("dp", "pdat", "date - publication"):
        span = _years(text)
        return lambda r: span is not None and r.get("year") is not None and span[0] <= r["year"] <= span[1]
    wanted = _words(text.replace("*", " *"))
    prefix = text.endswith("*")

    def test(record: Record) -> bool:
        have = _words(_fields(record, tag))
        if not wanted:
            return False
        n = len(wanted)
        for i in range(len(have) - n + 1):
            head, last = have[i : i + n - 1], have[i + n - 1]
            if head == wanted[:-1] and (last.startswith(wanted[-1]) if prefix else last == wanted[-1]):
                return True
        return False

    return test


def _either(a: Test, b: Test) -> Test:
    return lambda r: a(r) or b(r)


def _both(a: Test, b: Test, negate: bool) -> Test:
    return (lambda r: a(r) and not b(r)) if negate else (lambda r: a(r) and b(r))


@dataclass
class _Parser:
    tokens: list[tuple[str, str, str]]
    at: int = 0

    def peek(self) -> tuple[str, str, str] | None:
        return self.tokens[self.at] if self.at < len(self.tokens) else None

    def either(self) -> Test:
        left = self.both()
        while (tok := self.peek()) and tok[:2] == ("op", "OR"):
            self.at += 1
            left = _either(left, self.both())
        return left

    def both(self) -> Test:
        left = self.one()
        while (tok := self.peek()) and tok[0] != ")" and tok[:2] != ("op", "OR"):
            negate = tok[:2] == ("op", "NOT")
            if tok[0] == "op":
                self.at += 1
            left = _both(left, self.one(), negate)
        return left

    def one(self) -> Test:
        tok = self.peek()
        if tok is None:
            return lambda r: False
        self.at += 1
        if tok[0] == "(":
            inner = self.either()
            if (close := self.peek()) and close[0] == ")":
                self.at += 1
            return inner
        if tok[0] == "term":
            return _term(tok[1], tok[2])
        return self.one()  # a stray operator or bracket: skipped


def matching(query: str) -> list[Record]:
    """The sample's records the query finds, newest first (PubMed's default order)."""
    test = _Parser(_tokens(query)).either()
    found = [r for r in records() if test(r)]
    return sorted(found, key=lambda r: (r.get("year") or 0, r["pmid"]), reverse=True)


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


def _by_pmid() -> dict[str, Record]:
    return {r["pmid"]: r for r in records()}


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


def _full_text(digits: str) -> bytes:
    text = (SAMPLE / FULL_TEXTS[digits]).read_bytes()
    return re.sub(rb"^<\?xml[^>]*\?>\s*(<!DOCTYPE[^>]*>\s*)?", b"", text)


def efetch(histories: Histories) -> Callable[[Req], web.Response]:
    def handler(req: Req) -> web.Response:
        ids = histories.ids(req)
        if req.params.get("db") == "pmc":
            found = [_full_text(i.removeprefix("PMC")) for i in ids if i.removeprefix("PMC") in FULL_TEXTS]
            return xml_response(
                b'<?xml version="1.0" ?>\n<pmc-articleset>' + b"".join(found) + b"</pmc-articleset>"
            )
        known = _by_pmid()
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
        known = _by_pmid()
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
    """The sample's routes on ``fake`` (the NCBI E-utilities and the ID converter)."""
    histories = Histories()
    fake.route("ncbi", "esearch.fcgi", esearch(histories))
    fake.route("ncbi", "efetch.fcgi", efetch(histories))
    fake.route("ncbi", "esummary.fcgi", esummary(histories))
    fake.route("idconv", "", idconv)
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
    """Every declared service pointed at ``fake``; the store and exports under ``folder``."""
    from .hosts import declared_services

    return fake.env(
        *dict.fromkeys([*declared_services(discover=True), "ncbi", "idconv"]),
        NCBI_EMAIL="demo@example.org",
        XDG_DATA_HOME=str(folder / "data"),
        MEDLIT_EXPORT_DIR=str(folder / "exports"),
        MEDLIT_SCHEMA_CACHE="off",
    )


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
    os.environ.update(demo_env(fake, demo_folder()))
    return cli(list(command))
