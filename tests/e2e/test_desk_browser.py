"""The reviewer's desk in a real browser (Debian's Chromium driven by Playwright; skipped, saying
why, when either is missing): a person's day over HTTP against the fake upstream, and the same page
as an MCP App inside a stand-in host that forwards the page's ``tools/call`` to the server.

``MEDLIT_DESK_SCREENSHOTS=docs/desk`` saves a screenshot of each view there (the README's)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from support.corpus import corpus_path
from support.desk import HOSTILE_TITLES, TOKENS, desk_server, hostile_ris
from support.review_routes import PUBMED_QUERY, Literature
from support.screening_routes import install

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

CHROMIUM = "/usr/bin/chromium"
playwright_api = pytest.importorskip(
    "playwright.async_api", reason="playwright is not installed (the test extra)"
)
if not Path(CHROMIUM).exists():
    pytest.skip(f"no Chromium at {CHROMIUM} (apt-get install chromium)", allow_module_level=True)

SHOTS = os.environ.get("MEDLIT_DESK_SCREENSHOTS", "")
EXPORTS = (
    ("PubMed", "exports/nbib/pubmed__citation-file-formatting__baseline_pubmed.ris"),
    ("Embase", "exports/ris/embase__citation-file-formatting__baseline_embase.ris"),
    ("Covidence", "exports/ris/covidence__citation-file-formatting__baseline_covidence_endnote.ris"),
)


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
async def browser():
    async with playwright_api.async_playwright() as p:
        launched = await p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield launched
        await launched.close()


async def shot(page: Any, name: str) -> None:
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        await page.screenshot(path=str(Path(SHOTS) / f"{name}.png"), full_page=False)


async def signed_in(browser: Any, base: str, principal: str) -> Any:
    context = await browser.new_context(viewport={"width": 1280, "height": 860}, accept_downloads=True)
    page = await context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.errors = errors
    await page.goto(base + "/desk/")
    await page.get_by_label("Your access token").fill(TOKENS[principal])
    await page.get_by_role("button", name="Sign in").click()
    await page.wait_for_selector("#set")
    await page.fill("#reviewer", principal)
    await page.dispatch_event("#reviewer", "change")
    return page


async def until(page: Any, expression: str, timeout: float = 30.0) -> None:
    """Poll ``expression`` until true (``wait_for_function`` evaluates a string, which the desk's
    CSP forbids: no 'unsafe-eval'; ``evaluate`` runs through the debugger protocol instead)."""
    for _ in range(int(timeout / 0.05)):
        if await page.evaluate(expression):
            return
        await page.wait_for_timeout(50)
    shown = await page.evaluate(
        "document.getElementById('status') ? document.getElementById('status').textContent : ''"
    )
    raise AssertionError(f"never true: {expression} (the status line says: {shown!r})")


async def status_after(page: Any, action: Any) -> str:
    """The live region's text after ``action`` changes it."""
    await page.evaluate("document.getElementById('status').textContent = ''")
    await action()
    await until(page, "document.getElementById('status').textContent !== ''")
    return await page.inner_text("#status")


async def view(page: Any, name: str) -> None:
    await page.click(f"nav button[data-view={name}]")


async def import_file(page: Any, set_name: str, database: str, path: Path) -> str:
    await view(page, "exports")
    await page.fill("#import-set", set_name)
    await page.fill("#import-database", database)
    await page.set_input_files("#import-file", str(path))
    await page.evaluate("document.getElementById('status').textContent = ''")
    await page.click("#import button[type=submit]")
    await until(page, "document.getElementById('status').textContent.startsWith('Imported')")
    return await page.inner_text("#status")


async def screen(page: Any, keys: str) -> None:
    """Decide one record per key, by keyboard, waiting for each decision to be announced."""
    await view(page, "screen")
    await page.wait_for_selector("#record[aria-busy=false] h3")
    for key in keys:
        await page.locator("body").focus()
        said = await status_after(page, lambda k=key: page.keyboard.press(k))
        assert said.split(":")[0] in ("include", "exclude", "maybe"), said


