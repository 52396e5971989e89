"""What the persistent cache may keep of NCBI's answers, and how record answers split and join.

Record-addressed endpoints (PubMed and PMC efetch, the ID converter) are cached per record, raw
as served, so a later call with other parse options, or with a few more ids, asks NCBI only for
what it has not seen. Everything else is cached per request for a time that fits how fast it
changes: searches and counts minutes, records and links a day or more.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING

from medlit.core.plugin import CacheRule, RecordRule, markup, wire

if TYPE_CHECKING:
    from lxml import etree

_XML_HEAD = b'<?xml version="1.0" encoding="UTF-8"?>\n'
# A record answer whose slice or format the caller chose is not a set of records.
_PLAIN = {"retmode": "xml", "rettype": "", "retstart": "", "retmax": ""}


def _children(body: bytes) -> list[etree._Element]:
    return [el for el in markup.parse_xml(body) if isinstance(el.tag, str)]


def _raw(el: etree._Element) -> bytes:
    from lxml import etree  # loaded with the first answer, not at start-up

    return etree.tostring(el, encoding="utf-8", with_tail=False)


def split_pubmed(body: bytes) -> list[tuple[str | None, bytes]]:
    """``PubmedArticle`` / ``PubmedBookArticle`` records by PMID (``DeleteCitation`` and anything
    else pass through unkeyed)."""
    out: list[tuple[str | None, bytes]] = []
    for el in _children(body):
        pmid = None
        if markup.localname(el) in ("PubmedArticle", "PubmedBookArticle"):
            found = el.find("MedlineCitation/PMID")
            if found is None:
                found = el.find("BookDocument/PMID")
            pmid = markup.text_of(found).lstrip("0") or None
        out.append((pmid, _raw(el)))
    return out


def join_pubmed(records: Sequence[bytes]) -> bytes:
    return _XML_HEAD + b"<PubmedArticleSet>" + b"".join(records) + b"</PubmedArticleSet>"


def split_pmc(body: bytes) -> list[tuple[str | None, bytes]]:
    """JATS ``article`` records by PMC id digits (what ``efetch db=pmc id=`` takes)."""
    out: list[tuple[str | None, bytes]] = []
    root = markup.parse_xml(body)
    elements = [root] if markup.localname(root) == "article" else _children(body)
    for el in elements:
        ident = None
        if markup.localname(el) == "article":
            for aid in el.iterfind(".//{*}article-meta/{*}article-id"):
                if aid.get("pub-id-type") in ("pmc", "pmcid", "pmcaid"):
                    ident = normalize_pmc(markup.text_of(aid)) or None
                    if ident:
                        break
        out.append((ident, _raw(el)))
    return out


def normalize_pmc(value: str) -> str:
    digits = value.strip().upper().removeprefix("PMC").split(".", 1)[0]
    return digits.lstrip("0") if digits.isdigit() else ""


def join_pmc(records: Sequence[bytes]) -> bytes:
    return _XML_HEAD + b"<pmc-articleset>" + b"".join(records) + b"</pmc-articleset>"


def split_esummary(body: bytes) -> list[tuple[str, bytes]]:
    """ESummary JSON DocSums by uid (a DocSum error object is a record too: its caller reads it).
    An answer that is not a set of DocSums (a whole-request error, the legacy ``esummaryresult``
    list) is refused: its callers then ask on their own."""
    data = json.loads(body)
    result = data.get("result") if isinstance(data, dict) else None
    if not isinstance(result, dict) or set(data) - {"header", "result"} or "error" in result:
        raise ValueError("not a DocSum answer")
    uids = result.get("uids")
    if not isinstance(uids, list):
        raise ValueError("a DocSum answer without uids")
    return [
        (str(uid), json.dumps(result[str(uid)]).encode())
        for uid in uids
        if isinstance(result.get(str(uid)), dict)
    ]


def join_esummary(records: Sequence[bytes]) -> bytes:
    docs = [json.loads(r) for r in records]
    result: dict[str, object] = {"uids": [str(d.get("uid", "")) for d in docs]}
    result.update({str(d.get("uid", "")): d for d in docs})
    return json.dumps({"header": {"type": "esummary", "version": "0.3"}, "result": result}).encode()


def split_idconv(body: bytes) -> list[tuple[tuple[str, ...], bytes]]:
    """Converter records keyed by every id they carry (older answers do not echo the requested
    id, so a record is found again by its PMID, PMCID or DOI)."""
    data = json.loads(body)
    if not isinstance(data, dict) or data.get("status") not in (None, "ok"):
        raise ValueError("not a record answer")
    out: list[tuple[tuple[str, ...], bytes]] = []
    for rec in data.get("records") or []:
        if not isinstance(rec, dict):
            continue
        ids = tuple(
            str(rec[k]).strip().lower() for k in ("requested-id", "pmid", "pmcid", "doi") if rec.get(k)
        )
        out.append((ids, json.dumps(rec).encode()))
    return out


def join_idconv(records: Sequence[bytes]) -> bytes:
    return b'{"status": "ok", "records": [' + b", ".join(records) + b"]}"


# Ids per request when concurrent callers' requests are merged: efetch takes 200 (NCBI's advice and
# peers' practice), ESummary JSON 500 (its ceiling), the ID converter 200.
EFETCH_BATCH = 200
ESUMMARY_BATCH = 500
IDCONV_BATCH = 200

EUTILS_RECORDS = (
    RecordRule("pubmed", "efetch.fcgi", "id", split_pubmed, join_pubmed, ttl=7 * wire.DAY,
               when={"db": "pubmed", **_PLAIN}, normalize=lambda i: i.strip().lstrip("0"),
               batch_size=EFETCH_BATCH),
    RecordRule("pmc", "efetch.fcgi", "id", split_pmc, join_pmc, ttl=7 * wire.DAY,
               when={"db": "pmc", **_PLAIN}, normalize=normalize_pmc, batch_size=EFETCH_BATCH),
    # DocSums are cached per request (EUTILS_CACHE); this rule only merges concurrent requests.
    RecordRule("esummary", "esummary.fcgi", "id", split_esummary, join_esummary, when={"retmode": "json"},
               normalize=lambda i: i.strip().lstrip("0") or i.strip(), content_type="application/json",
               batch_size=ESUMMARY_BATCH, cached=False),
)  # fmt: skip

EUTILS_CACHE = (
    CacheRule("einfo.fcgi", wire.DAY),
    CacheRule("esearch.fcgi", 10 * wire.MINUTE),
    CacheRule("egquery.fcgi", 10 * wire.MINUTE),
    CacheRule("espell.fcgi", wire.DAY),
    CacheRule("esummary.fcgi", wire.DAY),
    CacheRule("elink.fcgi", wire.DAY),
    CacheRule("ecitmatch.cgi", wire.DAY),
    CacheRule("efetch.fcgi", wire.DAY),
)

IDCONV_RECORDS = (
    # An article deposited later turns "not in PMC" into a PMCID: keep answers a day.
    RecordRule("idconv", "", "ids", split_idconv, join_idconv, ttl=wire.DAY, missing_ttl=0,
               normalize=lambda i: i.strip().lower(), content_type="application/json",
               batch_size=IDCONV_BATCH),
)  # fmt: skip
