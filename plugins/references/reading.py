"""Reading the list (no I/O): every reference of the input, pasted text or fields, read into what it
states and checked before any request is sent (refused input raises here), then put as the
:class:`ReferenceQuery` the matchers are asked with."""

from __future__ import annotations

from collections.abc import Sequence

from medlit.core.plugin import ReferenceQuery, identifiers
from medlit.core.plugin import errors as E

from .models import MAX_REFERENCES, ReferenceFields
from .names import parse_authors
from .parse import count_entries, parse_reference, split_entries
from .stated import StatedReference

MAX_ENTRIES_READ = 10 * MAX_REFERENCES  # entries split out of pasted blobs before the cut


def _fields_to_stated(f: ReferenceFields) -> StatedReference:
    first, last = _page_range(f.pages)
    return StatedReference(
        title=f.title,
        authors=_authors(f.authors),
        journal=f.journal,
        year=_year(f.year),
        volume=str(f.volume) if f.volume is not None else None,
        issue=str(f.issue) if f.issue is not None else None,
        first_page=first,
        last_page=last,
        doi=f.doi,
        pmid=str(f.pmid) if f.pmid is not None else None,
        style="fields",
    )


def _authors(given: str | list[str] | None) -> list[str]:
    """Authors given as one string are read as a list is printed; each of a list is one name
    (kept as given when it reads as none)."""
    if isinstance(given, str):
        return parse_authors(given)
    return [a2 for a in given or [] if (a2 := (parse_authors(a) or [a.strip()])[0])]


def _year(given: object) -> int | None:
    """A four-digit year, or refused: a field given is meant, so a bad one is not silently dropped."""
    if given is None:
        return None
    text = str(given).strip()
    if not (text.isdigit() and 1000 <= int(text) <= 2999):
        raise E.invalid_argument(
            f"year {text[:20]!r} is not a four-digit year", "Give the year as e.g. 2015."
        )
    return int(text)


def _page_range(given: object) -> tuple[str | None, str | None]:
    """First and last page of ``"317-35"`` (any dash), or of a single page."""
    if given is None:
        return None, None
    parts = [p.strip() for p in str(given).replace("–", "-").replace("—", "-").split("-", 1)]
    return parts[0] or None, (parts[1] if len(parts) > 1 and parts[1] else None)


def _checked_ids(s: StatedReference, index: int, strict: bool) -> None:
    """Canonical DOI and PMID; a malformed one given as a field is refused, one read from text dropped."""
    for attr, norm in (("doi", identifiers.normalize_doi), ("pmid", identifiers.normalize_pmid)):
        value = getattr(s, attr)
        if not value:
            continue
        try:
            setattr(s, attr, norm(value))
        except identifiers.IdentifierError as exc:
            if strict:
                raise E.invalid_argument(
                    f"references[{index}].{attr}: {exc}",
                    "Give a DOI like '10.1038/171737a0' and a PMID of digits, or leave the field out.",
                ) from None
            setattr(s, attr, None)


def read_references(items: Sequence[str | ReferenceFields]) -> tuple[list[tuple[str, StatedReference]], int]:
    """Every reference of the input, in order (BibTeX/RIS blobs split into entries), and how many
    entries there were in all (more than :data:`MAX_REFERENCES`: the rest is over the limit)."""
    out: list[tuple[str, StatedReference]] = []
    total = 0
    for i, item in enumerate(items):
        if isinstance(item, ReferenceFields):
            read = _read_fields(item, i)  # checked even past the limit: a bad field is refused
            total += 1
            if len(out) < MAX_REFERENCES:
                out.append(read)
            continue
        n = count_entries(item)
        total += n
        if len(out) >= MAX_REFERENCES:
            continue  # only counted, for the over-limit notice
        if total > MAX_ENTRIES_READ:
            raise E.invalid_argument(
                f"references[{i}] holds {n:,} entries; a call audits at most {MAX_REFERENCES}",
                f"Send at most {MAX_REFERENCES} references per call (split the file and call again).",
                entries=total,
            )
        out += [_read_entry(entry, i) for entry in split_entries(item)[: MAX_REFERENCES - len(out)]]
    return out, total


def _read_fields(item: ReferenceFields, i: int) -> tuple[str, StatedReference]:
    """A reference given as fields, shown as ``name=value`` pairs; a malformed identifier is refused."""
    s = _fields_to_stated(item)
    _checked_ids(s, i, strict=True)
    return "; ".join(f"{k}={v}" for k, v in item.model_dump(exclude_none=True).items()), s


def _read_entry(entry: str, i: int) -> tuple[str, StatedReference]:
    """One pasted reference (a line, a BibTeX entry, a RIS record) of ``references[i]``; refused
    when it cannot be read or holds nothing to match on."""
    try:
        s = parse_reference(entry)
    except Exception as exc:  # a library's parse error: the entry cannot be read
        raise E.invalid_argument(
            f"references[{i}] could not be read: {str(exc)[:160]}",
            "Fix the entry (BibTeX: @type{key, field = {value}}; RIS: 'TY  - JOUR' ... 'ER  - '), or give "
            "it as plain text or fields.",
        ) from None
    _checked_ids(s, i, strict=False)
    if not (s.title or s.authors or s.journal or s.doi or s.pmid or (s.text and len(s.text) >= 10)):
        raise E.invalid_argument(
            f"references[{i}] has nothing to match on: {entry[:80]!r}",
            "Give the reference's text, or at least a title, a DOI or a PMID.",
            reason="empty_reference",
        )
    return entry, s


def to_query(key: str, s: StatedReference) -> ReferenceQuery:
    return ReferenceQuery(
        key=key,
        text=s.text,
        title=s.title,
        authors=tuple(s.authors),
        journal=s.journal,
        year=s.year,
        volume=s.volume,
        issue=s.issue,
        first_page=s.first_page,
        last_page=s.last_page,
        doi=s.doi,
        pmid=s.pmid,
    )
