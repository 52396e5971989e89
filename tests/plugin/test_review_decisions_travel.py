"""Decisions that travel (issue 55): every export of a screened set carries its screening decisions
(stage, decision, reviewer, reason) where its readers look (Rayyan's ``RAYYAN-INCLUSION`` notes,
RIS ``N1``, BibTeX ``note``, EndNote XML notes, CSL ``note``, nbib ``GN``, a CSV column), and
importing the export into a new set restores them on the records it becomes."""

from __future__ import annotations

import csv
import html
import io

import pytest

from medlit.testing import check_structured, tool_definitions

from support.review_routes import PUBMED_QUERY, Literature
from support.screening_routes import install

pytestmark = pytest.mark.anyio

ENV = {"EUROPEPMC_ENABLED": "false", "UNPAYWALL_ENABLED": "false"}
FORMATS = ("ris", "bibtex", "csljson", "nbib", "csv", "rayyan_csv", "endnote_xml")


@pytest.fixture
def runtime_for(fake, review_runtime):
    def factory(papers: int = 6):
        install(fake, Literature.build(pubmed=papers, europepmc=0), set())
        return review_runtime(**ENV)

    return factory


async def call(rt, tool, **args):
    out = await rt.call(tool, args)
    assert not out.is_error, out.text
    schema = next(t for t in tool_definitions(rt.host) if t.name == tool).output_schema
    check_structured(out.data, schema)
    return out


async def titles(rt, name, **filters):
    out = await call(rt, "review_records", set=name, limit=200, **filters)
    return sorted(r["title"] for r in out.data["records"])


def item(key, decision, stage="title_abstract", **extra):
    return {"id": key, "stage": stage, "decision": decision, **extra}


@pytest.mark.parametrize("fmt", FORMATS)
async def test_an_export_imported_into_a_new_set_restores_its_decisions(runtime_for, fmt):
    async with runtime_for() as rt:
        await call(rt, "review_search", set="s", queries={"pubmed": PUBMED_QUERY})
        keys = [r["key"] for r in (await call(rt, "review_records", set="s", limit=200)).data["records"]]
        await call(
            rt,
            "review_screen",
            set="s",
            reviewer="Alice",
            decisions=[
                item(k, "include" if i < 3 else "exclude", reason="off topic; adults")
                for i, k in enumerate(keys)
            ],
        )
        await call(
            rt,
            "review_screen",
            set="s",
            reviewer="Bob",
            decisions=[item(keys[0], "include"), item(keys[3], "maybe")],
        )
        await call(
            rt,
            "review_screen",
            set="s",
            reviewer="Alice",
            decisions=[
                item(
                    keys[1],
                    "exclude",
                    stage="full_text",
                    reasonCategory="wrong_population",
                    reason="adults only",
                )
            ],
        )
        out = await call(rt, "review_export", set="s", format=fmt)
        with open(out.data["path"], encoding="utf-8") as fh:
            exported = fh.read()
        assert "MEDLIT-DECISION:" in exported
        if fmt in ("ris", "rayyan_csv", "endnote_xml"):  # the formats Rayyan imports
            plain = html.unescape(exported) if fmt == "endnote_xml" else exported
            if fmt == "rayyan_csv":
                plain = "\n".join(row["notes"] for row in csv.DictReader(io.StringIO(exported)))
            assert 'RAYYAN-INCLUSION: {"Alice"=>"Included", "Bob"=>"Included"}' in plain
        await call(rt, "review_import", set="copy", database="Our export", content=exported, format="auto")
        for reviewer, stage, decision in (
            ("Alice", "title_abstract", "include"),
            ("Alice", "title_abstract", "exclude"),
            ("Bob", "title_abstract", "include"),
            ("Bob", "title_abstract", "maybe"),
            ("Alice", "full_text", "exclude"),
        ):
            before = await titles(rt, "s", reviewer=reviewer, stage=stage, decision=decision)
            after = await titles(rt, "copy", reviewer=reviewer, stage=stage, decision=decision)
            assert before and after == before, (reviewer, stage, decision)
        assert await titles(rt, "copy", stage="title_abstract", conflicts=True) == await titles(
            rt, "s", stage="title_abstract", conflicts=True
        )


async def test_rayyan_notes_from_rayyan_itself_become_title_abstract_decisions(runtime_for):
    rayyan = (
        "key,title,authors,journal,year,notes\n"
        '1,First trial,"Smith, J",Lancet,2020,"RAYYAN-INCLUSION: {""Kofi""=>""Excluded""} | RAYYAN-EXCLUSION-REASONS: wrong population"\n'
        '2,Second trial,"Lee, A",BMJ,2021,"RAYYAN-INCLUSION: {""Kofi""=>""Included"", ""Ama""=>""Maybe""} | RAYYAN-LABELS: RCT"\n'
    )
    async with runtime_for() as rt:
        await call(rt, "review_import", set="r", database="Rayyan", content=rayyan, format="csv")
        assert await titles(rt, "r", reviewer="Kofi", decision="exclude") == ["First trial"]
        assert await titles(rt, "r", reviewer="Kofi", decision="include") == ["Second trial"]
        assert await titles(rt, "r", reviewer="Ama", decision="maybe") == ["Second trial"]
