"""Pure readers of Crossref answers: a work as :class:`RecordMetadata`, its notices (``update-to``
and ``updated-by``, Retraction Watch's included), a list answer, an error body.

Shapes handled (documented and recorded): ``issued`` may be ``[[null]]`` (a title-level DOI);
``title`` and ``container-title`` are lists (possibly empty); a person has ``family`` and maybe
``given``, an organisation only ``name``; ``page`` is ``"637-641"`` or an article number;
``score`` is a float (0.0 on filter answers). Notices: a notice work's ``update-to`` names what it
updates; the updated work's ``updated-by`` lists its notices (publisher-deposited and, since 2023,
backfilled from Retraction Watch with ``source: retraction-watch`` and a ``record-id``). Some
publishers deposit ``update-to`` on the retracted article itself, naming its notices (Mehra 2020):
such entries count as the article's own when the same DOI is in its ``updated-by`` or its title is
marked retracted; a record naming its own DOI as a ``new_version`` is no notice.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from medlit.core.plugin import RecordMetadata, RecordNotice, identifiers, kinds, rendering

# Every update type Crossref uses, folded onto the six the audit reports (a partial retraction
# kept as one: the work stands, in part).
NOTICE_TYPES: dict[str, kinds.NoticeKind] = {
    "retraction": "retraction",
    "partial_retraction": "partial_retraction",
    "withdrawal": "withdrawal",
    "removal": "withdrawal",
    "expression_of_concern": "expression_of_concern",
    "erratum": "erratum",
    "correction": "correction",
    "corrigendum": "correction",
    "addendum": "correction",
    "clarification": "correction",
    "new_version": "correction",
    "new_edition": "correction",
}
_SELF_IGNORED = {"new_version", "new_edition"}  # a record naming itself as its new version
_RETRACTED_TITLE = re.compile(r"^\s*(retracted|withdrawn|removed)\b", re.I)
_KINDS: dict[str, kinds.RecordKind] = {
    "journal-article": "article",
    "proceedings-article": "article",
    "posted-content": "preprint",
    "book": "book",
    "monograph": "book",
    "edited-book": "book",
    "reference-book": "book",
    "book-chapter": "chapter",
    "book-section": "chapter",
    "book-part": "chapter",
    "reference-entry": "chapter",
}


@dataclass
class Work:
    """One Crossref work, reduced to what the plugin uses."""

    doi: str
    metadata: RecordMetadata
    notices: list[RecordNotice] = field(default_factory=list)
    score: float | None = None
    type: str = ""
    updates: list[tuple[str, RecordNotice]] = field(default_factory=list)  # (updated DOI, notice)


def _doi(value: Any) -> str | None:
    return identifiers.canonical("doi", value) if isinstance(value, str) else None


def _first(value: Any) -> str | None:
    if isinstance(value, list):
        value = next((v for v in value if isinstance(v, str) and v.strip()), None)
    if isinstance(value, str) and value.strip():
        return re.sub(r"\s+", " ", rendering.strip_invisible(value)).strip()
    return None


def _title(value: Any) -> str | None:
    text = _first(value)
    return re.sub(r"</?[a-zA-Z][^>]{0,40}>", "", text).strip() if text else None  # <i>, <sub> (JATS)


def date_of(value: Any) -> str | None:
    """``YYYY``, ``YYYY-MM`` or ``YYYY-MM-DD`` from ``{"date-parts": [[y, m, d]]}``; ``None`` for
    ``[[null]]`` or anything malformed."""
    if not isinstance(value, Mapping):
        return None
    parts = value.get("date-parts")
    if not isinstance(parts, list) or not parts or not isinstance(parts[0], list):
        return None
    nums: list[int] = []
    for p in parts[0][:3]:
        if isinstance(p, bool) or not isinstance(p, (int, str)) or not str(p).isdigit():
            break
        nums.append(int(p))
    if not nums or not 1000 <= nums[0] <= 2999:
        return None
    if len(nums) >= 2 and 1 <= nums[1] <= 12:
        if len(nums) >= 3 and 1 <= nums[2] <= 31:
            return f"{nums[0]:04d}-{nums[1]:02d}-{nums[2]:02d}"
        return f"{nums[0]:04d}-{nums[1]:02d}"
    return f"{nums[0]:04d}"


def _initials(given: str) -> str:
    words = [w for w in re.split(r"[\s\-.]+", given) if w]
    if len(words) == 1 and words[0].isupper() and len(words[0]) <= 3:
        return words[0]  # "AJ" already initials
    return "".join(w[0].upper() for w in words)


def _authors(value: Any) -> tuple[list[str], str | None, str | None]:
    names: list[str] = []
    first_family = first_given = None
    for person in value if isinstance(value, list) else []:
        if not isinstance(person, Mapping):
            continue
        family = _first(person.get("family"))
        given = _first(person.get("given"))
        if family:
            names.append(" ".join(x for x in (family, _initials(given or "")) if x))
            if first_family is None:
                first_family, first_given = family, given
        elif (org := _first(person.get("name"))) is not None:
            names.append(org)
            if first_family is None:
                first_family = org
    return names, first_family, first_given


def _pages(value: Any) -> tuple[str | None, str | None]:
    text = _first(value)
    if not text:
        return None, None
    m = re.match(r"^\s*([^\s\-–—]+)\s*[-–—]+\s*([^\s\-–—]+)\s*$", text)
    if m:
        return m.group(1), m.group(2)
    return text, None


def _issns(work: Mapping[str, Any]) -> tuple[str | None, str | None]:
    print_issn = e_issn = None
    for item in work.get("issn-type") or []:
        if isinstance(item, Mapping) and isinstance(item.get("value"), str):
            if item.get("type") == "electronic":
                e_issn = e_issn or item["value"]
            else:
                print_issn = print_issn or item["value"]
    plain = [v for v in work.get("ISSN") or [] if isinstance(v, str)]
    if not print_issn and not e_issn and plain:
        print_issn = plain[0]
    return print_issn, e_issn


def to_metadata(work: Mapping[str, Any], doi: str) -> RecordMetadata:
    ctype = str(work.get("type") or "")
    date = next(
        (
            d
            for key in ("issued", "published", "published-print", "published-online", "posted")
            if (d := date_of(work.get(key)))
        ),
        None,
    )
    names, family, given = _authors(work.get("author"))
    first_page, last_page = _pages(work.get("page"))
    if first_page is None and isinstance(work.get("article-number"), str):
        first_page = work["article-number"]
    issn, eissn = _issns(work)
    isbn = _first(work.get("ISBN"))
    kind = _KINDS.get(ctype, "other")
    return RecordMetadata(
        doi=doi,
        kind=kind,
        title=_title(work.get("title")),
        container_title=_first(work.get("container-title")),
        container_abbrev=_first(work.get("short-container-title")),
        issn=issn,
        eissn=eissn,
        isbn=isbn,
        publisher=_first(work.get("publisher")),
        date=date,
        year=int(date[:4]) if date else None,
        volume=_first(work.get("volume")),
        issue=_first(work.get("issue")),
        first_page=first_page,
        last_page=last_page,
        authors=tuple(names),
        first_author_family=family,
        first_author_given=given,
        publication_types=(ctype,) if ctype else (),
        abstract=_abstract(work.get("abstract")),
    )


_JATS_HEADING = re.compile(r"(?is)^\s*<jats:title>\s*abstract\s*</jats:title>")
_JATS_BREAK = re.compile(r"(?i)</jats:(?:p|sec|title)>")


def _abstract(value: Any) -> str | None:
    """A deposited abstract (JATS: ``<jats:p>`` paragraphs, often a leading ``<jats:title>Abstract``)
    as plain text, one paragraph a block."""
    if not isinstance(value, str):
        return None
    text = _JATS_BREAK.sub("\n\n", _JATS_HEADING.sub("", value))
    text = html.unescape(re.sub(r"<[^>]{1,200}>", "", text))
    paragraphs = (" ".join(rendering.strip_invisible(p).split()) for p in text.split("\n\n"))
    return "\n\n".join(p for p in paragraphs if p) or None


def _notice(entry: Mapping[str, Any]) -> tuple[str | None, RecordNotice] | None:
    label = str(entry.get("type") or "").strip().lower().replace("-", "_").replace(" ", "_")
    kind = NOTICE_TYPES.get(label)
    if kind is None:
        return None
    target = _doi(entry.get("DOI"))
    origin = str(entry.get("source") or "").strip().lower() or "publisher"
    return target, RecordNotice(
        type=kind, label=label, doi=target, date=date_of(entry.get("updated")), origin=origin
    )


def notices_of(work: Mapping[str, Any], doi: str) -> list[RecordNotice]:
    """The notices on a work: its ``updated-by`` entries, and those ``update-to`` entries that are
    about the work itself (inverted deposits confirmed by ``updated-by`` or a retracted title; a
    record naming its own DOI). A record's own ``new_version`` is no notice; repeats are dropped."""
    out: list[RecordNotice] = []
    seen: set[tuple[str | None, str, str]] = set()

    def add(n: RecordNotice) -> None:
        key = (n.doi, n.label, n.origin)
        if key not in seen:
            seen.add(key)
            out.append(n)

    updated_by = [p for e in _entries(work.get("updated-by")) if (p := _notice(e)) is not None]
    by_dois = {target for target, _ in updated_by if target}
    for target, n in updated_by:
        if target == doi and n.label in _SELF_IGNORED:
            continue
        add(n)
    retracted_title = bool(_RETRACTED_TITLE.match(_title(work.get("title")) or ""))
    for target, n in (p for e in _entries(work.get("update-to")) if (p := _notice(e)) is not None):
        if target == doi:
            if n.label in _SELF_IGNORED:
                continue
        elif target not in by_dois and not retracted_title:
            continue  # the work is itself a notice about another record
        add(n)
    return out


