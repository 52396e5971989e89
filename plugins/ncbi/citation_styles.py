# Hand-written on purpose: citeproc-py (0.11) bundles only a Harvard CSL style, so APA/MLA/Vancouver
# would mean vendoring CSL files plus locales, and CSL knows nothing of PubMed notices or Bookshelf.
"""Reference strings for PubMed records: APA 7, MLA 9, Vancouver (NLM/ICMJE), BibTeX and RIS.

Output is plain text (no italics). Titles are kept as PubMed gives them (sentence case is not
re-cased); journal names are title-cased for APA/MLA. Vancouver follows PubMed's own "NLM"
citation (MEDLINE abbreviations, ``doi: 10.x``, PMID/PMCID, "Retraction in: ..." notes);
APA and MLA print DOIs as https://doi.org/ links and end with a bracketed correction note.
BibTeX and RIS are written by the shared writers (``medlit.core.plugin.bibliography``) from a
neutral record, the same ones the review exports use.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from typing import Any, Literal, get_args

from medlit.core.plugin import bibliography

from .parse.pubmed_records import Author, Book, Notice, PartialDate, PubMedArticle, month_number

__all__ = ["STYLES", "STYLE_ALIASES", "CitationStyle", "cite_key", "format_citation"]

CitationStyle = Literal["apa", "mla", "vancouver", "bibtex", "ris"]
STYLES: tuple[str, ...] = get_args(CitationStyle)
STYLE_ALIASES = {"nlm": "vancouver", "apa7": "apa", "mla9": "mla"}  # other names readers use

_MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
_MLA_MONTHS = ["Jan.", "Feb.", "Mar.", "Apr.", "May", "June", "July", "Aug.", "Sept.", "Oct.", "Nov.", "Dec."]
_SMALL_WORDS = set(
    "a an and as at but by en for from if in into nor of on or per the to up via vs with".split()
)
_BOOKSHELF = "https://www.ncbi.nlm.nih.gov/books/"


# ---------------------------------------------------------------------------------------------
# Shared helpers
# ---------------------------------------------------------------------------------------------


def _year(a: PubMedArticle) -> int | None:
    """The year a reader cites: the issue year, or a Bookshelf chapter's last update."""
    dates: list[PartialDate | None] = [a.pubDate, a.articleDate]
    if a.recordType == "book-chapter":
        dates = [a.dateRevised, a.contributionDate, *dates]
    return next((d.year for d in dates if d is not None and d.year), None)


def _end(text: str) -> str:
    text = text.strip()
    return text if not text or text[-1] in ".?!" else text + "."


def _strip_period(text: str | None) -> str:
    return (text or "").strip().rstrip(".").strip()


def _doi_url(doi: str) -> str:
    return f"https://doi.org/{doi}"


def _is_article_number(eloc: str | None) -> bool:
    # ELocationID holds either a pii-style article number (e0221829) or a DOI.
    return bool(eloc and not eloc.startswith("10."))


def _full_pages(a: PubMedArticle, dash: str = "–") -> str | None:
    j = a.journal
    if j is None or not (j.startPage or j.pages):
        return None
    if j.startPage and j.endPage and j.endPage != j.startPage:
        return f"{j.startPage}{dash}{j.endPage}"
    return j.startPage or j.pages


def _bookshelf_url(a: PubMedArticle) -> str | None:
    return f"{_BOOKSHELF}{a.bookAccession}/" if a.bookAccession else None


def _link(a: PubMedArticle) -> str | None:
    return _doi_url(a.doi) if a.doi else _bookshelf_url(a)


def _title_case(text: str) -> str:
    """Capitalise all-lowercase words (journal names); acronyms and mixed case stay."""
    words = text.split(" ")
    out = []
    for i, word in enumerate(words):
        if word.isalpha() and word.islower() and (i == 0 or word not in _SMALL_WORDS):
            word = word[0].upper() + word[1:]
        elif "-" in word and word.replace("-", "").isalpha() and word.islower():
            word = "-".join(p[:1].upper() + p[1:] for p in word.split("-"))
        out.append(word)
    return " ".join(out)


