"""A small fake of PubTator3 (export, search, autocomplete, relations), answered from hand-written
fixtures (tests/fixtures/pubtator/) and, where present, the corpus's real recordings.

``install(fake, synthesize=True)`` registers on the ``pubtator`` service:

- ``publications/export/biocjson``: ``{"PubTator3": [docs]}`` for the asked ``pmids`` or ``pmcids``
  (fixture and corpus documents; with ``synthesize``, any other PMID gets a small synthetic
  document unless listed in ``unknown``); unknown ids are left out, as PubTator3 does;
- ``search/``: the corpus's BRCA1 page for ``text=BRCA1``, the empty answer (``facets: {}``) for
  a query holding ``xyzzy``, else ten synthetic hits a page (``count`` 42) whose passages annotate
  the entity ids of the query;
- ``entity/autocomplete/``: current-shape suggestions for BRAF and melanoma (legacy corpus shape
  with ``legacy=True``), none for other names;
- ``relations``: the melanoma fixture rows, filtered by ``type`` and ``e2``; none for others.

Shared by tests/plugin/test_pubtator.py, tests/e2e/test_pubtator_workflow.py,
tests/support/fault_routes.py and benchmarks/bench_pubtator.py.
"""

from __future__ import annotations

import copy
import json
import re
from typing import Any

from support.corpus import corpus_root
from support.fake_upstream import FIXTURES, FakeUpstream, Req, json_response

SERVICE = "pubtator"
DIR = FIXTURES / "pubtator"
CORPUS_EXPORTS = (
    "pubtator/publications_export_biocjson/pmid_22663011_five_entity_types.json",
    "pubtator/publications_export_biocjson/pmid_20516115_brca1.json",
    "pubtator/publications_export_biocjson/pmid_33054928_nchs_databrief.json",
)
CORPUS_SEARCH = "pubtator/search/search_brca1_page1_with_facets.json"
CORPUS_EMPTY = "pubtator/search/search_nonsense_zero_results.json"
CORPUS_LEGACY = "pubtator/entity_autocomplete/autocomplete_braf_gene_limit2_legacy_shape.json"
FIXTURE_PMIDS = ["30000001", "30000002", "30000003"]
FIXTURE_PMCID = "PMC7000004"
_ENTITY = re.compile(r"@[A-Z]+_[^\s()|]+")


def _load(name: str) -> Any:
    return json.loads((DIR / name).read_text())


def _corpus(rel: str) -> Any | None:
    root = corpus_root()
    path = root / rel if root is not None else None
    return json.loads(path.read_text()) if path is not None and path.exists() else None


def synthetic_doc(pmid: str) -> dict[str, Any]:
    title = f"BRAF in melanoma, study {pmid}."
    ann = [
        {"id": "1", "infons": {"identifier": "673", "type": "Gene", "valid": True, "normalized_id": 673,
         "database": "ncbi_gene", "name": "BRAF", "accession": "@GENE_BRAF"}, "text": "BRAF",
         "locations": [{"offset": 0, "length": 4}]},
        {"id": "2", "infons": {"identifier": "MESH:D008545", "type": "Disease", "valid": True,
         "normalized_id": "D008545", "database": "ncbi_mesh", "name": "Melanoma", "accession": "@DISEASE_Melanoma"},
         "text": "melanoma", "locations": [{"offset": 8, "length": 8}]},
    ]  # fmt: skip
    return {
        "_id": f"{pmid}|None", "id": pmid, "pmid": int(pmid), "pmcid": None, "journal": "J Synth",
        "date": "2020-01-01T00:00:00Z", "infons": {}, "relations": [], "relations_display": [],
        "passages": [{"infons": {"type": "title", "year": "2020"}, "offset": 0, "text": title, "annotations": ann}],
    }  # fmt: skip


