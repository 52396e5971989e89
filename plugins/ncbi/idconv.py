"""Batched PMC ID Converter lookups: ``pubmed_convert_ids`` and the full-text chain's ID resolver.

:func:`convert_ids` sends one request per 200 ids (the converter's documented cap) and answers
one :class:`Conversion` per requested id, in request order, keyed by the canonical id:

- ids are normalised before they are sent (PMCIDs as ``PMC<digits>``: mixing bare digits and
  prefixed ids can fail a whole batch with HTTP 400; PMIDs without padding; DOIs lower-cased);
- per-record errors (``invalid article id``, ``Identifier not found in PMC``) are kept on
  that id's :class:`Conversion` (``found=False``, ``error``), never raised;
- ``live`` / ``releaseDate`` carry the embargo flags, ``versions`` the PMC versions;
- a request-level failure (HTTP error, top-level ``status: error``) raises
  :class:`~medlit.core.errors.MedlitError`: callers decide whether one failed batch fails the call.

The converter only knows articles in PMC: a PMID with no PMC copy is ``found=False``, not an
error of the service. :func:`convert_mixed` sends PMIDs and DOIs together in one request
(without ``idtype``: the converter recognises ``10.`` DOIs and bare-digit PMIDs apart); the
documentation asks for one type per request, so a batch the converter refuses (HTTP 400) is
retried once per type.

:func:`resolve_pmcids` is the chain's ``idconv`` step (PMID/DOI -> PMCID and DOI; its
``IdResolver`` is declared in the package's ``__init__``): one converter request for every
article of the call that needs it. Per article: ``hit`` (a live PMC copy: its PMCID and DOI are
filled in), ``no-body`` (in PMC but embargoed: no PMCID is given, so PMC is not asked for front
matter only), ``miss`` (no PMC copy). A failed request raises (``service-error``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field

from medlit.core.plugin import ArticleRef, IdKind, MedlitError, TierResult, ToolContext, identifiers

from .parse.idconv import IdConvRecord, parse_idconv

__all__ = ["BATCH_SIZE", "Conversion", "convert_ids", "convert_mixed", "resolve_pmcids"]

BATCH_SIZE = 200


@dataclass
class Conversion:
    """The converter's answer for one requested id."""

    requested: str  # the canonical id that was sent
    idtype: IdKind
    found: bool = False
    pmcid: str | None = None  # "PMC<digits>", version suffix removed
    pmid: str | None = None
    doi: str | None = None  # as the converter spells it
    mid: str | None = None  # NIHMS manuscript id
    live: bool = True  # False: in PMC but not yet released (embargo)
    release_date: str | None = None
    versions: list[str] = field(default_factory=list)  # "PMC123.1", ...
    error: str | None = None  # the converter's errmsg for this id, or why it was not sent

    @property
    def embargoed(self) -> bool:
        return self.found and not self.live


def _key(kind: IdKind, value: str | None) -> str | None:
    if not value:
        return None
    try:
        return str(identifiers.normalize(kind, value))
    except identifiers.IdentifierError:
        return None


def _strip_version(pmcid: str | None) -> str | None:
    return pmcid.split(".", 1)[0] if pmcid else None


def _conversion(requested: str, idtype: IdKind, rec: IdConvRecord | None) -> Conversion:
    if rec is None:
        return Conversion(requested, idtype, error="the ID converter returned no record for this id")
    found = rec.status == "ok" and bool(rec.pmcid or rec.pmid)
    return Conversion(
        requested=requested,
        idtype=idtype,
        found=found,
        pmcid=_strip_version(rec.pmcid) if found else None,
        pmid=rec.pmid if found else None,
        doi=rec.doi,
        mid=rec.mid,
        live=rec.live if found else True,
        release_date=rec.release_date,
        versions=[v.pmcid for v in rec.versions if v.pmcid],
        error=None if found else (rec.errmsg or "not found in PMC"),
    )


def _match(batch: Sequence[str], idtype: IdKind, records: Sequence[IdConvRecord]) -> dict[str, IdConvRecord]:
    """Records by requested id: by ``requested-id`` or the id field of the requested type,
    else by position when the converter answered one record per id in order."""
    wanted = set(batch)
    out: dict[str, IdConvRecord] = {}
    leftovers: list[tuple[int, IdConvRecord]] = []
    for pos, rec in enumerate(records):
        key = _key(idtype, rec.requested_id) or _key(idtype, getattr(rec, idtype))
        if key in wanted and key not in out:
            out[key] = rec
        else:
            leftovers.append((pos, rec))
    if len(records) == len(batch):
        for pos, rec in leftovers:
            if batch[pos] not in out:
                out[batch[pos]] = rec
    return out


async def convert_ids(ctx: ToolContext, ids: Sequence[str], idtype: IdKind) -> dict[str, Conversion]:
    """Convert ``ids`` (all of one ``idtype``) with the PMC ID Converter.

    Returns ``{canonical id: Conversion}`` in request order, duplicates folded. Ids that do not
    normalise are answered locally (``found=False`` with the reason) and not sent. Batches of
    :data:`BATCH_SIZE` run concurrently on the shared NCBI pacer. Raises ``MedlitError`` when a
    request fails as a whole.
    """
    order: list[str] = []
    out: dict[str, Conversion] = {}
    for raw in ids:
        try:
            key = identifiers.normalize(idtype, raw)
        except identifiers.IdentifierError as exc:
            out.setdefault(raw, Conversion(raw, idtype, error=str(exc)))
            continue
        if key not in out:
            order.append(key)
            out[key] = Conversion(key, idtype)
    groups = identifiers.batches(order, BATCH_SIZE)

    async def one(batch: list[str]) -> None:
        resp = await ctx.client("idconv").get("", {"ids": ",".join(batch), "idtype": idtype}, expect="json")
        matched = _match(batch, idtype, parse_idconv(resp.body).records)
        for key in batch:
            out[key] = _conversion(key, idtype, matched.get(key))

    if groups:
        await asyncio.gather(*(one(b) for b in groups))
    return out


