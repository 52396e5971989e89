"""MeSH DocSums (ESummary ``db=mesh``): descriptors, supplementary concepts and qualifiers."""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import Field

from .body import NcbiModel, scalar, str_list
from .eutils import DocSum, parse_esummary


class MeshDocSum(NcbiModel):
    """A MeSH esummary record (descriptor, supplementary concept or qualifier)."""

    uid: str
    ui: str | None = None
    name: str = ""
    entry_terms: list[str] = Field(default_factory=list)
    scope_note: str | None = None
    tree_numbers: list[str] = Field(default_factory=list)
    previous_indexing: list[str] = Field(default_factory=list)
    mapped_to: list[str] = Field(default_factory=list)
    record_type: Literal["descriptor", "supplementary", "qualifier"] | None = None


_MESH_UID_PREFIX = {"68": "D", "67": "C", "81": "Q"}
_MESH_KIND = {"D": "descriptor", "C": "supplementary", "Q": "qualifier"}
_TREE_NUMBER_RE = re.compile(r"^[A-Z]\d{2}(\.\d{3})*$")


def parse_mesh_esummary(data: bytes | str, *, json_mode: bool) -> list[MeshDocSum]:
    """Convenience: every MeSH record of an esummary db=mesh answer."""
    return [parse_mesh_docsum(d) for d in parse_esummary(data, json_mode=json_mode).docs]


def parse_mesh_docsum(doc: DocSum) -> MeshDocSum:
    """A MeSH DocSum (v2 XML ``DS_*`` tags or JSON ``ds_*`` keys) as a typed record."""
    f = {k.lower(): v for k, v in doc.fields.items()}
    terms = str_list(f.get("ds_meshterms"))
    ui = scalar(f.get("ds_meshui")) or _mesh_ui_from_uid(doc.uid)
    return MeshDocSum(
        uid=doc.uid,
        ui=ui,
        name=scalar(f.get("ds_meshheading")) or (terms[0] if terms else ""),
        entry_terms=terms[1:],
        scope_note=scalar(f.get("ds_scopenote")),
        tree_numbers=_tree_numbers(f.get("ds_idxlinks")),
        previous_indexing=str_list(f.get("ds_previousindexing")),
        mapped_to=str_list(f.get("ds_headingmappedtolist")) or str_list(f.get("ds_headingmappedto")),
        record_type=_mesh_record_type(scalar(f.get("ds_recordtype")), ui),
    )


def _mesh_ui_from_uid(uid: str) -> str | None:
    # Entrez MeSH uids encode the UI: ord(letter) + digits (68009203 -> D009203).
    prefix = _MESH_UID_PREFIX.get(uid[:2])
    return prefix + uid[2:] if prefix and len(uid) > 2 else None


def _mesh_record_type(declared: str | None, ui: str | None) -> Any:
    if declared:
        low = declared.lower()
        for kind in ("descriptor", "supplementary", "qualifier"):
            if low.startswith(kind[:4]):
                return kind
    return _MESH_KIND.get((ui or "")[:1])


def _tree_numbers(links: Any) -> list[str]:
    out = []
    for link in links if isinstance(links, list) else [links]:
        if isinstance(link, dict):
            low = {k.lower(): v for k, v in link.items()}
            tn = scalar(low.get("treenum"))
            # Supplementary records carry placeholders like "@3065", which are not tree numbers.
            if tn and _TREE_NUMBER_RE.match(tn) and tn not in out:
                out.append(tn)
    return out
