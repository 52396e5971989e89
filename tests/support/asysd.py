"""ASySD-style deduplication datasets (bib-dedupe's benchmark format) for the matcher's tests and
benchmark: reading one, its rows as review records, clustering them as the store would, and
scoring the clusters the way bib-dedupe scores itself."""

from __future__ import annotations

import csv
import time
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path

from medlit.plugins.review.identity.matching import Clusterer
from medlit.plugins.review.identity.matching.fields import split_authors
from medlit.plugins.review.record import Kind, RecordData

KINDS: dict[str, Kind] = {
    "article": "article",
    "inproceedings": "conference",
    "proceedings": "conference",
    "conference": "conference",
    "book": "book",
    "inbook": "chapter",
    "incollection": "chapter",
    "phdthesis": "thesis",
    "mastersthesis": "thesis",
    "techreport": "report",
}


def _value(row: dict[str, str], name: str) -> str | None:
    text = (row.get(name) or "").strip()
    return text if text and text.upper() not in {"UNKNOWN", "NAN"} else None


def as_record(row: dict[str, str]) -> RecordData:
    """A benchmark CSV row as the review's record shape."""
    year = _value(row, "year")
    pages = _value(row, "pages")
    data: RecordData = {
        "kind": KINDS.get((row.get("ENTRYTYPE") or "article").lower(), "other"),
        "title": _value(row, "title"),
        "authors": split_authors(row.get("author") or ""),
        "journal": _value(row, "journal") or _value(row, "booktitle"),
        "year": int(float(year)) if year and year.replace(".", "", 1).isdigit() else None,
        "volume": _value(row, "volume"),
        "issue": _value(row, "number") or _value(row, "issue"),
        "pages": pages.replace("--", "-") if pages else None,
        "doi": _value(row, "doi"),
        "isbn": [_value(row, "isbn") or ""] if _value(row, "isbn") else [],
        "publisher": _value(row, "publisher"),
    }
    return data


@dataclass
class Dataset:
    name: str
    ids: list[str]
    rows: list[dict[str, str]]
    groups: list[list[str]]

    @property
    def true_pairs(self) -> set[tuple[str, str]]:
        return {tuple(sorted(p)) for g in self.groups for p in combinations(g, 2)}  # type: ignore[misc]


def load(path: Path) -> Dataset:
    files = [path / "records_pre_merged.csv"]
    if not files[0].exists():
        files = sorted(path.glob("records_pre_merged_part*.csv"))
    rows: list[dict[str, str]] = []
    for file in files:
        with file.open(newline="", encoding="utf-8") as handle:
            rows.extend(csv.DictReader(handle))
    with (path / "merged_record_ids.csv").open(newline="", encoding="utf-8") as handle:
        groups = [line["merged_ids"].split(";") for line in csv.DictReader(handle)]
    return Dataset(path.name, [r["ID"] for r in rows], rows, groups)


def run_ours(ds: Dataset) -> tuple[list[list[str]], float]:
    """Clusters (ids, file order) and the wall time of normalising and placing every record."""
    start = time.perf_counter()
    clusterer = Clusterer()
    clusters: dict[int, list[str]] = {}
    for member, row in enumerate(ds.rows):
        data = as_record(row)
        found = clusterer.place(member, data)
        cluster = found[0] if found else member
        clusterer.add(cluster, member, data)
        clusters.setdefault(cluster, []).append(row["ID"])
    return list(clusters.values()), time.perf_counter() - start


def per_record(ds: Dataset, kept: Iterable[str]) -> dict[str, float]:
    """bib-dedupe's own scoring (``DedupeBenchmarker.compare_dedupe_id``)."""
    kept_set = set(kept)
    in_groups = {i for g in ds.groups for i in g}
    tp = fp = fn = tn = 0
    for rid in ds.ids:
        if rid not in in_groups:
            if rid in kept_set:
                tn += 1
            else:
                fp += 1
    for group in ds.groups:
        n = sum(1 for i in group if i in kept_set)
        if n == 0:
            fp += 1
            tp += len(group) - 1
        else:
            tn += 1
            fn += n - 1
            tp += len(group) - n
    sens = tp / (tp + fn) if tp + fn else 0.0
    prec = tp / (tp + fp) if tp + fp else 0.0
    return {
        "TP": tp,
        "FP": fp,
        "FN": fn,
        "TN": tn,
        "sensitivity": sens,
        "specificity": tn / (tn + fp) if tn + fp else 0.0,
        "precision": prec,
        "f1": 2 * prec * sens / (prec + sens) if prec + sens else 0.0,
    }


def by_pairs(
    ds: Dataset, clusters: Iterable[Iterable[str]]
) -> tuple[set[tuple[str, str]], set[tuple[str, str]]]:
    """(false merges, missed pairs)."""
    predicted: set[tuple[str, str]] = set()
    for c in clusters:
        predicted |= {tuple(sorted(p)) for p in combinations(c, 2)}  # type: ignore[misc]
    truth = ds.true_pairs
    return predicted - truth, truth - predicted
