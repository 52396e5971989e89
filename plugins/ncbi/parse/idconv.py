"""PMC ID Converter answers (api/v1 and the old v1.0 JSON, and XML), per-record errors kept on
their record. Pure: no I/O.
"""

from __future__ import annotations

from typing import Any, Literal
from urllib.parse import unquote

from pydantic import Field

from medlit.core.plugin import MedlitError, errors, identifiers, markup

from .body import (
    SERVICE,
    NcbiModel,
    child_text,
    children_named,
    dicts,
    first_child,
    first_key,
    invalid_response,
    is_json,
    load_json,
    str_or_none,
    xml_root,
    yes_no,
)

# ----------------------------------------------------------------------------- ID Converter


class IdConvVersion(NcbiModel):
    pmcid: str
    current: bool = False
    mid: str | None = None
    aiid: str | None = None


class IdConvRecord(NcbiModel):
    requested_id: str | None = None
    pmcid: str | None = None
    pmid: str | None = None
    doi: str | None = None
    mid: str | None = None  # NIHMS manuscript id
    aiid: str | None = None
    status: Literal["ok", "error"] = "ok"
    errmsg: str | None = None
    live: bool = True
    release_date: str | None = None
    versions: list[IdConvVersion] = Field(default_factory=list)


class IdConvResult(NcbiModel):
    status: str = "ok"
    response_date: str | None = None
    records: list[IdConvRecord] = Field(default_factory=list)


# ----------------------------------------------------------------------------- ID Converter


def parse_idconv(data: bytes | str) -> IdConvResult:
    """PMC ID Converter JSON (api/v1 and the old v1.0) or XML; top-level errors raise."""
    return _idconv_json(data) if is_json(data) else _idconv_xml(data)


def _idconv_fail(message: str) -> MedlitError:
    # A top-level status=error is the converter rejecting the request (e.g. "ID type ... is unknown").
    return errors.upstream_error(
        SERVICE,
        errors.BAD_REQUEST,
        f"PMC ID Converter reported: {message}",
        recovery="Send PMIDs (digits), PMCIDs (PMC<digits>) or DOIs (10.x/...), one kind per call.",
        endpoint="pmc_idconv",
    )


def _idconv_json(data: bytes | str) -> IdConvResult:
    doc = load_json(data)
    if not isinstance(doc, dict):
        raise invalid_response("ID Converter JSON is not an object")
    status = str(doc.get("status", "ok")).lower()
    if status == "error":
        raise _idconv_fail(unquote(str(doc.get("message") or doc.get("errmsg") or "unknown error")))
    records = [_idconv_record(r) for r in dicts(doc.get("records"))]
    _fill_requested_ids(records, doc.get("request"))
    return IdConvResult(
        status=status,
        response_date=str_or_none(doc.get("responseDate", doc.get("response-date"))),
        records=records,
    )


def _fill_requested_ids(records: list[IdConvRecord], request: Any) -> None:
    """The old v1.0 API does not echo ``requested-id``: recover it from the request echo."""
    if all(r.requested_id for r in records):
        return
    if isinstance(request, str):  # "email=..;ids=a%2Cb;idtype=pmid;tool=.."
        parts = dict(p.split("=", 1) for p in request.split(";") if "=" in p)
        ids, idtype = unquote(parts.get("ids", "")).split(","), parts.get("idtype")
    elif isinstance(request, dict):
        raw_ids = request.get("ids") or []
        ids = raw_ids if isinstance(raw_ids, list) else str(raw_ids).split(",")
        idtype = request.get("idtype")
    else:
        return
    ids = [str(i).strip() for i in ids if str(i).strip()]
    for i, rec in enumerate(records):
        if rec.requested_id:
            continue
        if len(ids) == len(records):  # answers come back in request order
            rec.requested_id = ids[i]
        elif idtype in ("pmid", "pmcid", "doi", "mid"):
            rec.requested_id = getattr(rec, idtype)


def _idconv_record(r: dict[str, Any]) -> IdConvRecord:
    status: Literal["ok", "error"] = "error" if str(r.get("status", "ok")).lower() == "error" else "ok"
    live = yes_no(r.get("live"))
    versions = [
        IdConvVersion(
            pmcid=str(v.get("pmcid", "")),
            current=yes_no(v.get("current")) is True,
            mid=str_or_none(v.get("mid")),
            aiid=str_or_none(v.get("aiid")),
        )
        for v in dicts(r.get("versions"))
    ]
    return IdConvRecord(
        requested_id=str_or_none(first_key(r, "requested-id", "requested_id", "requestedId")),
        pmcid=_norm_pmcid(r.get("pmcid")),
        pmid=str_or_none(r.get("pmid")),
        doi=str_or_none(r.get("doi")),
        mid=str_or_none(r.get("mid")) or next((v.mid for v in versions if v.mid), None),
        aiid=str_or_none(r.get("aiid")),
        status=status,
        errmsg=str_or_none(r.get("errmsg")),
        # An error record says live=false only because nothing was found; embargo is live=false + ok.
        live=live if live is not None else True,
        release_date=str_or_none(first_key(r, "release-date", "release_date", "releaseDate")),
        versions=versions,
    )


def _norm_pmcid(value: Any) -> str | None:
    """``PMC<digits>`` (the converter may send bare digits or a version suffix); None when absent
    or not a PMC ID at all."""
    return identifiers.canonical("pmcid", str_or_none(value))


def _idconv_xml(data: bytes | str) -> IdConvResult:
    root = xml_root(data, ("pmcids",))
    status = (root.get("status") or "ok").lower()
    if status == "error":
        raise _idconv_fail(
            unquote(root.get("message") or child_text(root, "message") or markup.text_of(root))
        )
    records = []
    for rec in children_named(root, "record"):
        attrs: dict[str, Any] = dict(rec.attrib)
        if "errmsg" not in attrs and child_text(rec, "errmsg"):
            attrs["errmsg"] = child_text(rec, "errmsg")
        vers = first_child(rec, "versions")
        attrs["versions"] = (
            [dict(v.attrib) for v in children_named(vers, "version")] if vers is not None else []
        )
        records.append(_idconv_record(attrs))
    return IdConvResult(status=status, response_date=root.get("responseDate"), records=records)
