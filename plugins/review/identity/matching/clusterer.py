"""In-memory incremental clustering: the algorithm the store runs batch by batch."""

from __future__ import annotations

from ...record import RecordData
from .blocking import block_keys, usable
from .decide import Verdict, compare, conflict, titles_agree
from .work import Work, normalize


class Clusterer:
    """Duplicate groups built one record at a time. A record joins a cluster only if it matches
    one of its members and conflicts with none (an erratum never joins its article's cluster
    through a third record); among clusters it could join, the best score wins, then the lowest
    cluster id, so the outcome does not depend on set or dict order.

    It also knows what only the set as a whole shows: a DOI its records carry under titles that
    disagree (a supplement's, an issue's, a book's) names no single work, and is never used as
    an identity or a conflict (``shared_dois``)."""

    def __init__(self) -> None:
        self._works: dict[int, Work] = {}
        self._cluster_of: dict[int, int] = {}
        self._members: dict[int, list[int]] = {}
        self._index: dict[str, list[int]] = {}
        self._last: tuple[int, Work] | None = None  # place()'s work, reused by the add() after it
        self.shared_dois: set[str] = set()

    def __len__(self) -> int:
        return len(self._works)

    def add(self, cluster: int, member: int, data: RecordData) -> None:
        """File ``member`` (whose record is ``data``) as a member of ``cluster``."""
        last = self._last
        work = last[1] if last is not None and last[0] == member else normalize(data)
        self._last = None
        self._works[member] = work
        self._cluster_of[member] = cluster
        self._members.setdefault(cluster, []).append(member)
        if work.doi and work.doi not in self.shared_dois and self._disagrees(work):
            self.shared_dois.add(work.doi)
        for key in block_keys(work):
            self._index.setdefault(key, []).append(member)

    def place(self, member: int, data: RecordData) -> tuple[int, int, Verdict] | None:
        """The cluster ``data`` duplicates, the member it matched and the verdict, or None."""
        work = normalize(data)
        self._last = (member, work)
        shared: set[str] | frozenset[str] = self.shared_dois
        if work.doi and work.doi not in shared and self._disagrees(work):
            shared = self.shared_dois | {work.doi}
        candidates: set[int] = set()
        for key in block_keys(work):
            filed = self._index.get(key, ())
            if usable(key, len(filed)):
                candidates.update(filed)
        best: dict[int, tuple[int, Verdict]] = {}
        for other in sorted(candidates):
            verdict = compare(work, self._works[other], shared)
            if not verdict.same:
                continue
            cluster = self._cluster_of[other]
            held = best.get(cluster)
            if held is None or verdict.score > held[1].score:
                best[cluster] = (other, verdict)
        ranked = sorted(best.items(), key=lambda item: (-item[1][1].score, item[0]))
        for cluster, (other, verdict) in ranked:
            if not any(conflict(work, self._works[m], shared) for m in self._members[cluster]):
                return cluster, other, verdict
        return None

    def _disagrees(self, work: Work) -> bool:
        """Whether a record filed under ``work``'s DOI has a title that disagrees with its own."""
        works = (self._works[m] for m in self._index.get(f"doi:{work.doi}", ()))
        # copies of one work mostly fold to one title: those need no similarity computed
        return any(other.title != work.title and not titles_agree(work, other) for other in works)