def updates_of(work: Mapping[str, Any], doi: str) -> list[tuple[str, RecordNotice]]:
    """What a notice work updates (its ``update-to``): (updated DOI, the notice, whose id is this
    work's DOI)."""
    out = []
    for entry in _entries(work.get("update-to")):
        parsed = _notice(entry)
        if parsed is None:
            continue
        target, n = parsed
        if target is None or target == doi:
            continue
        out.append((target, replace(n, doi=doi)))
    return out


def _entries(value: Any) -> Iterable[Mapping[str, Any]]:
    return [e for e in value if isinstance(e, Mapping)] if isinstance(value, list) else []


def parse_work(work: Any) -> Work | None:
    """One item of ``message`` (a work or a list item); ``None`` when it carries no usable DOI."""
    if not isinstance(work, Mapping):
        return None
    doi = _doi(work.get("DOI"))
    if doi is None:
        return None
    score = work.get("score")
    return Work(
        doi=doi,
        metadata=to_metadata(work, doi),
        notices=notices_of(work, doi),
        score=float(score) if isinstance(score, (int, float)) and not isinstance(score, bool) else None,
        type=str(work.get("type") or ""),
        updates=updates_of(work, doi),
    )


def parse_single(body: Any) -> Work | None:
    """``works/<doi>``: ``{"status": "ok", "message-type": "work", "message": {...}}``."""
    if isinstance(body, Mapping) and isinstance(body.get("message"), Mapping):
        return parse_work(body["message"])
    return None


