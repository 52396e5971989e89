"""EndNote XML: the shared reader (``bibliography.read_endnote_xml``, hardened: no entities, no
DTDs, no network) gives the ``<record>`` elements; this module makes each a review record."""

from __future__ import annotations

from typing import TYPE_CHECKING

from medlit.core.plugin import bibliography

from .builder import Builder, Tally
from .results import Entry, ReadError, Skipped
from .values import kind_of, year_of

if TYPE_CHECKING:
    from lxml import etree

_text = bibliography.read.text_of
_all = bibliography.read.texts_of


def read_endnote_xml(text: str, tally: Tally) -> tuple[list[Entry | Skipped], list[str]]:
    try:
        records = bibliography.read.endnote_xml(text)
    except bibliography.read.Unreadable as exc:
        raise ReadError(exc.reason, exc.message) from None
    return [record(i, rec, tally) for i, rec in enumerate(records, 1)], []


def record(position: int, rec: etree._Element, tally: Tally) -> Entry | Skipped:
    def one(path: str) -> str | None:
        return _text(rec.find(path))

    b = Builder(tally)
    ref_type = rec.find("ref-type")
    type_name = ref_type.get("name") if ref_type is not None else None
    b.kind(kind_of(type_name) or ("article" if type_name is None else "other"))
    if type_name:
        b.many("publication_types", [type_name])
    b.title(one("titles/title"))
    b.many(
        "authors", [n for v in _all(rec, "contributors/authors/author") if (n := bibliography.read.person(v))]
    )
    editors = _all(rec, "contributors/secondary-authors/author")
    b.many("editors", [n for v in editors if (n := bibliography.read.person(v))])
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
    database = one("remote-database-name") or one("remote-database-provider")
    _ids(b, rec, database)
    return b.finish(position, one("rec-number"), database)


def _ids(b: Builder, rec: etree._Element, database: str | None) -> None:
    urls = _all(rec, "urls/related-urls/url") + _all(rec, "urls/web-urls/url")
    b.text("url", next((u for u in urls if u.startswith(("http://", "https://"))), None))
    b.doi(_text(rec.find("electronic-resource-num")))
    for url in urls:
        if "doi" in url:
            b.doi(url)
        b.ids_in(url, doi=False)
    accession = _text(rec.find("accession-num"))
    if (
        accession
        and accession.isdigit()
        and any(w in (database or "").lower() for w in ("pubmed", "medline"))
    ):
        b.pmid(accession)
    for note in _all(rec, "notes"):
        b.decisions_in(note)
        b.registrations_in(note)
    for note in _all(rec, "notes") + _all(rec, "custom2") + _all(rec, "accession-num"):
        b.ids_in(note, doi=False)
