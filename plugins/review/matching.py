"""STAND-IN (not committed): exact-key matching behind the agreed Clusterer API."""

from __future__ import annotations
from dataclasses import dataclass, field
from typing import Any
from .dedup import keys_of, clean_doi
from .record import RecordData


@dataclass(frozen=True)
class Work:
    keys: dict
    data: dict


def normalize(data: RecordData) -> Work:
    return Work(keys_of(data), dict(data))


def block_keys(work: Work) -> frozenset[str]:
    return frozenset(f"{r}:{k}" for r, k in work.keys.items() if k)


@dataclass(frozen=True)
class Verdict:
    same: bool
    rule: str
    score: float
    why: str


def conflict(a: Work, b: Work) -> str | None:
    for k in ("pmid", "doi", "pmcid"):
        if a.data.get(k) and b.data.get(k) and a.data[k] != b.data[k]:
            return k
    return None


def compare(a: Work, b: Work) -> Verdict:
    c = conflict(a, b)
    if c:
        return Verdict(False, "conflict:" + c, 0.0, c)
    for r in ("pmid", "doi", "pmcid", "title"):
        if a.keys.get(r) and a.keys.get(r) == b.keys.get(r):
            return Verdict(True, r, 1.0, r)
    return Verdict(False, "different", 0.0, "")


class Clusterer:
    def __init__(self) -> None:
        self.members: dict[int, list[tuple[int, Work]]] = {}
        self.by_key: dict[str, set[int]] = {}

    def add(self, cluster: int, member: int, data: RecordData) -> None:
        w = normalize(data)
        self.members.setdefault(cluster, []).append((member, w))
        for k in block_keys(w):
            self.by_key.setdefault(k, set()).add(cluster)

    def place(self, member: int, data: RecordData):
        w = normalize(data)
        cands = sorted({c for k in block_keys(w) for c in self.by_key.get(k, ())})
        for c in cands:
            ms = self.members[c]
            if any(conflict(w, m) for _, m in ms):
                continue
            for mid, m in ms:
                v = compare(w, m)
                if v.same:
                    return c, mid, v
        return None