def _journal_name(a: PubMedArticle) -> str:
    title = (a.journal.title if a.journal else None) or ""
    # NLM adds a place qualifier, "Journal of medical imaging (Bellingham, Wash.)": not the name.
    title = re.sub(r"\s*\([^()]*\)\s*$", "", title).strip() or title
    return _title_case(title.rstrip("."))


def _journal_abbrev(a: PubMedArticle) -> str:
    j = a.journal
    if j is None:
        return ""
    if j.medlineTa:
        return j.medlineTa
    return (j.isoAbbreviation or "").replace(".", "") or (j.title or "")


def _people_split(authors: list[Author]) -> list[Author]:
    return [p for p in authors if p.lastName or p.collectiveName]


def _initial_letters(p: Author) -> list[str]:
    """Initials as a list, hyphenated forenames kept together (Jean-Pierre -> J.-P.)."""
    if p.foreName and ("-" in p.foreName or not p.initials):  # Jean-Pierre: J.-P.
        return list(bibliography.initials(p.foreName))
    initials = (p.initials or "").replace(".", "").replace(" ", "")
    if initials.isalpha() and initials.isupper():
        return list(initials)
    # Junk Initials ("Initial" placeholders): fall back to the forename's capitals.
    return [t[0] for t in (p.foreName or "").split() if t[:1].isalpha()]


def _forename_mla(p: Author) -> str:
    """Forename as printed, with periods after bare initials ("Marni J" -> "Marni J.")."""
    if not p.foreName:
        return " ".join(f"{i}." for i in _initial_letters(p))
    tokens: list[str] = []
    for token in p.foreName.split():
        if token.isupper() and len(token) <= 3 and token.isalpha():
            tokens.extend(f"{ch}." for ch in token)
        else:
            tokens.append(token)
    return " ".join(tokens)


def _latest_retraction(a: PubMedArticle) -> Notice | None:
    return next((n for n in a.notices if n.type == "RetractionIn"), None)


# Reader-facing notes for APA/MLA/BibTeX/RIS: (notice type, wording with "see").
_NOTE_TYPES = {
    "RetractionIn": "Retracted",
    "ExpressionOfConcernIn": "Expression of concern",
    "ErratumIn": "Erratum",
    "RetractionOf": "Retraction of",
    "ExpressionOfConcernFor": "Expression of concern for",
    "ErratumFor": "Erratum for",
}


def _ref(n: Notice) -> str:
    return f"PMID {n.pmid}" if n.pmid else (n.refSource or "")


def correction_notes(a: PubMedArticle) -> list[str]:
    """Short notes on retraction/erratum/expression-of-concern links ("Retracted; see PMID 1")."""
    notes: list[str] = []
    if a.isRetracted and _latest_retraction(a) is None:
        notes.append("Retracted")
    for n in a.notices:
        label = _NOTE_TYPES.get(n.type)
        if label is None:
            continue
        ref = _ref(n)
        if n.type.endswith("In"):
            notes.append(f"{label}; see {ref}" if ref else label)
        elif ref:
            notes.append(f"{label} {ref}")
    return list(dict.fromkeys(notes))


def _bracket_notes(a: PubMedArticle) -> str:
    notes = correction_notes(a)
    return f" [{'; '.join(notes)}]" if notes else ""


# ---------------------------------------------------------------------------------------------
# APA 7
# ---------------------------------------------------------------------------------------------


def _apa_initials(p: Author) -> str:
    return " ".join(".-".join(i.split("-")) + "." for i in _initial_letters(p))


def _apa_name(p: Author) -> str:
    if p.collectiveName:
        return p.collectiveName
    initials = _apa_initials(p)
    name = f"{p.lastName}, {initials}" if initials else (p.lastName or "")
    return f"{name}, {p.suffix}" if p.suffix else name


