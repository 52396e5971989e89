"""Which format an export is in, told from its content; the file name only breaks a tie."""

from __future__ import annotations

import re

_HEAD = 65536
_RIS_TY = re.compile(r"^TY {1,2}- ", re.MULTILINE)
_RIS_ER = re.compile(r"^ER {1,2}-[ \t]*$", re.MULTILINE)
_RIS_TAG = re.compile(r"^[A-Z][A-Z0-9] {1,2}- ", re.MULTILINE)
_MEDLINE_PMID = re.compile(r"^PMID- ?\d", re.MULTILINE)
_MEDLINE_TAG = re.compile(
    r"^(?:FAU|STAT|OWN|JT|TA|DP|PG|LID|AID|MH|PT|PL|EDAT|CRDT|MHDA|JID|SO|IS|VI|IP|DCOM|LR|UI|YR) {0,2}- ",
    re.MULTILINE,
)
_WOS_TAG = re.compile(r"^(?:PT [A-Z]|AU |AF |TI |SO |UT |PY |DI )", re.MULTILINE)
_WOS_END = re.compile(r"^ER\s*$", re.MULTILINE)
_OVID_NUMBER = re.compile(r"^<\s*\d+\.?\s*>\s*$", re.MULTILINE)
# Ovid's own tagged output: "<241. >" then "VN  - Ovid Technologies" and MEDLINE-style tags
_OVID_TAGGED = re.compile(r"^<\s*\d+\.?\s*>\s*\n+\s*VN {1,2}- Ovid", re.MULTILINE)
_REFER = re.compile(r"^%[0ATJDBVNPKXRM@] ", re.MULTILINE)
_REFWORKS = re.compile(r"^RT [A-Z][a-z]+", re.MULTILINE)
_REFWORKS_TAG = re.compile(r"^(?:A1|T1|JF|YR|FD|VO|SP|OP|K1|UL|DS) ", re.MULTILINE)
_OVID_LABEL = re.compile(
    r"^(?:Unique Identifier|Accession Number|Title|Authors?|Source|Abstract|Database)\s*$", re.MULTILINE
)
_BIBTEX = re.compile(r"^\s*@\s*[A-Za-z]+\s*[{(]", re.MULTILINE)
_ENDNOTE = re.compile(r"<(?:xml|records|record)>")
_EXTENSIONS = {
    "ris": "ris",
    "enw": "refer",
    "ovd": "ovid_tagged",
    "nbib": "medline",
    "medline": "medline",
    "ciw": "wos",
    "isi": "wos",
    "bib": "bibtex",
    "bibtex": "bibtex",
    "json": "csljson",
    "xml": "endnote_xml",
    "csv": "csv",
    "tsv": "tsv",
    "tab": "tsv",
}


def _extension(filename: str | None) -> str | None:
    if not filename or "." not in filename:
        return None
    return _EXTENSIONS.get(filename.rsplit(".", 1)[1].lower())


def detect(text: str, filename: str | None = None) -> str | None:
    """``"ris"``, ``"medline"``, ``"ovid"``, ``"ovid_tagged"``, ``"refer"``, ``"refworks"``,
    ``"endnote_xml"``, ``"wos"``, ``"wos_tab"``, ``"bibtex"``, ``"csljson"``, ``"csv"``, ``"tsv"``,
    or ``None`` when the content is none of them."""
    head = text[:_HEAD].lstrip("\ufeff")
    start = head.lstrip()
    if not start:
        return None
    tagged = _tagged_kind(head, start)
    if tagged:
        return tagged
    if start.startswith("<") and not _OVID_NUMBER.match(start):
        return "endnote_xml" if _ENDNOTE.search(head[:8192]) else None
    if start[0] in "[{":
        return "csljson"
    first_line = start.split("\n", 1)[0]
    tagged = _web_of_science(head, first_line)
    if tagged:
        return tagged
    scores = {
        "ris": 10 * (len(_RIS_TY.findall(head)) + len(_RIS_ER.findall(head))),
        "medline": 10 * len(_MEDLINE_PMID.findall(head)) + len(_MEDLINE_TAG.findall(head)),
        "wos": 10 * len(_WOS_END.findall(head)) + len(_WOS_TAG.findall(head)) if _WOS_END.search(head) else 0,
        "ovid": 10 * len(_OVID_NUMBER.findall(head)) + len(_OVID_LABEL.findall(head))
        if _OVID_LABEL.search(head)
        else 0,
        "bibtex": 10 * len(_BIBTEX.findall(head)),
    }
    # Tag lines with neither TY/ER (RIS) nor a MEDLINE-only tag: RIS written loosely.
    if scores["ris"] == 0 and scores["medline"] == 0 and len(_RIS_TAG.findall(head)) >= 3:
        scores["ris"] = len(_RIS_TAG.findall(head))
    best = max(scores.values())
    if best > 0:
        tied = [name for name, score in scores.items() if score == best]
        preferred = _extension(filename)
        return preferred if preferred in tied else tied[0]
    if len(first_line) < 100_000 and any(sep in first_line for sep in ("\t", ";", ",")):
        return _table_kind(head, filename)
    return None


def _tagged_kind(head: str, start: str) -> str | None:
    """Ovid's tagged output, EndNote's refer (``%A``) or RefWorks' tagged format: each told by the
    way its first record opens, since their tag lines are unlike RIS's or MEDLINE's."""
    if _OVID_TAGGED.match(start):
        return "ovid_tagged"
    if start.startswith("%") and len(_REFER.findall(head)) >= 2:
        return "refer"
    if start.startswith("RT ") and _REFWORKS.match(start) and len(_REFWORKS_TAG.findall(head)) >= 2:
        return "refworks"
    return None


def _web_of_science(head: str, first_line: str) -> str | None:
    """``"wos"`` (tagged lines) or ``"wos_tab"`` (tab-delimited with WoS's tag columns), else None."""
    if re.match(r"(?:FN |VR )", first_line) or (
        first_line.startswith("PT ") and (_WOS_END.search(head) or len(_WOS_TAG.findall(head)) >= 3)
    ):
        return "wos"
    cells = first_line.split("\t")
    if (
        len(cells) > 5
        and cells[0].strip('"') in ("PT", "FN")
        and {"AU", "TI"} <= {c.strip('"') for c in cells}
    ):
        return "wos_tab"
    return None


def _table_kind(head: str, filename: str | None) -> str:
    lines = [line for line in head.split("\n")[:10] if line.strip()]
    tabs = sum(line.count("\t") for line in lines)
    others = max(sum(line.count(",") for line in lines), sum(line.count(";") for line in lines))
    if tabs and tabs >= others:
        return "tsv"
    if tabs and _extension(filename) == "tsv":
        return "tsv"
    return "csv"
