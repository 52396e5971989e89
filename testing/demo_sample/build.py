"""Rebuild ``records.json`` and the bundled export from the project's recorded corpus.

Run from the worktree root: ``python testing/demo_sample/build.py ../shared/corpus``. It reads

- the 20 records already read from the suite's ESummary fixture (``tests/fixtures/ncbi/pubmed_esummary.json``),
- the SYNERGY review Jeyaraman 2020 (``synergy/Jeyaraman_2020/works_1.zip``: OpenAlex's recorded
  work JSON of a knee cartilage / mesenchymal stem cell review), of which it keeps :data:`KEEP`
  records (title, authors, journal, year, DOI, PMID, PMCID, abstract, the references among the
  kept ones and OpenAlex's citation count),
- two PMC open-access articles (``pmc/jats_oa``), whose JATS front matter becomes their records
  and whose files are copied beside this script,

and writes ``records.json`` and ``openalex_export.ris`` (the first :data:`EXPORTED` knee records,
as OpenAlex's RIS export lays them out, for ``review_import``). Nothing is invented: every field
is read from a recording; the README says what each file holds.
"""

from __future__ import annotations

import json
import re
import shutil
import sys
import zipfile
from pathlib import Path
from typing import Any

from lxml import etree

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
KEEP = 30  # knee records in PubMed's sample: those with a PMID and an abstract, in the review's order
EXPORTED = 8  # records in the OpenAlex export: the next three (OpenAlex's alone) and the first five
FULL_TEXTS = {
    "pmc_5608867_springer.xml": "pmc5608867.xml",  # CC BY 4.0
    "bmc_oralhealth_1472-6831-8-11.nxml": "pmc2329613.xml",  # CC BY 2.0
}


_PARTICLES = {"van", "von", "de", "der", "den", "da", "di", "du", "del", "dos", "le", "la"}


def _tail(url: str | None) -> str:
    return (url or "").rstrip("/").rsplit("/", 1)[-1]


def _abstract(index: dict[str, list[int]] | None) -> str:
    if not index:
        return ""
    at = {i: word for word, spots in index.items() for i in spots}
    return " ".join(at[i] for i in sorted(at))


def _person(display: str) -> str:
    """'Jane A. Smith' as PubMed writes it: 'Smith JA'."""
    words = display.replace(".", " ").split()
    if len(words) < 2:
        return display
    last = [words.pop()]
    while len(words) > 1 and words[-1].lower() in _PARTICLES:
        last.insert(0, words.pop())
    return f"{' '.join(last)} {''.join(w[0] for w in words if w[0].isalpha()).upper()}"


def _well_named(work: dict[str, Any]) -> bool:
    """Whether OpenAlex spelled every author as given names then family name (it has records with
    'Williams Rj rd' and 'ShimomuraKazunori', which no reader would take for names)."""
    names = [a["author"]["display_name"] or "" for a in work.get("authorships") or []]
    return bool(names) and all(
        len(n.split()) >= 2 and n.split()[-1][:1].isupper() and len(n.split()[-1]) > 2 for n in names
    )


def _kept(work: dict[str, Any]) -> bool:
    """A journal article with a PMID, an abstract, a journal and well-spelled authors, about stem
    or stromal cells and the knee."""
    if (
        not (work["ids"].get("pmid") and work.get("abstract_inverted_index"))
        or work.get("type") != "journal-article"
    ):
        return False
    text = f"{work['title']} {_abstract(work['abstract_inverted_index'])}"
    journal = ((work.get("primary_location") or {}).get("source") or {}).get("display_name")
    return bool(
        journal
        and _well_named(work)
        and re.search(r"stem cell|stromal", text, re.I)
        and "knee" in text.lower()
    )


def _knee_record(w: dict[str, Any], pmid_of: dict[str, str]) -> dict[str, Any]:
    source = w["primary_location"]["source"]["display_name"]
    biblio = w.get("biblio") or {}
    pages = "-".join(p for p in (biblio.get("first_page"), biblio.get("last_page")) if p)
    return {
        "pmid": pmid_of[w["id"]],
        "title": w["title"],
        "authors": [_person(a["author"]["display_name"]) for a in w["authorships"]][:12],
        "journal": source,
        "source": source,
        "year": w.get("publication_year"),
        "volume": biblio.get("volume") or "",
        "issue": biblio.get("issue") or "",
        "pages": pages,
        "doi": (w.get("doi") or "").removeprefix("https://doi.org/") or None,
        "pmcid": f"PMC{_tail(w['ids']['pmcid'])}" if w["ids"].get("pmcid") else None,
        "pubtypes": ["Journal Article"],
        "abstract": _abstract(w["abstract_inverted_index"]),
        "cites": [pmid_of[r] for r in w.get("referenced_works") or [] if r in pmid_of],
        "citedByCount": w.get("cited_by_count"),
        "origin": f"openalex:{_tail(w['id'])}",
    }


def _knee_records(corpus: Path) -> list[dict[str, Any]]:
    zipped = zipfile.ZipFile(corpus / "synergy" / "Jeyaraman_2020" / "works_1.zip")
    works = [w for name in sorted(zipped.namelist()) for w in json.loads(zipped.read(name))]
    wanted = [w for w in works if _kept(w)][: KEEP + 3]
    pmid_of = {w["id"]: _tail(w["ids"]["pmid"]) for w in wanted}
    return [_knee_record(w, pmid_of) for w in wanted]