def _apa_name_inverted(p: Author) -> str:
    """Editors in an "In" clause: initials first (M. P. Adam)."""
    if p.collectiveName:
        return p.collectiveName
    initials = _apa_initials(p)
    name = f"{initials} {p.lastName}".strip()
    return f"{name}, {p.suffix}" if p.suffix else name


def _apa_list(names: list[str]) -> str:
    if len(names) <= 1:
        return "".join(names)
    if len(names) == 2:
        return f"{names[0]}, & {names[1]}" if "," in names[0] else f"{names[0]} & {names[1]}"
    if len(names) <= 20:
        return ", ".join(names[:-1]) + f", & {names[-1]}"
    return ", ".join(names[:19]) + f", . . . {names[-1]}"


def _english_title(a: PubMedArticle) -> str:
    """A translated title without PubMed's brackets ("[Effects of X.]" -> "Effects of X")."""
    return _strip_period(a.title).lstrip("[").rstrip("].").strip()


def _apa_title(a: PubMedArticle) -> str:
    if a.vernacularTitle:
        # Non-English work: original title, then the English translation in brackets.
        return f"{_strip_period(a.vernacularTitle)} [{_english_title(a)}]"
    title = (
        _strip_period(a.title) if a.title and not a.title.rstrip().endswith(("?", "!")) else (a.title or "")
    )
    return title.strip()


def _apa_editors_in(editors: list[Author]) -> str:
    names = [_apa_name_inverted(e) for e in editors]
    if len(names) == 2:
        joined = f"{names[0]} & {names[1]}"
    else:
        joined = _apa_list(names)
    return f"{joined} ({'Ed.' if len(editors) == 1 else 'Eds.'})"


def _apa_source(a: PubMedArticle) -> str:
    j = a.journal
    parts = [_journal_name(a)]
    if j is not None:
        vol = (j.volume or "") + (f"({j.issue})" if j.issue else "")
        if vol:
            parts.append(vol)
        pages = _full_pages(a)
        if pages:
            parts.append(pages)
        elif _is_article_number(j.elocationId):
            parts.append(f"Article {j.elocationId}")
    return _end(", ".join(p for p in parts if p))


def _apa_book_source(a: PubMedArticle) -> str:
    book = a.book
    if book is None:
        return ""
    publisher = _end(book.publisher) if book.publisher else ""
    if a.recordType == "book-chapter":
        ed = f"In {_apa_editors_in(book.editors)}, " if book.editors else "In "
        return f"{ed}{_end(book.title or '')} {publisher}".strip()
    return publisher


def _apa_book_title(a: PubMedArticle) -> str:
    book = a.book
    extras = []
    if book and book.edition:
        extras.append(f"{book.edition.rstrip('.')} ed.")
    if book and book.volume:
        extras.append(f"Vol. {book.volume}")
    return _apa_title(a) + (f" ({', '.join(extras)})" if extras else "")


def format_apa(a: PubMedArticle) -> str:
    people = _people_split(a.authors)
    date = f"({_year(a) or 'n.d.'})."
    title = _apa_book_title(a) if a.recordType == "book" else _apa_title(a)
    if not people and a.recordType == "book" and a.book and a.book.editors:
        eds = a.book.editors
        head = f"{_apa_list([_apa_name(e) for e in eds])} ({'Ed.' if len(eds) == 1 else 'Eds.'}). {date} {_end(title)}"
    elif people:
        head = f"{_end(_apa_list([_apa_name(p) for p in people]))} {date} {_end(title)}"
    else:
        head = f"{_end(title)} {date}"  # no author: the title moves to the author position
    source = _apa_source(a) if a.recordType == "journal-article" else _apa_book_source(a)
    link = _link(a)
    text = " ".join(p for p in (head, source, link) if p)
    return text + _bracket_notes(a)