def parse_items(body: Any) -> tuple[list[Work], int | None]:
    """A list answer (``works?filter=`` / ``query.bibliographic``): the works in the answer's order
    and ``total-results``."""
    message = body.get("message") if isinstance(body, Mapping) else None
    if not isinstance(message, Mapping):
        raise ValueError("a Crossref list answer without a message object")
    items = message.get("items")
    if not isinstance(items, list):
        raise ValueError("a Crossref list answer without items")
    works = [w for item in items if (w := parse_work(item)) is not None]
    total = message.get("total-results")
    return works, total if isinstance(total, int) else None


def error_message(body: Any) -> str:
    """A readable line from Crossref's error JSON: the ``message`` list's messages (400 validation
    failures, 404 resource failures), an exception's name (500), or the text itself."""
    if isinstance(body, (bytes, str)):
        text = body.decode("utf-8", "replace") if isinstance(body, bytes) else body
        return re.sub(r"\s+", " ", text).strip()[:200] or "an empty answer"
    if not isinstance(body, Mapping):
        return "an unreadable answer"
    message = body.get("message")
    kind = str(body.get("message-type") or body.get("status") or "error")
    if isinstance(message, list):
        parts = []
        for m in message[:5]:
            if isinstance(m, Mapping):
                text = str(m.get("message") or m.get("type") or "")
                value = m.get("value")
                parts.append(f"{text} ({value})" if value else text)
            elif isinstance(m, str):
                parts.append(m)
        return f"{kind}: " + "; ".join(p for p in parts if p)[:300]
    if isinstance(message, Mapping):
        return f"{kind}: {str(message.get('message') or message.get('description') or '')[:200]}"
    if isinstance(message, str):
        return f"{kind}: {message[:200]}"
    return kind
