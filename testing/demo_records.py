"""The ``medlit demo`` sample's records and the query language the demo's fake evaluates over them.

``demo_sample/records.json`` (its README says where each record was recorded) holds PubMed-like
records; :func:`matching` evaluates a PubMed query over them (words, phrases, ``*`` truncation,
AND/OR/NOT, brackets, the tags ``[tiab]``/``[ti]``/``[ab]``/``[mh]`` (title and abstract: the
sample has no MeSH), ``[au]``, ``[ta]``/``[journal]``, ``[pt]``, ``[dp]`` years and ranges,
``[uid]``/``[pmid]``, ``[doi]``) and a Europe PMC one alike (``TITLE:``, ``ABSTRACT:``, ``AUTH:``,
``JOURNAL:``, ``PUB_YEAR:``, ``PUB_TYPE:``, ``EXT_ID:``, ``PMCID:``, ``DOI:``, ``SRC:``,
``OPEN_ACCESS:``). The full texts are the sample's PMC articles (:data:`FULL_TEXTS`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

SAMPLE = Path(__file__).resolve().parent / "demo_sample"
FULL_TEXTS = {"5608867": "pmc5608867.xml", "2329613": "pmc2329613.xml"}
Record = dict[str, Any]


@cache
def records() -> tuple[Record, ...]:
    data: list[Record] = json.loads((SAMPLE / "records.json").read_text(encoding="utf-8"))["records"]
    return tuple(data)


# -- the query language -------------------------------------------------------------------------

_TOKEN = re.compile(
    r'\s*(?:([A-Z_]+):(?:"([^"]*)"|\[([^\]]*)\]|([^\s()"]+))'  # Europe PMC's FIELD:value
    r'|(\()|(\))|"([^"]*)"\s*(\[[^\]]*\])?|([^\s()"]+))'
)
# Europe PMC's fields as the tags the terms below know
_EPMC_FIELDS = {
    "TITLE": "ti",
    "ABSTRACT": "ab",
    "AUTH": "au",
    "JOURNAL": "ta",
    "PUB_YEAR": "dp",
    "PUB_TYPE": "pt",
    "EXT_ID": "pmid",
    "PMCID": "pmcid",
    "DOI": "doi",
    "SRC": "src",
    "OPEN_ACCESS": "oa",
    "HAS_FT": "oa",
}
_TAG = re.compile(r"^(.*?)\[([^\]]*)\]$")
Test = Callable[[Record], bool]


def _tokens(query: str) -> list[tuple[str, str, str]]:
    """``(kind, text, tag)``: kind is ``(``, ``)``, ``op`` or ``term``."""
    out: list[tuple[str, str, str]] = []
    for m in _TOKEN.finditer(query):
        field, *value = m.groups()[:4]
        opened, closed, phrase, phrase_tag, word = m.groups()[4:]
        if field:
            text = next(v for v in value if v is not None)
            out.append(("term", text, _EPMC_FIELDS.get(field, field.lower())))
        elif opened or closed:
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


def _identity(text: str, tag: str) -> Test | None:
    """A test for the tags that name one record (PMID, PMCID, DOI) or a source or availability,
    else ``None``."""
    value = text.strip().lower()
    if tag in ("uid", "pmid"):
        return lambda r: r["pmid"] == value
    if tag == "pmcid":
        return lambda r: (r.get("pmcid") or "").lower() == value
    if tag in ("doi", "aid", "lid"):
        return lambda r: (r.get("doi") or "").lower() == value
    if tag == "src":
        return lambda r: value == "med"  # every record is PubMed's (Europe PMC's MED)
    if tag == "oa":
        return lambda r: (value == "y") == ((r.get("pmcid") or "").removeprefix("PMC") in FULL_TEXTS)
    return None


def _term(text: str, tag: str) -> Test:
    """Whether a record matches one term: years for ``[dp]``, an identifier's equality, else its
    words in the tag's fields (a phrase as consecutive words, ``*`` as a prefix)."""
    tag = tag.lower()
    if tag in ("dp", "pdat", "date - publication"):
        span = _years(text)
        return lambda r: span is not None and r.get("year") is not None and span[0] <= r["year"] <= span[1]
    if (same := _identity(text, tag)) is not None:
        return same
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


def by_pmid() -> dict[str, Record]:
    return {r["pmid"]: r for r in records()}


def full_text(digits: str) -> bytes:
    """The sample's JATS article for a PMCID's digits, without its XML prolog."""
    text = (SAMPLE / FULL_TEXTS[digits]).read_bytes()
    return re.sub(rb"^\s*(<\?xml[^>]*\?>\s*)?(<!DOCTYPE[^>]*>\s*)?", b"", text)