# ---------------------------------------------------------------------------------------------
# MLA 9
# ---------------------------------------------------------------------------------------------


def _mla_name(p: Author, inverted: bool) -> str:
    if p.collectiveName:
        return p.collectiveName
    first = _forename_mla(p)
    if inverted:
        name = f"{p.lastName}, {first}" if first else (p.lastName or "")
    else:
        name = f"{first} {p.lastName}".strip()
    return f"{name}, {p.suffix}" if p.suffix else name


def _mla_authors(people: list[Author]) -> str:
    if not people:
        return ""
    first = _mla_name(people[0], inverted=True)
    if len(people) == 1:
        return first
    if len(people) == 2:
        return f"{first}, and {_mla_name(people[1], inverted=False)}"
    return f"{first}, et al."


def _mla_editors(editors: list[Author]) -> str:
    names = [_mla_name(e, inverted=False) for e in editors]
    if len(names) == 1:
        return names[0]
    if len(names) == 2:
        return f"{names[0]} and {names[1]}"
    return f"{names[0]} et al."


def _mla_date(d: PartialDate | None) -> str:
    if d is None:
        return ""
    if d.medlineDate:
        return d.medlineDate
    month = month_number(d.month)
    parts = [str(d.day)] if d.day and month else []
    if month:
        parts.append(_MLA_MONTHS[month - 1])
    elif d.season:
        parts.append(d.season)
    if d.year:
        parts.append(str(d.year))
    return " ".join(parts)


def _mla_pages(a: PubMedArticle) -> str | None:
    j = a.journal
    if j is None:
        return None
    start, end = j.startPage, j.endPage
    if start and end and end != start:
        # MLA shortens the second number to its last two digits when nothing else changes.
        # (isdecimal, not isdigit: "²²²" is all digits but not a number; len() instead of int() >= 100
        # keeps clear of int()'s 4300-digit limit)
        if start.isdecimal() and end.isdecimal() and len(start) == len(end) and len(start.lstrip("0")) >= 3:
            keep = 2
            while keep < len(end) and start[: len(end) - keep] != end[: len(end) - keep]:
                keep += 1
            end = end[-keep:]
        return f"pp. {start}-{end}"
    if start or j.pages:
        return f"p. {start or j.pages}"
    if _is_article_number(j.elocationId):
        return f"article {j.elocationId}"
    return None


def _mla_title(a: PubMedArticle) -> str:
    title = _apa_title(a)
    return f'"{_end(title)}"' if title else ""


def _mla_lead(a: PubMedArticle) -> str:
    """The authors; for a book without authors, its editors."""
    people = _people_split(a.authors)
    if people:
        return _end(_mla_authors(people))
    if a.recordType == "book" and a.book and a.book.editors:
        eds = a.book.editors
        label = "editor" if len(eds) == 1 else "editors"
        return _end(f"{_mla_authors(eds)}, {label}")
    return ""


def _mla_journal(a: PubMedArticle) -> list[str]:
    """An article: its title, then the journal as the container (volume, number, date, pages)."""
    j = a.journal
    bits = [_journal_name(a)]
    if j and j.volume:
        bits.append(f"vol. {j.volume}")
    if j and j.issue:
        bits.append(f"no. {j.issue}")
    bits += [_mla_date(a.pubDate), _mla_pages(a) or ""]
    return [_mla_title(a), _end(", ".join(b for b in bits if b))]


def _mla_book(a: PubMedArticle) -> list[str]:
    """A chapter in quotes with its book and editors as the container; a book's title alone;
    then edition, publisher and year."""
    book = a.book
    if a.recordType == "book-chapter":
        head = _mla_title(a)
        container = [book.title or ""] if book else []
        if book and book.editors:
            container.append(f"edited by {_mla_editors(book.editors)}")
    else:
        head = _end(_apa_title(a))
        container = []
    if book and book.edition:
        container.append(f"{book.edition.rstrip('.')} ed.")
    if book and book.publisher:
        container.append(book.publisher)
    container.append(str(_year(a) or ""))
    return [head, _end(", ".join(c for c in container if c))]


