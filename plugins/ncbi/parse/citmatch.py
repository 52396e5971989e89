"""ECitMatch: citation strings ``journal|year|volume|first_page|author|key|`` checked and packed
into ``bdata``, and the answer read back as one match per citation sent.
"""

from __future__ import annotations

import re
from typing import Any, Literal, TypedDict

from pydantic import Field

from medlit.core.plugin import errors

from .body import NcbiModel

CITATION_FORMAT = "journal|year|volume|first_page|author|key|"
_CITATION_FIELDS = ("journal", "year", "volume", "first_page", "author", "key")
CitMatchStatus = Literal["matched", "not_found", "ambiguous"]


class _CitationFields(TypedDict):
    journal: str
    year: str
    volume: str
    first_page: str
    author: str
    key: str


# ----------------------------------------------------------------------------- ECitMatch


class CitMatch(NcbiModel):
    """One citation's answer, in the order the citations were sent."""

    citation: str  # the citation string as sent
    journal: str = ""
    year: str = ""
    volume: str = ""
    first_page: str = ""
    author: str = ""
    key: str = ""
    status: CitMatchStatus
    pmid: str | None = None
    candidates: list[str] = Field(default_factory=list)
    detail: str | None = None  # "INVALID_JOURNAL", "14 citations", "no answer line"


# ----------------------------------------------------------------------------- ECitMatch


def parse_citation_string(s: str) -> dict[str, str]:
    """Validate ``journal|year|volume|first_page|author|key|`` (trailing pipe optional)."""
    raw = (s or "").strip()
    body = raw[:-1] if raw.endswith("|") else raw
    parts = [p.strip() for p in body.split("|")]
    if len(parts) > 6 and not any(parts[6:]):
        parts = parts[:6]  # extra empty fields from doubled trailing pipes
    recovery = (
        f"Format each citation as {CITATION_FORMAT} (six pipe-separated fields; leave unknown ones "
        "empty), e.g. 'proc natl acad sci u s a|1991|88|3248|mann bj|Art1|'."
    )
    if len(parts) != 6:
        raise errors.invalid_argument(
            f"Citation {raw!r} has {len(parts)} pipe-separated fields; {CITATION_FORMAT} needs 6.",
            recovery,
            citation=raw,
        )
    if not any(parts[:5]):
        raise errors.invalid_argument(
            f"Citation {raw!r} has no bibliographic fields.", recovery, citation=raw
        )
    return dict(zip(_CITATION_FIELDS, parts, strict=True))


def build_ecitmatch_bdata(citations: list[dict[str, Any]]) -> str:
    """The ``bdata`` value: one ``journal|year|volume|first_page|author|key|`` per citation, CR-joined."""

    def clean(value: Any) -> str:
        # A pipe or line break inside a value would shift every following field.
        return re.sub(r"[|\r\n]+", " ", str(value if value is not None else "")).strip()

    lines = ["|".join(clean(c.get(k)) for k in _CITATION_FIELDS) + "|" for c in citations]
    return "\r".join(lines)


def parse_ecitmatch(text: str, citations_sent: list[str]) -> list[CitMatch]:
    """One CitMatch per citation sent, matched to answer lines by key (falling back to order)."""
    answers = [_citmatch_line(line) for line in text.splitlines() if line.strip()]
    sent = [_lenient_citation(c) for c in citations_sent]
    sent_keys = {f["key"] for f in sent if f["key"]}
    used: set[int] = set()
    out = []
    for i, (raw, fields) in enumerate(zip(citations_sent, sent, strict=True)):
        idx = _pick_answer(answers, used, fields["key"], i, sent_keys)
        if idx is None:
            out.append(CitMatch(citation=raw, **fields, status="not_found", detail="no answer line"))
            continue
        used.add(idx)
        status, pmid, candidates, detail = answers[idx][1]
        out.append(
            CitMatch(citation=raw, **fields, status=status, pmid=pmid, candidates=candidates, detail=detail)
        )
    return out


def _lenient_citation(s: str) -> _CitationFields:
    parts = [p.strip() for p in (s or "").strip().removesuffix("|").split("|")] + [""] * 6
    journal, year, volume, first_page, author, key = parts[:6]
    return {
        "journal": journal,
        "year": year,
        "volume": volume,
        "first_page": first_page,
        "author": author,
        "key": key,
    }


def _pick_answer(
    answers: list[tuple[str, Any]], used: set[int], key: str, position: int, sent_keys: set[str]
) -> int | None:
    if key:
        for j, (akey, _) in enumerate(answers):
            if j not in used and akey == key:
                return j
    # Order fallback, unless that line plainly belongs to another citation's key.
    if position < len(answers) and position not in used:
        akey = answers[position][0]
        if not akey or akey not in sent_keys:
            return position
    return None


def _citmatch_line(line: str) -> tuple[str, tuple[CitMatchStatus, str | None, list[str], str | None]]:
    """(key, (status, pmid, candidates, detail)) from ``journal|year|volume|page|author|key|PMID``."""
    parts = line.rstrip("\r\n").split("|")
    key = parts[5].strip() if len(parts) > 6 else ""
    return key, _citmatch_status(parts[-1].strip() if len(parts) > 1 else line.strip())


def _citmatch_status(value: str) -> tuple[CitMatchStatus, str | None, list[str], str | None]:
    if value.isdigit():
        return "matched", value, [], None
    upper = value.upper()
    if upper.startswith("AMBIGUOUS"):
        rest = value[len("AMBIGUOUS") :].strip()
        if "citation" in rest.lower():  # "AMBIGUOUS (14 citations)": too many to list
            return "ambiguous", None, [], rest.strip("() ")
        return "ambiguous", None, re.findall(r"\d+", rest), None
    if upper.startswith("NOT_FOUND"):
        detail = value.split(";", 1)[1].strip() if ";" in value else None
        return "not_found", None, [], detail or None
    return "not_found", None, [], value or None