class PubTatorFake:
    """What the fake knows, and what it was asked (``texts``: search texts in order)."""

    def __init__(
        self, *, synthesize: bool = True, unknown: set[str] | None = None, legacy: bool = False
    ) -> None:
        self.synthesize, self.unknown, self.legacy = synthesize, set(unknown or ()), legacy
        self.by_pmid: dict[str, dict[str, Any]] = {}
        self.by_pmcid: dict[str, dict[str, Any]] = {}
        docs = list(_load("export_pmids.json")["PubTator3"]) + list(_load("export_pmcid.json")["PubTator3"])
        for rel in CORPUS_EXPORTS:
            data = _corpus(rel)
            if data is not None:
                docs += data["PubTator3"]
        for doc in docs:
            if doc.get("pmid"):
                self.by_pmid.setdefault(str(doc["pmid"]), doc)
            pmcid = doc.get("pmcid") or (doc["_id"].split("|")[1] if "|PMC" in doc.get("_id", "") else None)
            if pmcid:
                self.by_pmcid[pmcid] = doc
        self.relations = _load("relations_melanoma.json")
        self.texts: list[str] = []

    def export(self, req: Req):
        out = []
        if "pmcids" in req.params:
            out = [
                self.by_pmcid[i] for i in req.ids("pmcids") if i in self.by_pmcid and i not in self.unknown
            ]
        for pmid in req.ids("pmids"):
            if pmid in self.unknown:
                continue
            doc = self.by_pmid.get(pmid) or (
                synthetic_doc(pmid) if self.synthesize and pmid.isdigit() else None
            )
            if doc is not None:
                out.append(doc)
        return json_response({"PubTator3": out})

    def search(self, req: Req):
        text = req.params.get("text", "")
        self.texts.append(text)
        page = int(req.params.get("page", "1"))
        if "xyzzy" in text:
            return json_response(
                _corpus(CORPUS_EMPTY)
                or {
                    "results": [],
                    "facets": {},
                    "page_size": 10,
                    "current": page,
                    "count": 0,
                    "total_pages": 0,
                }
            )
        if text == "BRCA1" and page == 1 and _corpus(CORPUS_SEARCH) is not None:
            return json_response(_corpus(CORPUS_SEARCH))
        count, size = 42, 10
        ids = _ENTITY.findall(text) or ["@GENE_BRAF"]
        marked = " and ".join(f"{i} @@@<m>{i.split('_', 1)[1].replace('_', ' ')}</m>@@@" for i in ids)
        start = (page - 1) * size
        results = [
            {
                "_id": str(31_000_000 + n), "pmid": 31_000_000 + n, "pmcid": f"PMC{9_000_000 + n}" if n % 2 else None,
                "title": f"Study {n} of {text[:60]}", "journal": "J Fake", "authors": ["Ann A", "Bob B", "Cy C", "Di D"],
                "date": "2023-05-01T00:00:00Z", "doi": f"10.1000/fake.{n}", "score": 200.0 - n,
                "text_hl": f"...{marked} were studied together.",
                "citations": {"NLM": f"Ann A. Study {n}. J Fake. 2023."},
            }
            for n in range(start, min(start + size, count))
        ]  # fmt: skip
        facets = {
            "facet_queries": {},
            "facet_fields": {"year": [{"name": "2023", "type": "int", "value": count}]},
        }
        return json_response(
            {"results": results, "facets": facets, "page_size": size, "current": page, "count": count,
             "total_pages": -(-count // size)}
        )  # fmt: skip

    def autocomplete(self, req: Req):
        query = req.params.get("query", "").lower()
        concept = req.params.get("concept")
        if query.startswith("braf"):
            # the legacy shape: the corpus's recording where present, else a hand-written sample of it
            items = (
                (_corpus(CORPUS_LEGACY) or _load("autocomplete_legacy_hand.json")) if self.legacy else None
            )
            items = items or _load("autocomplete_braf_current.json")
        elif query.startswith("melanom"):
            items = _load("autocomplete_melanoma_current.json")
        else:
            items = []
        if concept:
            items = [i for i in items if i["_id"].startswith(f"@{concept.upper()}_")]
        return json_response(items[: int(req.params.get("limit", "10"))])

    def relations_(self, req: Req):
        e1 = req.params.get("e1", "")
        if e1.lower() != "@disease_melanoma":
            return json_response([])
        rows = copy.deepcopy(self.relations)
        if req.params.get("type"):
            rows = [r for r in rows if r["type"] == req.params["type"]]
        if req.params.get("e2"):
            prefix = f"@{req.params['e2'].upper()}_"
            rows = [r for r in rows if r["source"].startswith(prefix) or r["target"].startswith(prefix)]
        return json_response(rows)


def install(fake: FakeUpstream, **options: Any) -> PubTatorFake:
    state = PubTatorFake(**options)
    fake.route(SERVICE, "publications/export/biocjson", state.export)
    fake.route(SERVICE, "search/", state.search)
    fake.route(SERVICE, "entity/autocomplete/", state.autocomplete)
    fake.route(SERVICE, "relations", state.relations_)
    return state