def format_mla(a: PubMedArticle) -> str:
    parts = [_mla_lead(a)]
    parts += _mla_journal(a) if a.recordType == "journal-article" else _mla_book(a)
    link = _link(a)
    if link:
        parts.append(_end(link))
    return " ".join(p for p in parts if p) + _bracket_notes(a)


# ---------------------------------------------------------------------------------------------
# Vancouver (ICMJE / NLM Citing Medicine, as PubMed prints it)
# ---------------------------------------------------------------------------------------------

_NLM_LABELS = {
    "RetractionIn": "Retraction in",
    "RetractionOf": "Retraction of",
    "ErratumIn": "Erratum in",
    "ErratumFor": "Erratum for",
    "ExpressionOfConcernIn": "Expression of Concern in",
    "ExpressionOfConcernFor": "Expression of Concern for",
    "UpdateIn": "Update in",
    "UpdateOf": "Update of",
    "RepublishedIn": "Republished in",
    "RepublishedFrom": "Republished from",
    "CorrectedandRepublishedIn": "Corrected and republished in",
    "CorrectedandRepublishedFrom": "Corrected and republished from",
    "RetractedandRepublishedIn": "Retracted and republished in",
    "RetractedandRepublishedFrom": "Retracted and republished from",
}


def _nlm_name(p: Author) -> str:
    if p.collectiveName:
        return p.collectiveName
    initials = "".join(_initial_letters(p)).replace("-", "")
    name = f"{p.lastName} {initials}".strip()
    return f"{name} {p.suffix}" if p.suffix else name


def _nlm_people(people: list[Author], limit: int = 6) -> str:
    shown = people[:limit] if len(people) > limit else people
    out = ""
    for i, p in enumerate(shown):
        sep = "" if i == 0 else ("; " if p.collectiveName or shown[i - 1].collectiveName else ", ")
        out += sep + _nlm_name(p)
    return out + (", et al" if len(people) > limit else "")


def _nlm_date(d: PartialDate | None) -> str:
    if d is None:
        return ""
    if d.medlineDate:
        return d.medlineDate
    parts = [str(d.year)] if d.year else []
    month = month_number(d.month)
    if month:
        parts.append(_MONTHS[month - 1])
        if d.day:
            parts.append(str(d.day))
    elif d.season:
        parts.append(d.season)
    return " ".join(parts)


def _nlm_notes(a: PubMedArticle) -> list[str]:
    notes = []
    for n in a.notices:
        label = _NLM_LABELS.get(n.type)
        if label and (n.refSource or n.pmid):
            notes.append(_end(f"{label}: {_strip_period(n.refSource) or 'PMID ' + (n.pmid or '')}"))
    if a.isRetracted and _latest_retraction(a) is None:
        notes.append("Retracted publication.")
    return notes


_LANGUAGES = {
    "ara": "Arabic", "chi": "Chinese", "cze": "Czech", "dan": "Danish", "dut": "Dutch",
    "fin": "Finnish", "fre": "French", "ger": "German", "gre": "Greek", "heb": "Hebrew",
    "hun": "Hungarian", "ita": "Italian", "jpn": "Japanese", "kor": "Korean", "nor": "Norwegian",
    "per": "Persian", "pol": "Polish", "por": "Portuguese", "rum": "Romanian", "rus": "Russian",
    "scr": "Croatian", "slo": "Slovak", "spa": "Spanish", "swe": "Swedish", "tur": "Turkish",
    "ukr": "Ukrainian",
}  # fmt: skip


def _nlm_languages(a: PubMedArticle) -> list[str]:
    """PubMed names the language of a non-English article after the source ("German.")."""
    names = [_LANGUAGES.get(code.lower(), code) for code in a.language if code.lower() not in ("eng", "und")]
    return [_end(", ".join(names))] if names else []


