"""Which PRISMA 2020 identification route a set's source belongs to: a bibliographic database, a
study register, or "other methods" (the template's second column).

A source is a search source's name (``pubmed``) or the database label given to ``review_import``.
A route said outright wins (:func:`declared`): the ``kind`` a plugin declares for its search source
(``SearchSource.kind``: ClinicalTrials.gov's is ``register``), or the ``sourceKind`` given with an
imported file. Otherwise the route is read from the label, with no setting to keep in step:

- **other methods**: a label that starts with one of the template's other methods or a close
  variant, case-insensitive: "Citation searching", "Websites", "Organisations", "Hand searching",
  "Reference lists", "Other methods", e.g. ``Citation searching (backward)`` or ``Website: WHO``;
- **register**: a label that names a trials register (ClinicalTrials.gov, WHO ICTRP, EU CTR/CTIS,
  ISRCTN, ANZCTR, ...); "Cochrane Central Register of Controlled Trials" is a database, as PRISMA
  counts it, so a bare "register" in a name is not enough;
- **database**: everything else.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Literal

from medlit.core.plugin import SearchSource

from ..store import SearchRow

Route = Literal["database", "register", "other"]

# the template's examples (websites, organisations, citation searching) and their usual variants
OTHER_METHODS = (
    "citation",
    "website",
    "web site",
    "web search",
    "organisation",
    "organization",
    "hand search",
    "handsearch",
    "hand-search",
    "reference list",
    "snowball",
    "other method",
    "other source",
)
# trials registers by the names and acronyms they are searched under
REGISTERS = re.compile(
    r"clinicaltrials\.gov|\bct\.?gov\b|\bictrp\b|\beu ?ctr\b|\bctis\b|\bisrctn\b|\banzctr\b|\bchictr\b"
    r"|\bctri\b|\bdrks\b|\bjrct\b|\bumin\b|\bpactr\b|\brebec\b|\bntr\b|\bslctr\b|\birct\b"
    r"|trials? regist(?:er|ry)",
    re.IGNORECASE,
)


def declared(sources: Iterable[SearchSource], searches: Iterable[SearchRow] = ()) -> dict[str, Route]:
    """The routes said outright: each search source's declared ``kind``, and the ``sourceKind`` a
    user gave an imported file (a later file of the same database saying otherwise wins)."""
    out: dict[str, Route] = {s.name: s.kind for s in sources}
    for run in searches:
        kind = (run.options.get("import") or {}).get("sourceKind") if run.is_import else None
        if kind in ("database", "register", "other"):
            out[run.source] = kind
    return out


def route(source: str, kinds: Mapping[str, Route] | None = None) -> Route:
    """The route of one source: the one ``kinds`` declares for it (:func:`declared`), else read
    from its label (module docstring)."""
    if kinds and source in kinds:
        return kinds[source]
    label = " ".join(source.lower().replace("_", " ").split())
    if label.startswith(OTHER_METHODS):
        return "other"
    if REGISTERS.search(label):
        return "register"
    return "database"