async def test_a_reviewers_day(fake, tmp_path, browser):
    files = [(db, corpus_path(rel)) for db, rel in EXPORTS]
    hostile = tmp_path / "hostile.ris"
    hostile.write_text(hostile_ris())
    async with desk_server(fake, tmp_path) as base:
        alice = await signed_in(browser, base, "alice")
        for db, path in files:
            assert "Imported" in await import_file(alice, "asthma", db, path)
        assert "Imported 3" in await import_file(alice, "hostile", "Embase", hostile)

        # hostile titles render as text: no script ran, no element made from them
        await alice.select_option("#set", "hostile")
        await view(alice, "screen")
        await alice.wait_for_selector("#record h3")
        for _ in HOSTILE_TITLES:
            title = await alice.inner_text("#record h3")
            assert any(t == title for t in HOSTILE_TITLES), title
            assert "(abstract " in await alice.inner_text("#record .abstract")  # abstracts shown, as text
            assert await alice.locator("#record img, #record a, #record script, #record b").count() == 0
            await alice.keyboard.press("ArrowRight")
        assert await alice.evaluate("window.__pwned === undefined")
        await shot(alice, "screening-hostile")

        # merges: split a wrong merge
        await alice.select_option("#set", "asthma")
        await view(alice, "merges")
        await alice.wait_for_selector("#merge-list button")
        await shot(alice, "merges")
        said = await status_after(alice, lambda: alice.locator("#merge-list button").first.click())
        assert said.startswith("Split "), said

        # two reviewers screen 30 records each by keyboard, blind: Alice includes, Bob excludes
        await view(alice, "screen")
        await alice.fill("#terms-include", "genom, dinosaur")
        await alice.dispatch_event("#terms-include", "change")
        await alice.fill("#terms-exclude", "erratum")
        said = await status_after(alice, lambda: alice.check("#blind"))
        assert said.startswith("Blind screening on"), said
        await screen(alice, "i" * 30)
        await alice.keyboard.press("?")
        assert await alice.locator("#help").is_visible()
        await alice.keyboard.press("Escape")
        await shot(alice, "screening")
        bob = await signed_in(browser, base, "bob")
        assert "asthma" not in await bob.inner_text("#set")  # Alice's sets are hers
        await bob.context.close()

        # Bob as Alice's second reviewer (same principal, his own reviewer name)
        second = await signed_in(browser, base, "alice")
        await second.fill("#reviewer", "bob")
        await second.dispatch_event("#reviewer", "change")
        await second.select_option("#set", "asthma")
        await until(second, "document.getElementById('terms-include').value === 'genom, dinosaur'")
        assert await second.is_checked("#blind")  # the set's settings, shared by its reviewers
        await screen(second, "e" * 30)
        await view(second, "conflicts")
        await until(
            second, "document.getElementById('agreement').textContent.startsWith('Screening is blind')"
        )
        assert await second.locator("#conflict-list li").count() == 0

        # the set's owner unblinds; conflicts and agreement appear, resolved one by one as final
        await view(alice, "screen")
        said = await status_after(alice, lambda: alice.uncheck("#blind"))
        assert said.startswith("Blind screening off"), said
        await view(alice, "conflicts")
        await alice.wait_for_selector("#conflict-list li")
        first = await alice.inner_text("#agreement")
        conflicts = int(first.split()[0])
        assert conflicts >= 1
        kappa = await alice.inner_text("#kappa")
        assert "alice and bob agree on" in kappa and "Cohen's kappa" in kappa, kappa
        await shot(alice, "conflicts")
        for _ in range(conflicts):
            said = await status_after(alice, lambda: alice.locator("#conflict-list button").first.click())
            assert said.startswith("Resolved record"), said
        await until(alice, "document.getElementById('agreement').textContent.startsWith('0 record')")

        # PRISMA before and after a full-text exclusion with a reason
        await view(alice, "prisma")
        await alice.wait_for_selector("#prisma-diagram img")
        before = json.loads(await alice.evaluate(COUNTS))
        await view(alice, "fulltext")
        await alice.wait_for_selector("#fulltext-list select")
        await alice.locator("#fulltext-list select").first.select_option("wrong_population")
        await shot(alice, "fulltext")
        said = await status_after(alice, lambda: alice.get_by_role("button", name="Exclude").first.click())
        assert said.startswith("Full text, record"), said
        await view(alice, "prisma")
        await until(alice, f"JSON.parse({COUNTS}).assessed === {before['assessed'] + 1}")
        await shot(alice, "prisma")

        # an export downloaded and read back
        await view(alice, "exports")
        await alice.select_option("#export-format", "ris")
        await alice.click("#export-go")
        async with alice.expect_download() as waiting:
            await alice.locator("#export-result a").click()
        download = await waiting.value
        text = Path(await download.path()).read_text()
        assert text.startswith("TY  -") and text.count("ER  -") >= 60
        await shot(alice, "exports")
        assert alice.errors == [] and second.errors == []


