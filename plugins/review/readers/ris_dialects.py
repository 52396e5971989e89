"""Where each database and reference manager puts a record's PMID and its own accession number
in RIS. RIS names a tag for the DOI (``DO``) but none for either id, so every exporter picked
free tags of its own, and the same tag means different things from one to the next (``C2`` is
Scopus's PubMed ID but EndNote's PMCID; ``C5`` is Embase's PMID but another's "packaging"):

- Embase (embase.com): ``C5`` the MEDLINE PMID, ``U2`` the Embase accession ("L2029880245");
  through EndNote the accession lands in ``N1`` and the record link (``UR ...id=L...``).
- Scopus: ``C2`` the PubMed ID, the EID in the ``UR`` link ("eid=2-s2.0-85214459603").
- Web of Science: ``AN`` "WOS:000082252000006", the PMID, when any, in ``PM``.
- Ovid (any database): ``ID`` the accession ("2021-94054-001" PsycInfo, "20203150108" CAB),
  which is the PMID for Ovid MEDLINE.
- EBSCOhost (CINAHL, APA PsycInfo, Academic Search, MEDLINE): ``AN`` the accession, the PMID for
  EBSCO's MEDLINE (``DB`` "MEDLINE" or the short code "cmedm").
- ProQuest: ``AN`` the ProQuest document id; the PMID, when any, in a note ("PMID: ...").
- Cochrane CENTRAL: ``AN`` "CN-00778158", ``C3`` "PUBMED 21314913,EMBASE 643589775".
- Reference managers (EndNote, Zotero, Mendeley, RefWorks): ``AN`` with ``DB`` "PubMed"/"NLM"
  when the record came from PubMed, ``C2``/``M2`` "PMC..." for the PMCID, notes "PMID: ...".
"""

from __future__ import annotations

import re

Values = dict[str, list[str]]

_EMBASE_ACCESSION = re.compile(r"(?<![A-Za-z0-9])L(\d{8,12})\b")
_SCOPUS_EID = re.compile(r"eid=(2-s2\.0-\d+)")
_PMID_ONLY = re.compile(r"^\s*(\d{1,9})\s*$")


def database_text(values: Values) -> str:
    """What the record says of its source, lowercased (``DB``, ``DP`` and the link's host)."""
    return " ".join(values.get("DB", []) + values.get("DP", []) + values.get("UR", [])[:2]).lower()


def _bare_pmid(value: str | None) -> str | None:
    match = _PMID_ONLY.match(value or "")
    return match.group(1) if match else None


def pmid(values: Values) -> str | None:
    """The PMID from the tag this record's database keeps it in, ``None`` when it has none there
    (notes naming "PMID: ..." are read elsewhere, for every dialect)."""
    source = database_text(values)
    tags: list[str] = ["PM"]
    if "embase" in source:
        # Embase names MEDLINE among its sources; its own numbers are never PMIDs
        tags.append("C5")
    elif "scopus" in source:
        tags.append("C2")
    elif any(word in source for word in ("medline", "pubmed", "nlm", "cmedm")):
        # a reference manager's ``ID`` is its own record number, Ovid's is the accession
        tags += ["AN", "ID"] if "ovid" in source else ["AN"]
    for tag in tags:
        for value in values.get(tag, []):
            found = _bare_pmid(value)
            if found:
                return found
    return None


def accession(values: Values) -> str | None:
    """The exporting database's own id of the record (Embase "L...", Scopus EID, WoS "WOS:...",
    Ovid's ``ID``, EBSCOhost's or ProQuest's ``AN``), ``None`` when it gives none."""
    source = database_text(values)
    if "embase" in source:
        for tag in ("U2", "N1", "UR", "AN"):
            for value in values.get(tag, []):
                match = _EMBASE_ACCESSION.search(value)
                if match:
                    return "L" + match.group(1)
    if "scopus" in source:
        for value in values.get("UR", []):
            match = _SCOPUS_EID.search(value)
            if match:
                return match.group(1)
    for tag in ("AN", "ID"):
        for value in values.get(tag, []):
            if value.strip():
                return value.strip()
    return None
