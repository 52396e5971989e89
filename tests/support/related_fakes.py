"""The host of the pubmed_find_related tests: the related plugin, a slim NCBI plugin (its services
and ELink provider only), the real OpenAlex plugin and stand-ins for Europe PMC and for record
metadata; ELink and OpenAlex answers on the fake (tests/plugin/test_find_related.py,
tests/plugin/test_related_steps.py)."""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any

import medlit.plugins.ncbi as ncbi_plugin
import medlit.plugins.openalex as openalex_plugin
import medlit.plugins.related as related_plugin
from medlit.core.plugin import (
    MetadataProvider,
    PluginInfo,
    RecordMetadata,
    RelatedProvider,
    RelatedQuery,
    RelatedResult,
    errors,
    hookimpl,
)
from medlit.testing import InlinePlugin, make_runtime

from support.environments import TEST_NCBI_RATE
from support.fake_upstream import FIXTURES, Req, json_response, xml_response

TOOL = "pubmed_find_related"
SOURCE = "29456894"
W_SOURCE = "W2741809807"
OA = FIXTURES / "openalex"


# -- stand-in plugins ---------------------------------------------------------------------------


def slim_ncbi() -> SimpleNamespace:
    """The NCBI plugin's identity, services and related provider only."""
    return InlinePlugin(
        medlit_plugin_info=ncbi_plugin.medlit_plugin_info,
        medlit_services=ncbi_plugin.medlit_services,
        medlit_related_providers=ncbi_plugin.medlit_related_providers,
    )


class FakeEpmc:
    """A provider in Europe PMC's place (order 20, cited_by and references)."""

    def __init__(self, answer: RelatedResult | Exception | None = None) -> None:
        self.answer = answer
        self.queries: list[RelatedQuery] = []

    @hookimpl
    def medlit_plugin_info(self) -> PluginInfo:
        return PluginInfo(name="epmcfake", title="Europe PMC stand-in")

    @hookimpl
    def medlit_related_providers(self) -> list[RelatedProvider]:
        return [
            RelatedProvider(
                name="europepmc", order=20, kinds=frozenset({"cited_by", "references"}), resolve=self.resolve
            )
        ]

    async def resolve(self, query: RelatedQuery, ctx: Any) -> RelatedResult:
        self.queries.append(query)
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer or RelatedResult(pmids=[], total=0, detail="no citations")


def meta(pmid: str, title: str, year: int = 2020, authors: tuple[str, ...] = ("Doe J",)) -> RecordMetadata:
    return RecordMetadata(
        pmid=pmid, title=title, year=year, date=f"{year}-01", container_abbrev="J Test", authors=authors
    )


class FakeMeta:
    """A PMID metadata provider in the NCBI plugin's place: knows ``known``, records each batch."""

    def __init__(self, known: dict[str, RecordMetadata] | None = None, fail: bool = False) -> None:
        self.known = known or {}
        self.fail = fail
        self.batches: list[list[str]] = []

    @hookimpl
    def medlit_plugin_info(self) -> PluginInfo:
        return PluginInfo(name="metafake", title="Metadata stand-in")

    @hookimpl
    def medlit_metadata_providers(self) -> list[MetadataProvider]:
        return [MetadataProvider(name="pubmedfake", order=1, accepts=frozenset({"pmid"}), lookup=self.lookup)]

    async def lookup(self, kind: str, ids: list[str], ctx: Any) -> dict[str, RecordMetadata]:
        self.batches.append(list(ids))
        if self.fail:
            raise errors.upstream_error("ncbi", errors.UNREACHABLE, "NCBI ESummary is down")
        return {i: self.known[i] for i in ids if i in self.known}


KNOWN = {
    SOURCE: meta(SOURCE, "The state of OA", 2018, ("Piwowar H", "Priem J", "Lariviere V", "Alperin JP")),
    **{p: meta(p, f"Article {p}") for p in ("38961234", "38745612", "37990001", "36512345", "35123456")},
}


def runtime(fake, *plugins: Any, **env: str):
    return make_runtime(
        ("related", related_plugin),
        ("ncbi", slim_ncbi()),
        openalex_plugin,
        *plugins,
        env={"MEDLIT_NCBI_RATE": TEST_NCBI_RATE, **env},
        fake=fake,
    )


# -- upstream routes ------------------------------------------------------------------------------


def elink_xml(source: str, linkname: str, ids: list[str], scores: list[int] | None = None) -> str:
    links = "".join(
        f"<Link><Id>{i}</Id>{f'<Score>{scores[n]}</Score>' if scores else ''}</Link>"
        for n, i in enumerate(ids)
    )
    db = f"<LinkSetDb><DbTo>pubmed</DbTo><LinkName>{linkname}</LinkName>{links}</LinkSetDb>" if ids else ""
    return (
        '<?xml version="1.0" encoding="UTF-8" ?>\n<eLinkResult><LinkSet><DbFrom>pubmed</DbFrom>'
        f"<IdList><Id>{source}</Id></IdList>{db}</LinkSet></eLinkResult>"
    )


def route_elink(fake, by_linkname: dict[str, str]) -> None:
    def handler(req: Req):
        body = by_linkname.get(req.params.get("linkname", ""))
        if body is None:
            return xml_response(elink_xml(req.params["id"], req.params.get("linkname", ""), []))
        return xml_response(body)

    fake.route("ncbi", "elink.fcgi", handler)


def fixture_text(name: str) -> str:
    return (FIXTURES / "ncbi" / name).read_text()


def oa_json(name: str) -> Any:
    return json.loads((OA / name).read_text())


def oa_work(wid: str, pmid: str | None) -> dict:
    ids: dict[str, str] = {"openalex": f"https://openalex.org/{wid}"}
    if pmid:
        ids["pmid"] = f"https://pubmed.ncbi.nlm.nih.gov/{pmid}"
    return {"id": f"https://openalex.org/{wid}", "ids": ids}


def route_openalex(fake, citing: list[dict] | None = None) -> None:
    """The source work by PMID, the works citing it (paged like OpenAlex: page/per_page or cursor)
    and works by OR-ed ids."""
    rows = citing if citing is not None else oa_json("works_cites_W2741809807.json")["results"]
    work = oa_json("work_pmid_29456894.json")
    if citing:
        work["cited_by_count"] = len(citing)
    fake.respond("openalex", f"works/pmid:{SOURCE}", work)

    def works(req: Req):
        flt = req.params.get("filter", "")
        if flt.startswith("openalex:"):
            return json_response(oa_json("works_openalex_ids.json"))
        if flt not in (f"cites:{W_SOURCE}", f"cited_by:{W_SOURCE}"):
            return json_response({"error": "Invalid query parameters error.", "message": flt}, 400)
        per = int(req.params.get("per_page", "25"))
        if "cursor" in req.params:
            start = 0 if req.params["cursor"] == "*" else int(req.params["cursor"].removeprefix("c"))
            page = rows[start : start + per]
            nxt = f"c{start + per}" if start + per < len(rows) else None
            meta = {"count": len(rows), "page": None, "per_page": per, "next_cursor": nxt}
        else:
            n = int(req.params.get("page", "1"))
            if n * per > 10_000:
                return json_response({"error": "Invalid query parameters error.", "message": "paging"}, 400)
            page = rows[(n - 1) * per : n * per]
            meta = {"count": len(rows), "page": n, "per_page": per}
        return json_response({"meta": meta, "results": page, "group_by": []})

    fake.route("openalex", "works", works)