def _nlm_ids(a: PubMedArticle) -> list[str]:
    parts = _nlm_languages(a)
    parts += [f"doi: {a.doi}."] if a.doi else []
    parts += _nlm_notes(a)
    ids = [f"PMID: {a.pmid}"] if a.pmid else []
    if a.pmcid:
        ids.append(f"PMCID: {a.pmcid}")
    if ids:
        parts.append("; ".join(ids) + ".")
    return parts


def _nlm_journal(a: PubMedArticle) -> str:
    j = a.journal
    text = _nlm_date(a.pubDate)
    if j is not None:
        if j.volume or j.issue:
            text += ";" + (j.volume or "") + (f"({j.issue})" if j.issue else "")
        loc = j.pages or (j.elocationId if _is_article_number(j.elocationId) else None)
        if loc:
            text += f":{loc}"
    return " ".join(p for p in (_end(_journal_abbrev(a)), _end(text) if text else "") if p)


def _nlm_title(a: PubMedArticle) -> str:
    title = a.title or ""
    medium = " [Internet]" if a.book and (a.book.medium or "").lower() == "internet" else ""
    if a.recordType == "book" and medium:
        title = _strip_period(title) + medium
    return _end(title)


def _nlm_book_pub(a: PubMedArticle) -> str:
    book = a.book
    if book is None:
        return ""
    begin, end = book.beginningDate, book.endingDate
    if begin and begin.year and end and end.year and end.year != begin.year:
        years = f"{begin.year}-{end.year}"
    else:
        years = str((a.pubDate.year if a.pubDate else None) or (begin.year if begin else "") or "")
    place = f"{book.publisherLocation}: " if book.publisherLocation else ""
    pub = f"{place}{book.publisher or ''}"
    return _end("; ".join(p for p in (pub, years) if p))


def _nlm_chapter(a: PubMedArticle) -> list[str]:
    book = a.book
    parts = [_nlm_title(a)]
    if a.contributionDate:
        dated = _nlm_date(a.contributionDate)
        if a.dateRevised and a.dateRevised != a.contributionDate:
            dated += f" [Updated {_nlm_date(a.dateRevised)}]"
        parts.append(_end(dated))
    if book:
        editors = f"{_nlm_people(book.editors)}, editors. " if book.editors else ""
        medium = " [Internet]" if (book.medium or "").lower() == "internet" else ""
        parts.append(f"In: {editors}{_end(_strip_period(book.title) + medium)}")
        parts.append(_nlm_book_pub(a))
    return parts


def _nlm_book(a: PubMedArticle) -> list[str]:
    book = a.book
    parts = [_nlm_title(a)]
    if book and book.edition:
        parts.append(_end(f"{book.edition.rstrip('.')} ed"))
    parts.append(_nlm_book_pub(a))
    return parts


def format_vancouver(a: PubMedArticle) -> str:
    people = _people_split(a.authors)
    parts: list[str] = []
    if people:
        parts.append(_end(_nlm_people(people)))
    elif a.recordType == "book" and a.book and a.book.editors:
        parts.append(f"{_nlm_people(a.book.editors)}, editors.")
    if a.recordType == "journal-article":
        parts += [_end(a.title or ""), _nlm_journal(a)]
    elif a.recordType == "book-chapter":
        parts += _nlm_chapter(a)
    else:
        parts += _nlm_book(a)
    parts += _nlm_ids(a)
    return " ".join(p for p in parts if p)


# ---------------------------------------------------------------------------------------------
# BibTeX and RIS: the shared writers, fed a neutral record
# ---------------------------------------------------------------------------------------------


def _name(p: Author) -> bibliography.Name:
    if p.collectiveName:
        return bibliography.Name(literal=p.collectiveName)
    return bibliography.Name(family=p.lastName or "", given=_forename_mla(p), suffix=p.suffix or "")