COUNTS = """JSON.stringify(Object.fromEntries([...document.querySelectorAll('#prisma-counts dt')]
  .map((dt) => [dt.textContent, Number(dt.nextElementSibling.textContent)])))"""

HOST_PAGE = """<!doctype html><html><body><iframe id="app" sandbox="allow-scripts" style="width:1200px;height:800px"></iframe>
<script>
const frame = document.getElementById('app');
window.addEventListener('message', async (event) => {
  if (event.source !== frame.contentWindow) return;
  const msg = event.data;
  if (msg.id === undefined) { window.notified = (window.notified || []).concat([msg.method]); return; }
  const result = await window.forward(msg.method, JSON.stringify(msg.params || {}));
  frame.contentWindow.postMessage({ jsonrpc: '2.0', id: msg.id, result: JSON.parse(result) }, '*');
});
window.load = (html) => { frame.srcdoc = html; };
</script></body></html>"""


async def test_full_text_is_read_at_the_desk_with_the_tier_that_served_it(fake, tmp_path, browser):
    lit = install(fake, Literature.build(pubmed=6, europepmc=0), {"PMC9000003"})
    papers = {p.pmcid: p for ps in lit.pubmed.values() for p in ps if p.pmcid}
    async with desk_server(fake, tmp_path, EUROPEPMC_ENABLED="false", UNPAYWALL_ENABLED="false") as base:
        http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {TOKENS['alice']}"}, timeout=60)
        async with Client(streamable_http_client(base + "/mcp", http_client=http)) as client:  # type: ignore[arg-type]
            searched = await client.call_tool(
                "review_search", {"set": "ft", "queries": {"pubmed": PUBMED_QUERY}}
            )
            assert not searched.is_error
            listed = await client.call_tool(
                "review_records", {"set": "ft", "limit": 10, "responseFormat": "json"}
            )
            keys = [r["key"] for r in (listed.structured_content or {})["records"]]
            items = [{"id": k, "stage": "title_abstract", "decision": "include"} for k in keys]
            assert not (await client.call_tool("review_screen", {"set": "ft", "decisions": items})).is_error

        alice = await signed_in(browser, base, "alice")
        await alice.select_option("#set", "ft")
        await view(alice, "fulltext")
        served = alice.locator("#fulltext-list li", has_text=papers["PMC9000003"].title)
        await served.get_by_role("button", name="Read the full text").click()
        await served.locator(".fulltext .served").wait_for()
        text = await served.locator(".fulltext").inner_text()
        assert text.startswith("Served by") and "Methods" in text and "Record 3 was randomised." in text
        assert await served.locator(".fulltext h4").all_inner_texts() == ["Methods", "Results"]
        missing = alice.locator("#fulltext-list li", has_text=papers["PMC9000000"].title)
        await missing.get_by_role("button", name="Read the full text").click()
        await until(
            alice,
            "[...document.querySelectorAll('.fulltext')].some((b) => b.textContent.startsWith('No full text found'))",
        )
        await shot(alice, "fulltext-reading")
        assert "Invalid" not in await alice.inner_text("#status")  # nothing asked before a set was chosen
        assert alice.errors == []


