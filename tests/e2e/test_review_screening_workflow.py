"""End to end over MCP stdio: a review set screened at title/abstract by the model and a second
reviewer (a conflict, then settled by a final decision), the includes' full texts checked in
batches with progress notifications (PMC serves some; the rest get a library link), full-text
decisions, then the PRISMA 2020 flow as JSON counts, as an SVG resource read back and parsed,
and as PNG image content decoded."""

from __future__ import annotations

import base64
import io

import pytest
from lxml import etree
from mcp import Client
from mcp.types import ImageContent, ResourceLink, TextContent

from medlit.testing import check_structured

from support.review_routes import PUBMED_QUERY, Literature
from support.screening_routes import install, stdio_params

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]


async def call(client: Client, tools: dict, name: str, args: dict, progress=None):
    result = await client.call_tool(name, args, progress_callback=progress)
    assert not result.is_error, result.content
    check_structured(result.structured_content, tools[name].output_schema)
    return result


def item(key, decision, stage="title_abstract", **extra):
    return {"id": key, "stage": stage, "decision": decision, **extra}


async def test_screen_retrieve_and_prisma_over_stdio(fake, tmp_path):
    from PIL import Image

    # 40 papers; every third has a PMCID; PMC serves those of papers 0, 6, 12, 18, 24
    served = {f"PMC{9_000_000 + n}" for n in (0, 6, 12, 18, 24)}
    install(fake, Literature.build(pubmed=40, europepmc=0), served)
    seen: list[str] = []

    async def progress(done: float, total: float | None, message: str | None) -> None:
        seen.append(message or "")

    async with Client(
        stdio_params(fake, tmp_path, OPENURL_RESOLVER="https://resolver.example.org/openurl")
    ) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert {"review_screen", "review_retrieve", "review_prisma"} <= set(tools)
        await call(client, tools, "review_search", {"set": "flow", "queries": {"pubmed": PUBMED_QUERY}})
        page = (await call(client, tools, "review_records", {"set": "flow", "limit": 200})).structured_content
        keys = [r["key"] for r in page["records"]]
        assert len(keys) == 40

        # title/abstract: the model includes the first 30; a second reviewer disagrees on one
        model = [item(k, "include" if i < 30 else "exclude", reason="criteria") for i, k in enumerate(keys)]
        first = (
            await call(client, tools, "review_screen", {"set": "flow", "decisions": model})
        ).structured_content
        assert first["recorded"] == 40 and "refused" not in first  # lean: nothing refused, nothing sent
        second = (
            await call(
                client,
                tools,
                "review_screen",
                {
                    "set": "flow",
                    "reviewer": "Dr Lee",
                    "decisions": [
                        item(keys[29], "exclude"),
                        item(keys[0], "include"),
                        item("nonsense", "include"),
                    ],
                },
            )
        ).structured_content
        assert [c["key"] for c in second["conflicts"]] == [keys[29]]
        assert [r["index"] for r in second["refused"]] == [2]
        pending = (await call(client, tools, "review_prisma", {"set": "flow"})).structured_content
        assert pending["counts"]["pendingScreening"]["conflicts"] == 1 and pending["counts"]["sought"] == 29
        await call(
            client,
            tools,
            "review_screen",
            {"set": "flow", "reviewer": "final", "decisions": [item(keys[29], "exclude")]},
        )

        # the 29 includes: 25, then 4
        fake.requests.clear()
        batch1 = (await call(client, tools, "review_retrieve", {"set": "flow"}, progress)).structured_content
        batch2 = (await call(client, tools, "review_retrieve", {"set": "flow"}, progress)).structured_content
        assert (len(batch1["checked"]), batch1["remaining"]) == (25, 4)
        assert (len(batch2["checked"]), batch2["remaining"]) == (4, 0)
        assert (batch2["sought"], batch2["retrieved"], batch2["notRetrieved"]) == (29, 5, 24)
        assert (
            len(fake.of("idconv")) == 2 and len(fake.of("ncbi", "efetch.fcgi")) == 4
        )  # pmc + metadata, per call
        assert any("pmc" in m for m in seen)
        links = [
            c["institutionalLink"]
            for c in batch1["checked"] + batch2["checked"]
            if c["state"] == "not_retrieved"
        ]
        assert len(links) == 24 and all(u.startswith("https://resolver.example.org/openurl?") for u in links)

        # full text: the 5 retrieved assessed (3 include, 2 wrong outcome); 2 not retrieved excluded as such
        retrieved = [c["key"] for c in batch1["checked"] + batch2["checked"] if c["state"] == "retrieved"]
        missing = [c["key"] for c in batch1["checked"] + batch2["checked"] if c["state"] == "not_retrieved"]
        full = [item(k, "include", "full_text") for k in retrieved[:3]]
        full += [
            item(k, "exclude", "full_text", reasonCategory="wrong_outcome", reason="no mortality")
            for k in retrieved[3:]
        ]
        full += [item(k, "exclude", "full_text", reasonCategory="not_retrievable") for k in missing[:2]]
        await call(client, tools, "review_screen", {"set": "flow", "decisions": full})

        counts = (await call(client, tools, "review_prisma", {"set": "flow"})).structured_content["counts"]
        assert counts["identified"] == {"pubmed": 40} and counts["duplicatesRemoved"] == 0
        assert (counts["screened"], counts["excluded"], counts["sought"]) == (40, 11, 29)
        assert (counts["notRetrieved"], counts["assessed"], counts["included"]) == (24, 5, 3)
        assert counts["excludedWithReasons"] == {"wrong_outcome": 2}

        svg = await call(client, tools, "review_prisma", {"set": "flow", "format": "svg"})
        (link,) = [c for c in svg.content if isinstance(c, ResourceLink)]
        assert link.mime_type == "image/svg+xml"
        read = await client.read_resource(str(link.uri))
        assert read.contents[0].mime_type == "image/svg+xml"  # the file's own type, as the link says
        root = etree.fromstring(read.contents[0].text.encode())
        lines = ["".join(t.itertext()) for t in root.iter("{http://www.w3.org/2000/svg}text")]
        assert lines[lines.index("Reports not retrieved") + 1] == "(n = 24)"
        assert "Wrong outcome (n = 2)" in lines

        png = await call(client, tools, "review_prisma", {"set": "flow", "format": "png"})
        (image,) = [c for c in png.content if isinstance(c, ImageContent)]
        assert isinstance(png.content[0], TextContent) and image.mime_type == "image/png"
        with Image.open(io.BytesIO(base64.b64decode(image.data))) as im:
            im.load()
            assert im.format == "PNG" and im.size[0] > 600