_KINDS: dict[str, bibliography.Kind] = {"journal-article": "article", "book-chapter": "chapter"}


def _record(a: PubMedArticle) -> bibliography.Record:
    """A PubMed record as the shared writers take it: names, titles and the journal as the other
    styles print them (title-cased journal, MEDLINE abbreviation, the translated title beside the
    original)."""
    book, d = a.book, a.pubDate
    rec = bibliography.Record(
        kind=_KINDS.get(a.recordType, "book"),
        title=_english_title(a) if a.vernacularTitle else _strip_period(a.title),
        original_title=_strip_period(a.vernacularTitle),
        authors=tuple(_name(p) for p in _people_split(a.authors)),
        editors=tuple(_name(e) for e in book.editors) if book else (),
        year=_year(a),
        issued=bibliography.Date(d.year, month_number(d.month), d.day) if d and d.year else None,
        doi=a.doi or "",
        pmid=a.pmid,
        pmcid=a.pmcid or "",
        url=_link(a) or f"https://pubmed.ncbi.nlm.nih.gov/{a.pmid}/",
        database="PubMed",
        language=tuple(a.language),
        keywords=tuple(a.keywords),
        abstract=a.abstract or "",
        notes=tuple(correction_notes(a)),
    )
    if rec.kind == "article":
        return replace(rec, **_journal_fields(a))
    if book is not None:
        return replace(rec, **_book_fields(book, chapter=rec.kind == "chapter"))
    return rec


def _journal_fields(a: PubMedArticle) -> dict[str, Any]:
    """An article's journal, its volume, issue and pages (an elocation id that is an article
    number standing in for pages)."""
    fields: dict[str, Any] = {"container_title": _journal_name(a), "container_abbrev": _journal_abbrev(a)}
    j = a.journal
    if j is None:
        return fields
    number = j.elocationId if _is_article_number(j.elocationId) else None
    return fields | {
        "volume": j.volume or "",
        "issue": j.issue or "",
        "first_page": j.startPage or "",
        "last_page": j.endPage or "",
        "pages": j.pages or "",
        "article_number": number or "",
        "issn": j.issn or "",
    }


def _book_fields(book: Book, *, chapter: bool) -> dict[str, Any]:
    """A book's edition, series and publisher; a chapter's container is the book."""
    return {
        "container_title": (book.title or "") if chapter else "",
        "edition": book.edition or "",
        "volume": book.volume or "",
        "collection_title": book.collectionTitle or "",
        "publisher": book.publisher or "",
        "publisher_place": book.publisherLocation or "",
        "isbn": tuple(book.isbn),
    }


def cite_key(a: PubMedArticle) -> str:
    """Stable key: first author's family name + year + first significant title word."""
    return bibliography.cite_key(_record(a))


def format_bibtex(a: PubMedArticle) -> str:
    # A reference string, not a library export: the abstract stays out of it.
    return bibliography.bibtex(replace(_record(a), abstract=""))


def format_ris(a: PubMedArticle) -> str:
    return bibliography.ris(_record(a))


# ---------------------------------------------------------------------------------------------
# Entry point
# ---------------------------------------------------------------------------------------------

_FORMATTERS: dict[str, Callable[[PubMedArticle], str]] = {
    "apa": format_apa,
    "mla": format_mla,
    "vancouver": format_vancouver,
    "bibtex": format_bibtex,
    "ris": format_ris,
}


def format_citation(article: PubMedArticle, style: CitationStyle | str) -> str:
    """Format one record in ``style`` (apa, mla, vancouver, bibtex, ris or an alias; case-insensitive)."""
    key = (style or "").strip().lower()
    key = STYLE_ALIASES.get(key, key)
    formatter = _FORMATTERS.get(key)
    if formatter is None:
        raise ValueError(f"unknown citation style {style!r}; choose one of: {', '.join(STYLES)}")
    return formatter(article) or f"PMID: {article.pmid}."
