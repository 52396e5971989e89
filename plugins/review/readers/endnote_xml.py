"""EndNote XML (``<xml><records><record>``), read with the host's hardened lxml parser: no
entities, no DTDs, no network; a document declaring entities is refused."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from medlit.core.plugin import markup

from .builder import Builder, Tally
from .names import person
from .results import Entry, ReadError, Skipped
from .values import kind_of, year_of

_DECLARATION = re.compile(r"^\s*<\?xml[^>]*\?>")

if TYPE_CHECKING:
    from lxml import etree


def _text(el: etree._Element | None) -> str | None:
    # Values sit inside <style> children, sometimes split across several.
    if el is None:
        return None
    return " ".join("".join(el.itertext()).split()) or None


def _all(rec: etree._Element, path: str) -> list[str]:
    return [t for el in rec.iterfind(path) if (t := _text(el))]


def read_endnote_xml(text: str, tally: Tally) -> tuple[list[Entry | Skipped], list[str]]:
    # EndNote writes no DOCTYPE; one here can only be a way in for entities or external loads.
    end = text.find("<records")
    if "<!DOCTYPE" in (text[:end] if end >= 0 else text).upper():
        raise ReadError("refused", "EndNote XML with a DOCTYPE (DTD) is refused")
    # The text is decoded already: a declaration naming another encoding (UTF-16) would now lie.
    text = _DECLARATION.sub("", text, count=1)
    try:
        root = markup.parse_xml(text.encode("utf-8"))
    except markup.XMLRefused as exc:
        raise ReadError("refused", f"EndNote XML refused: {exc}") from None
    except markup.XMLSyntaxError as exc:
        raise ReadError("malformed", f"EndNote XML is not well-formed: {exc}") from None
    records = root.findall(".//record")
    return [record(i, rec, tally) for i, rec in enumerate(records, 1)], []


def record(position: int, rec: etree._Element, tally: Tally) -> Entry | Skipped:
    def one(path: str) -> str | None:
        return _text(rec.find(path))

    b = Builder(tally)
    ref_type = rec.find("ref-type")
    type_name = ref_type.get("name") if ref_type is not None else None
    kind = kind_of(type_name) or ("article" if type_name is None else "other")
    b.kind(kind)
    if type_name:
        b.many("publication_types", [type_name])
    b.title(one("titles/title"))
    b.many("authors", [n for v in _all(rec, "contributors/authors/author") if (n := person(v))])
    b.many("editors", [n for v in _all(rec, "contributors/secondary-authors/author") if (n := person(v))])
    full = one("periodical/full-title")
    secondary = one("titles/secondary-title")
    b.text("journal", full or secondary or one("alt-periodical/full-title"))
    b.text(
        "journal_abbrev", one("periodical/abbr-1") or one("titles/alt-title") if full or secondary else None
    )
    b.year(year_of(one("dates/year")) or year_of(one("dates/pub-dates/date")))
    b.text("volume", one("volume"))
    b.text("issue", one("number") or one("issue"))
    b.text("pages", one("pages"))
    b.text("abstract", one("abstract"))
    b.many("keywords", _all(rec, "keywords/keyword"))
    b.serials(one("isbn"))
    b.text("publisher", one("publisher"))
    b.text("place", one("pub-location"))
    b.text("language", one("language"))
    urls = _all(rec, "urls/related-urls/url") + _all(rec, "urls/web-urls/url")
    b.text("url", next((u for u in urls if u.startswith(("http://", "https://"))), None))
    b.doi(one("electronic-resource-num"))
    for url in urls:
        if "doi" in url:
            b.doi(url)
        b.ids_in(url, doi=False)
    accession = one("accession-num")
    database = one("remote-database-name") or one("remote-database-provider")
    if (
        accession
        and accession.isdigit()
        and any(w in (database or "").lower() for w in ("pubmed", "medline"))
    ):
        b.pmid(accession)
    for note in _all(rec, "notes") + _all(rec, "custom2") + _all(rec, "accession-num"):
        b.ids_in(note, doi=False)
    return b.finish(position, one("rec-number"), database)
