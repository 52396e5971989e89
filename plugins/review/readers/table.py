"""CSV and TSV exports: the delimiter sniffed (comma, Excel's semicolon, tab), a preamble before
the header skipped (Embase), quoted multi-line cells, columns mapped by :mod:`.columns`."""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Callable, Iterator

from medlit.core.plugin import bibliography

from . import columns
from .builder import Builder, Tally
from .results import Entry, ReadError, Skipped
from .values import kind_of, pages, year_of

_HEADER_ROWS = 30
_SAMPLE = 65536
_EXCEL_TEXT = re.compile(r'^="(.*)"$', re.DOTALL)


def _rows(text: str, delimiter: str) -> Iterator[list[str]]:
    # Tab-delimited exports (RefWorks, WoS) write quotes as text unless they quote every cell.
    if delimiter == "\t" and not text.lstrip().startswith('"'):
        return csv.reader(io.StringIO(text), delimiter=delimiter, quoting=csv.QUOTE_NONE)
    return csv.reader(io.StringIO(text), delimiter=delimiter)


def find_header(text: str) -> tuple[str, int, list[str]]:
    """The delimiter, the header's row index and the header, sniffed from the file's start."""
    sample = text[:_SAMPLE]
    best: tuple[str, int, list[str]] | None = None
    widest: list[str] = []
    for delimiter in ("\t", ";", ","):
        try:
            for index, row in enumerate(_rows(sample, delimiter)):
                if index >= _HEADER_ROWS:
                    break
                cells = [c.strip().lstrip("\ufeff") for c in row]
                named = [c for c in cells if c]
                if len(named) > len(widest):
                    widest = named
                if len(named) >= 2 and any(columns.norm(c) in columns.TITLES for c in cells):
                    if best is None or len(named) > len(best[2]):
                        best = (delimiter, index, cells)
                    break
        except csv.Error:
            continue
    if best is None:
        shown = ", ".join(widest[:30]) if widest else "none"
        raise ReadError("no_title_column", f"no title column found in the table; its columns: {shown}")
    return best


_CELL_LIMIT = 16 * 1024 * 1024


def read_table(text: str, tally: Tally, notices: list[str]) -> tuple[str, Iterator[Entry | Skipped]]:
    """The table's format (``csv`` or ``tsv``, from its header, found at once) and its records one
    at a time; a preamble's notice added to ``notices``."""
    # The csv module refuses cells over 128 KB by default; a Scopus "References" cell can be
    # longer. The limit is the module's (process-wide) and is only ever raised here.
    if csv.field_size_limit() < _CELL_LIMIT:
        csv.field_size_limit(_CELL_LIMIT)
    delimiter, header_index, header = find_header(text)
    names = [columns.norm(h) for h in header]
    where: dict[str, int] = {}
    for i, name in enumerate(names):
        where.setdefault(name, i)
    if header_index:
        notices.append(f"{header_index} line(s) before the header skipped")
    return "tsv" if delimiter == "\t" else "csv", _records(text, delimiter, header_index, where, tally)


def _records(
    text: str, delimiter: str, header_index: int, where: dict[str, int], tally: Tally
) -> Iterator[Entry | Skipped]:
    read = 0
    try:
        for index, row in enumerate(_rows(text, delimiter)):
            if index <= header_index or not any(cell.strip() for cell in row):
                continue
            read += 1
            yield record(read, row, where, tally)
    except csv.Error as exc:
        raise ReadError("malformed", f"the table cannot be read past record {read}: {exc}") from None


def record(position: int, row: list[str], where: dict[str, int], tally: Tally) -> Entry | Skipped:
    def cell(name: str) -> str | None:
        i = where.get(name)
        if i is None or i >= len(row):
            return None
        value = row[i].strip()
        excel = _EXCEL_TEXT.match(value)
        if excel:
            value = excel.group(1)
        return value if value and value.lower() not in ("null", "none", "nan", "n/a") else None

    def get(field: str) -> str | None:
        for name in columns.SINGLE[field]:
            value = cell(name)
            if value:
                return value
        return None

    b = Builder(tally)
    label = get("kind")
    b.kind(kind_of(label) or ("other" if label else "article"))
    if label:
        b.many("publication_types", [label])
    b.title(get("title"))
    for name in columns.AUTHORS:
        people = bibliography.read.split_people(cell(name), given_first=name in columns.GIVEN_FIRST)
        if people:
            b.many("authors", people)
            break
    for name in columns.EDITORS:
        b.many("editors", bibliography.read.split_people(cell(name)))
    # "Source title" is Scopus' and Embase's journal; a bare "Source" is Cochrane's journal, but
    # beside a "Source title" it names the database (Scopus) or a whole citation (Embase).
    has_source_title = "sourcetitle" in where
    b.text("journal", get("journal"))
    b.text("journal_abbrev", get("journal_abbrev"))
    b.year(year_of(get("year")))
    b.text("volume", get("volume"))
    b.text("issue", get("issue"))
    b.text("pages", get("pages") or pages(get("page_start"), get("page_end")) or get("article_number"))
    b.text("abstract", get("abstract"))
    _subjects(b, cell)
    for name in columns.SERIALS:
        b.serials(cell(name))
    b.text("publisher", get("publisher"))
    b.text("place", get("place"))
    b.text("language", get("language"))
    url = get("url")
    b.text("url", url.split()[0] if url else None)
    b.doi(get("doi"))
    b.pmid(get("pmid"))
    b.pmcid(get("pmcid"))
    for name in columns.NOTES:
        b.ids_in(cell(name), doi=name not in ("notes", "note"))
    for name in ("decisions", "notes", "note"):
        b.decisions_in(cell(name))
        b.registrations_in(cell(name))
    database = get("database") or _database(cell("source"), has_source_title=has_source_title)
    return b.finish(position, get("input_id"), database)


def _subjects(b: Builder, cell: Callable[[str], str | None]) -> None:
    for name in columns.KEYWORDS:
        value = cell(name)
        if value:
            sep = "|" if "|" in value else ";" if ";" in value else ", " if name.startswith("emtree") else ";"
            b.many("keywords", [k.strip() for k in value.split(sep)])
    for name in columns.MESH:
        value = cell(name)
        if value:
            b.many("mesh", [k.strip() for k in value.split(";")])


def _database(source: str | None, *, has_source_title: bool) -> str | None:
    """A short "Source" beside a "Source title" names the database (Scopus)."""
    if has_source_title and source and len(source) <= 30 and not any(ch.isdigit() for ch in source):
        return source
    return None