def _text(node: Any, path: str) -> str:
    found = node.find(path)
    return re.sub(r"\s+", " ", "".join(found.itertext())).strip() if found is not None else ""


def _abstract_text(meta: Any) -> str:
    """The abstract's sections as 'Title: text', one after another (their headings and text
    would otherwise run together)."""
    abstract = meta.find("abstract")
    if abstract is None:
        return ""
    sections = abstract.findall("sec")
    if not sections:
        return _text(meta, "abstract")
    parts = [
        f"{_text(sec, 'title')}: {' '.join(_text(p, '.') for p in sec.findall('p'))}" for sec in sections
    ]
    return " ".join(parts)


def _full_text_record(path: Path) -> dict[str, Any]:
    root = etree.parse(str(path)).getroot()
    meta = root.find(".//article-meta")
    if meta is None:
        raise ValueError(f"{path.name}: no article-meta")
    ids = {i.get("pub-id-type"): (i.text or "").strip() for i in meta.findall("article-id")}
    authors = [
        f"{_text(c, 'name/surname')} {''.join(w[0] for w in _text(c, 'name/given-names').split())}"
        for c in meta.findall("contrib-group/contrib[@contrib-type='author']")
        if c.find("name") is not None
    ]
    year = _text(meta, "pub-date/year")
    journal = _text(root, ".//journal-meta//journal-title")
    pages = "-".join(dict.fromkeys(p for p in (_text(meta, "fpage"), _text(meta, "lpage")) if p))
    return {
        "pmid": ids.get("pmid", ""),
        "title": _text(meta, "title-group/article-title"),
        "authors": authors,
        "journal": journal,
        "source": _text(root, ".//journal-meta/journal-id[@journal-id-type='iso-abbrev']") or journal,
        "year": int(year) if year.isdigit() else None,
        "volume": _text(meta, "volume"),
        "issue": _text(meta, "issue"),
        "pages": pages or _text(meta, "elocation-id"),
        "doi": ids.get("doi"),
        "pmcid": "PMC" + (ids.get("pmc") or ids.get("pmcid") or "").removeprefix("PMC"),
        "pubtypes": ["Case Reports"] if root.get("article-type") == "case-report" else ["Journal Article"],
        "abstract": _abstract_text(meta),
        "origin": f"pmc-jats:{path.name}",
    }


def _esummary_records() -> list[dict[str, Any]]:
    """The 20 records read earlier from the suite's ESummary fixture, kept as they are (the
    invented records of the first sample, PMIDs 371000xx, dropped)."""
    kept = json.loads((HERE / "records.json").read_text(encoding="utf-8"))["records"]
    return [
        {**r, "origin": "esummary:tests/fixtures/ncbi/pubmed_esummary.json"}
        for r in kept
        if not r["pmid"].startswith("371000") and r.get("origin", "esummary:").startswith("esummary:")
    ]


def _ris(records: list[dict[str, Any]]) -> str:
    """OpenAlex's RIS layout (as its web export writes it: TY, TI, AU, PY, DA, JO, VL, IS, SP, EP,
    DO, AB, UR, ER)."""
    lines: list[str] = []
    for r in records:
        first, _, last = r["pages"].partition("-")
        lines += ["TY  - JOUR", f"TI  - {r['title']}"]
        lines += [f"AU  - {a}" for a in r["authors"]]
        lines += [f"PY  - {r['year']}", f"JO  - {r['journal']}"]
        lines += [f"VL  - {r['volume']}"] if r["volume"] else []
        lines += [f"IS  - {r['issue']}"] if r["issue"] else []
        lines += [f"SP  - {first}"] if first else []
        lines += [f"EP  - {last}"] if last else []
        lines += [f"DO  - https://doi.org/{r['doi']}"] if r.get("doi") else []
        lines += [
            f"AB  - {r['abstract']}",
            f"UR  - https://openalex.org/{r['origin'].split(':')[1]}",
            "ER  - ",
            "",
        ]
    return "\n".join(lines)


def main(corpus: Path) -> None:
    knee = _knee_records(corpus)
    jats = corpus / "pmc" / "jats_oa"
    full = [_full_text_record(jats / name) for name in FULL_TEXTS]
    for name, copy in FULL_TEXTS.items():
        shutil.copyfile(jats / name, HERE / copy)
    kept = {r["pmid"] for r in knee[:KEEP]}
    for r in knee:  # references to records the sample keeps, for ELink and iCite
        r["cites"] = [p for p in r["cites"] if p in kept]
    records = _esummary_records() + knee[:KEEP] + full
    (HERE / "records.json").write_text(json.dumps({"records": records}, ensure_ascii=False, indent=1) + "\n")
    # the export: three knee records PubMed's sample lacks (in OpenAlex alone) and five it holds
    exported = knee[KEEP:] + knee[: EXPORTED - 3]
    (HERE / "openalex_export.ris").write_text(_ris(exported), encoding="utf-8")


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else ROOT.parent / "shared" / "corpus"))
