"""Reading iCite's answers: the ``{"meta", "links", "data": [...]}`` envelope and its records.

Records are read by iCite's default ("legacy") field names, which the tool asks for, and also by
the database names ``legacy=false`` returns (``rcr``, ``acr``, ``citedByPmids``, ...), so a record
in either spelling reads the same. Values are taken as iCite writes them in either era: flags as
``"Yes"``/``"No"`` or booleans, numbers as numbers or numeric strings; anything unreadable is left
out rather than guessed.
"""

from __future__ import annotations

import html
import math
import re
from collections.abc import Mapping
from typing import Any

from medlit.core.plugin import rendering

from .models import CitationMetrics, Scoring

_TAG = re.compile(r"</?[A-Za-z][A-Za-z0-9:-]*(?:\s[^<>]{0,200})?/?>")
_SPACE = re.compile(r"\s+")
_SEP = re.compile(r"[\s,;]+")


def envelope_records(data: Any) -> list[Mapping[str, Any]]:
    """The records of an answer: ``data`` of the envelope (``null`` counts as none), a bare list, or
    one bare record (``/pubs/{pmid}``). Raises ``ValueError`` for anything else: the client retries it
    and, if it persists, reports iCite's answer as invalid."""
    if isinstance(data, dict):
        if "data" in data:
            items = data["data"] if data["data"] is not None else []
        elif "pmid" in data or "_id" in data:
            items = [data]
        else:
            raise ValueError("not an iCite answer: no `data` list")
    elif isinstance(data, list):
        items = data
    else:
        raise ValueError(f"not an iCite answer: a JSON {type(data).__name__}")
    if not isinstance(items, list):
        raise ValueError("not an iCite answer: `data` is not a list")
    if not all(isinstance(i, dict) for i in items):
        raise ValueError("not an iCite answer: a record that is not an object")
    return items


def pmid_of(rec: Mapping[str, Any]) -> str | None:
    """The record's canonical PMID (digits, no zero padding), or ``None`` when it names none."""
    value = rec.get("pmid", rec.get("_id"))
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        text = str(value)
    elif isinstance(value, str):
        text = value.strip()
    else:
        return None
    if not text.isdigit() or len(text) > 10:
        return None
    return text.lstrip("0") or None


def _get(rec: Mapping[str, Any], *names: str) -> Any:
    for name in names:
        if rec.get(name) is not None:
            return rec[name]
    return None


def number(value: Any) -> float | None:
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        out = float(value)
    elif isinstance(value, str):
        try:
            out = float(value.strip())
        except ValueError:
            return None
    else:
        return None
    return out if math.isfinite(out) else None


def integer(value: Any) -> int | None:
    out = number(value)
    return int(out) if out is not None and out.is_integer() and out >= 0 else None


def share(value: Any) -> float | None:
    out = number(value)
    return out if out is not None and 0.0 <= out <= 1.0 else None


def flag(value: Any) -> bool | None:
    """``True``/``False``, ``"Yes"``/``"No"``, ``"true"``/``"false"``, ``1``/``0``; else ``None``."""
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)) and value in (0, 1):
        return bool(value)
    if isinstance(value, str):
        text = value.strip().lower()
        if text in ("yes", "y", "true", "1"):
            return True
        if text in ("no", "n", "false", "0"):
            return False
    return None


def plain_text(value: Any, limit: int) -> str | None:
    """Display text: markup stripped, entities decoded, white space collapsed, invisibles removed."""
    if not isinstance(value, str):
        return None
    text = html.unescape(_TAG.sub("", value))
    text = _SPACE.sub(" ", rendering.strip_invisible(text)).strip()
    return text[:limit] or None


def _count_ids(value: Any) -> int | None:
    """How many distinct PMIDs a list field holds (a list, or a string of ids as iCite's CSV writes)."""
    if isinstance(value, list):
        return len({str(v).strip() for v in value if str(v).strip()})
    if isinstance(value, str):
        return len({p for p in _SEP.split(value) if p})
    return None


def _scoring(rcr: float | None, provisional: bool | None, rates: list[float | None]) -> Scoring:
    if rcr is not None:
        return "provisional" if provisional else "scored"
    return "no-rcr" if any(r is not None for r in rates) else "not-scored"


def read_record(rec: Mapping[str, Any], pmid: str) -> CitationMetrics:
    """One iCite record as the tool's output record (``pmid``: its canonical PMID)."""
    rcr = number(_get(rec, "relative_citation_ratio", "rcr"))
    provisional = flag(_get(rec, "provisional", "rcrIsProvisional", "isProvisional"))
    per_year = number(_get(rec, "citations_per_year", "acr"))
    expected = number(_get(rec, "expected_citations_per_year", "ecr"))
    field_rate = number(_get(rec, "field_citation_rate", "fcr"))
    percentile = number(_get(rec, "nih_percentile", "nihRcrPercentile", "nihPercentile"))
    if percentile is not None and not 0.0 <= percentile <= 100.0:
        percentile = None
    count = integer(_get(rec, "citation_count", "citedByPmidCount", "citationCount"))
    if count is None:  # legacy=false answers may carry only the list of citing PMIDs
        count = _count_ids(_get(rec, "cited_by", "citedByPmids"))
    clinical_count = _count_ids(_get(rec, "cited_by_clin", "citingClinicalPmids", "citedByClinicalPmids"))
    cited_by_clinical = flag(_get(rec, "citedByClinicalArticle", "cited_by_clinical"))
    if cited_by_clinical is None and clinical_count is not None:
        cited_by_clinical = clinical_count > 0
    if clinical_count is None and cited_by_clinical is False:
        clinical_count = 0
    year = integer(_get(rec, "year", "pubYear"))
    doi = plain_text(rec.get("doi"), 300)
    return CitationMetrics(
        pmid=pmid,
        scoring=_scoring(rcr, provisional, [per_year, expected, field_rate, percentile]),
        relativeCitationRatio=rcr,
        rcrProvisional=(bool(provisional) if rcr is not None and provisional is not None else None),
        nihPercentile=percentile,
        citationCount=count,
        citationsPerYear=per_year,
        expectedCitationsPerYear=expected,
        fieldCitationRate=field_rate,
        apt=share(rec.get("apt")),
        human=share(rec.get("human")),
        animal=share(rec.get("animal")),
        molecularCellular=share(_get(rec, "molecular_cellular", "molCell", "molecularCellular")),
        isClinical=flag(_get(rec, "is_clinical", "isClinicalArticle", "isClinical")),
        citedByClinicalArticle=cited_by_clinical,
        clinicalCitationCount=clinical_count,
        isResearchArticle=flag(_get(rec, "is_research_article", "isResearchArticle")),
        year=year if year is not None and 1000 <= year <= 2200 else None,
        doi=doi if doi and "/" in doi else None,
        title=plain_text(rec.get("title"), 2000),
        journal=plain_text(_get(rec, "journal", "journalNameIso", "journalName"), 300),
    )