async def test_the_desk_inside_an_mcp_host(fake, tmp_path, browser):
    async with desk_server(fake, tmp_path) as base:
        http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {TOKENS['alice']}"}, timeout=60)
        async with Client(streamable_http_client(base + "/mcp", http_client=http)) as host:  # type: ignore[arg-type]
            made = await host.call_tool(
                "review_import", {"set": "in host", "database": "Embase", "content": hostile_ris()}
            )
            assert not made.is_error
            tools = {t.name: t for t in (await host.list_tools()).tools}
            uri = tools["review_screen"].meta["ui"]["resourceUri"]
            html = (await host.read_resource(uri)).contents[0].text
            calls: list[str] = []

            async def forward(method: str, params: str) -> str:
                """The host's side of the bridge: the page's requests sent on to the server."""
                args = json.loads(params)
                calls.append(method if method != "tools/call" else args["name"])
                if method == "ui/initialize":
                    return json.dumps(
                        {
                            "protocolVersion": "2026-01-26",
                            "hostInfo": {"name": "stand-in"},
                            "hostCapabilities": {},
                            "hostContext": {},
                        }
                    )
                if method == "tools/call":
                    result = await host.call_tool(args["name"], args.get("arguments") or {})
                    return result.model_dump_json(by_alias=True, exclude_none=True)
                if method == "resources/read":
                    return (await host.read_resource(args["uri"])).model_dump_json(
                        by_alias=True, exclude_none=True
                    )
                return json.dumps({})

            page = await browser.new_page(viewport={"width": 1240, "height": 840})
            await page.expose_function("forward", forward)
            await page.set_content(HOST_PAGE)
            await page.evaluate("(html) => window.load(html)", html)
            app = page.frame_locator("#app")
            await app.locator("#record h3").wait_for()
            assert await app.locator("#record h3").inner_text() in HOSTILE_TITLES
            await app.locator("#record").click()  # the frame takes the keyboard, as a person's click gives it
            await page.keyboard.press("i")
            await app.locator("#status").filter(has_text="include: record").wait_for()
            assert calls[:2] == ["ui/initialize", "review_sets"] and "review_screen" in calls
            assert await page.evaluate("window.notified") == ["ui/notifications/initialized"]
            assert await page.evaluate("window.__pwned === undefined")
            await shot(page, "mcp-app")
            await page.close()


async def test_a_setting_changed_while_another_is_saved_stays_changed(fake, tmp_path, browser):
    """The criteria's settings are saved one at a time and only the last answer is shown: an
    earlier save's answer arriving after the reviewer ticked "blind" no longer unticks the box (it
    did when the answer came late, as on a loaded machine; seen in CI beside a CPU hog)."""
    import asyncio
    import contextlib

    async with desk_server(fake, tmp_path) as base:
        alice = await signed_in(browser, base, "alice")
        assert "Imported" in await import_file(alice, "late", "Embase", corpus_path(EXPORTS[0][1]))
        await alice.select_option("#set", "late")
        await view(alice, "screen")
        held, released, fulfilled = asyncio.Event(), asyncio.Event(), asyncio.Event()

        async def late_answer(route):  # the terms' save reaches the server; its answer comes late
            assert "includeTerms" in (route.request.post_data or "")
            answer = await route.fetch()
            held.set()
            await released.wait()
            await route.fulfill(response=answer)
            fulfilled.set()

        await alice.route("**/api/call", late_answer, times=1)  # the next call only: the terms' save
        await alice.fill("#terms-include", "asthma")
        await alice.dispatch_event("#terms-include", "change")
        await held.wait()
        blind_answered = asyncio.Event()
        alice.on(
            "response",
            lambda r: blind_answered.set() if '"blind"' in (r.request.post_data or "") else None,
        )
        await alice.check("#blind")  # while the terms' answer is on its way
        # Were the box's save sent at once (as before), its answer would come first and the late
        # one last: let it, for up to 2 s. Saved in order, it is sent only once the terms' answer
        # is in, so the wait runs out and the answers come in order.
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(blind_answered.wait(), 2)
        released.set()
        await fulfilled.wait()
        await until(alice, "document.getElementById('status').textContent.startsWith('Blind screening on')")
        assert await alice.is_checked("#blind")
        second = await signed_in(browser, base, "alice")  # what the server kept
        await second.select_option("#set", "late")
        await until(second, "document.getElementById('terms-include').value === 'asthma'")
        assert await second.is_checked("#blind")
        assert alice.errors == [] and second.errors == []