async def convert_mixed(
    ctx: ToolContext, items: Sequence[tuple[IdKind, str]]
) -> dict[tuple[IdKind, str], Conversion]:
    """Convert ids of several types (PMIDs and DOIs) in as few requests as possible.

    Returns ``{(idtype, canonical id): Conversion}``. One type only is :func:`convert_ids`;
    several go together, 200 ids a request, and fall back to one request per type when the
    converter refuses the mixed batch.
    """
    kinds = sorted({k for k, _ in items})
    if len(kinds) <= 1:
        if not kinds:
            return {}
        return {
            (kinds[0], key): conv
            for key, conv in (await convert_ids(ctx, [v for _, v in items], kinds[0])).items()
        }
    order: list[tuple[IdKind, str]] = []
    out: dict[tuple[IdKind, str], Conversion] = {}
    for kind, raw in items:
        try:
            key = identifiers.normalize(kind, raw)
        except identifiers.IdentifierError as exc:
            out.setdefault((kind, raw), Conversion(raw, kind, error=str(exc)))
            continue
        if (kind, key) not in out:
            order.append((kind, key))
            out[(kind, key)] = Conversion(key, kind)
    groups = identifiers.batches(order, BATCH_SIZE)

    async def one(batch: list[tuple[IdKind, str]]) -> None:
        try:
            resp = await ctx.client("idconv").get("", {"ids": ",".join(v for _, v in batch)}, expect="json")
        except MedlitError as err:
            if err.reason != "ncbi_bad_request":
                raise
            for kind in {k for k, _ in batch}:  # the converter wants one type per request
                part = await convert_ids(ctx, [v for k, v in batch if k == kind], kind)
                out.update({(kind, key): conv for key, conv in part.items()})
            return
        wanted = set(batch)
        matched: dict[tuple[IdKind, str], IdConvRecord] = {}
        for rec in parse_idconv(resp.body).records:
            for rec_kind in ("doi", "pmid"):
                # The echoed requested id decides; without one, the record's own id of that type.
                value = _key(rec_kind, rec.requested_id or getattr(rec, rec_kind))
                if value is not None and (rec_kind, value) in wanted and (rec_kind, value) not in matched:
                    matched[(rec_kind, value)] = rec
                    break
        for kind, key in batch:
            out[(kind, key)] = _conversion(key, kind, matched.get((kind, key)))

    if groups:
        await asyncio.gather(*(one(b) for b in groups))
    return out


# -- the chain's ID resolution step -----------------------------------------------------------
def _known(doi: str | None, pmid: str | None = None, pmcid: str | None = None) -> dict[IdKind, str]:
    found: dict[IdKind, str | None] = {"doi": doi, "pmid": pmid, "pmcid": pmcid}
    return {k: v for k, v in found.items() if v}


def _outcome(ref: ArticleRef, conv: Conversion) -> TierResult:
    """What the converter knows about ``ref`` (the ids it found) and what it means for PMC."""
    label = f"{'PMID' if conv.idtype == 'pmid' else 'DOI'} {conv.requested}"
    if conv.found and conv.pmcid and conv.embargoed:
        # In PMC but not yet released: PMC would serve front matter only, so no PMCID is given.
        until = f" until {conv.release_date}" if conv.release_date else ""
        return TierResult(
            "no-body",
            f"{label} is in PMC as {conv.pmcid} but embargoed{until}; PMC was not asked",
            ids=_known(doi=conv.doi, pmid=conv.pmid),
        )
    if conv.found and conv.pmcid:
        return TierResult(
            "hit",
            f"{label} is {conv.pmcid} in PMC",
            ids=_known(doi=conv.doi, pmid=conv.pmid, pmcid=conv.pmcid),
        )
    return TierResult(
        "miss",
        f"{label} has no PMC copy per the PMC ID Converter ({conv.error or 'not found'})",
        ids=_known(doi=conv.doi),
    )


async def resolve_pmcids(refs: Sequence[ArticleRef], ctx: ToolContext) -> dict[str, TierResult]:
    """PMCIDs (and DOIs) for articles named by PMID or DOI: one converter request for all of them
    (by PMID when an article has both)."""
    asked: dict[str, tuple[IdKind, str]] = {}
    for ref in refs:
        kind: IdKind | None = "pmid" if ref.pmid else "doi" if ref.doi else None
        if kind is not None:
            value = getattr(ref, kind)
            asked[ref.key] = (kind, _key(kind, value) or value)
    answers = await convert_mixed(ctx, list(asked.values()))
    out: dict[str, TierResult] = {}
    for ref in refs:
        if ref.key not in asked:
            continue  # carries neither id kind: the chain reports it as not answered
        conv = answers.get(asked[ref.key])
        out[ref.key] = (
            _outcome(ref, conv) if conv else TierResult("miss", "the PMC ID Converter returned no record")
        )
    return out
