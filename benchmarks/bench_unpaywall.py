"""Unpaywall benchmark: extraction speed, launch cost with the plugin installed, and the tier's
requests and wall time.

    python benchmarks/bench_unpaywall.py [--repeat 5] [--launches 7]

(a) PDF to text (pypdf, with the tier's clean-up) over the corpus PDFs that open (oa_pdf/*.pdf),
    and HTML to metadata + Markdown (selectolax + trafilatura) over the corpus pages
    (oa_html/*.html): MB/s of input, median of ``--repeat`` passes (the first import of each
    library is not counted).
(b) Launch cost, each in a fresh interpreter, median of ``--launches``: importing the plugin
    package, and building the plugin host with every installed plugin with and without the
    Unpaywall plugin active; which of pypdf, trafilatura and selectolax are loaded after
    start-up (none should be).
(c) The tier on 6 DOIs against the loopback fake: 2 closed, 2 PDFs, one landing page that links
    its PDF, one full-text landing page. Each copy sits on its own host name (mapped to
    loopback), so per-host pacing applies as it would on the web. Requests and wall time.

Prints markdown tables; docs/benchmarks.md records a run.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from medlit.core.net import webfetch
from medlit.core.plugin import ArticleRef
from medlit.plugins.unpaywall import tier
from medlit.plugins.unpaywall.extract_html import decode, read_meta, to_markdown
from medlit.plugins.unpaywall.extract_pdf import Unextractable, extract_pdf
from medlit.testing import TEST_SETTINGS, make_runtime

from support.corpus import corpus_glob
from support.fake_upstream import FakeUpstream
from support.unpaywall_fakes import CONTENT, ENV, article_pdf, fixture, location, page, publish, record, serve


# -- (a) extraction speed -------------------------------------------------------------------------
def _median_rate(func, files: list[Path], repeat: int) -> tuple[float, float, int]:
    data = [p.read_bytes() for p in files]
    for blob in data:  # warm-up: first imports and caches
        func(blob)
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        for blob in data:
            func(blob)
        times.append(time.perf_counter() - started)
    size = sum(len(b) for b in data)
    best = statistics.median(times)
    return size / best / 1e6, best, size


def _pdf(blob: bytes) -> None:
    extract_pdf(blob)


def _html(blob: bytes) -> None:
    html = decode(blob, None)
    read_meta(html, "https://example.org/article")
    to_markdown(html, "https://example.org/article")


def extraction(repeat: int) -> None:
    pdfs = []
    for path in corpus_glob("oa_pdf/*.pdf"):
        try:
            extract_pdf(path.read_bytes())
            pdfs.append(path)
        except Unextractable:
            pass  # the password-protected test file: nothing to time
    pages = corpus_glob("oa_html/*.html")
    if not pdfs or not pages:
        print("(a) skipped: shared corpus not found (set MEDLIT_CORPUS)")
        return
    print("| input | files | bytes | median pass | MB/s |")
    print("|---|---:|---:|---:|---:|")
    for label, func, files in (("PDF -> text", _pdf, pdfs), ("HTML -> metadata + Markdown", _html, pages)):
        rate, best, size = _median_rate(func, files, repeat)
        print(f"| {label} | {len(files)} | {size:,} | {best * 1000:.0f} ms | {rate:.2f} |")
    for path in pdfs + pages:
        func = _pdf if path.suffix == ".pdf" else _html
        rate, best, size = _median_rate(func, [path], repeat)
        print(f"| {path.name} | 1 | {size:,} | {best * 1000:.0f} ms | {rate:.2f} |")


# -- (b) launch cost -------------------------------------------------------------------------------
HOST_CODE = """
import sys, time
t = time.perf_counter()
from medlit.core.host import load_host
from medlit.core.settings import load_settings
host = load_host(load_settings({env!r}))
took = time.perf_counter() - t
heavy = sorted(m for m in ("pypdf", "trafilatura", "selectolax") if m in sys.modules)
print(took, host.plugins["unpaywall"].status, ",".join(heavy) or "-")
"""


def _run(code: str) -> str:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout


def others() -> list[str]:
    from importlib.metadata import entry_points

    return sorted(ep.name for ep in entry_points(group="medlit.plugins") if ep.name != "unpaywall")


def _import_ms(module: str, code: str) -> float:
    """Cumulative import time of ``module`` when ``code`` runs (-X importtime)."""
    err = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", code], capture_output=True, text=True, check=True
    ).stderr
    line = [x for x in err.splitlines() if x.rstrip().endswith(f" {module}")][-1]
    return int(line.split("|")[1]) / 1000


def launch(launches: int) -> None:
    name = "medlit.plugins.unpaywall"
    whole = [_import_ms(name, f"import {name}") for _ in range(launches)]
    own = [_import_ms(name, f"import medlit.core.plugin; import {name}") for _ in range(launches)]
    print("| measure | median |")
    print("|---|---:|")
    print(
        f"| `import {name}` in a fresh interpreter (with `medlit.core.plugin`) | {statistics.median(whole):.1f} ms |"
    )
    print(
        f"| the same after `medlit.core.plugin` (the plugin's own modules) | {statistics.median(own):.1f} ms |"
    )
    for label, env in (
        ("plugin host, Unpaywall active", {"UNPAYWALL_EMAIL": "a@b.org"}),
        ("plugin host, Unpaywall not loaded", {"MEDLIT_LOAD_PLUGINS": ",".join(others())}),
    ):
        rows = [_run(HOST_CODE.format(env=env)).split() for _ in range(launches)]
        took = statistics.median(float(r[0]) for r in rows)
        print(f"| {label} ({rows[0][1]}) | {took * 1000:.0f} ms; extractors loaded: {rows[0][2]} |")


# -- (c) the tier ------------------------------------------------------------------------------------
async def tier_run() -> None:
    async def names(host: str, port: int, family: int = 0):
        return [(2, "127.0.0.1")]  # every *.test host is the fake, each with its own pacer

    webfetch.getaddrinfo = names  # type: ignore[assignment]
    async with FakeUpstream(ncbi_limit=None) as fake:

        def on(host: str, url: str) -> str:
            return url.replace("127.0.0.1", host)

        dois = []
        for i in range(2):
            doi = f"10.5555/closed.{i}"
            publish(fake, json.loads(fixture("closed.json")) | {"doi": doi})
            dois.append(doi)
        for i in range(2):
            doi, title = f"10.5555/pdf.{i}", f"Benchmark article number {i} about glycolysis"
            url = serve(fake, f"pdf{i}.pdf", article_pdf(title, doi, pages=8), "application/pdf")
            publish(fake, record(doi, title, [location(pdf=on(f"repo{i}.test", url))]))
            dois.append(doi)
        doi, title = "10.5555/linked.1", "A landing page that links its PDF"
        serve(fake, "files/linked.pdf", article_pdf(title, doi, pages=8), "application/pdf")
        landing = serve(
            fake,
            "linked",
            page("landing_abstract.html", title=title, doi=doi, pdf="/content/files/linked.pdf"),
            "text/html",
        )
        publish(
            fake, record(doi, title, [location(landing=on("journal.test", landing), host_type="publisher")])
        )
        dois.append(doi)
        doi, title = "10.5555/page.1", "A landing page that is the full text"
        full = serve(
            fake,
            "full",
            page("article_page.html", title=title, doi=doi, base=on("press.test", fake.url(CONTENT)) + "/"),
            "text/html",
        )
        publish(fake, record(doi, title, [location(landing=on("press.test", full), host_type="publisher")]))
        dois.append(doi)

        env = {**fake.env("unpaywall"), **TEST_SETTINGS, **ENV}
        async with make_runtime(env=env, discover=True) as rt:
            refs = [ArticleRef(key=d, doi=d) for d in dois]
            started = time.perf_counter()
            out = await tier.resolve_unpaywall(refs, rt.context("unpaywall"), {})
            took = time.perf_counter() - started
        hits = sum(r.outcome == "hit" for r in out.values())
        print("| run | DOIs | hits | Unpaywall requests | content requests | wall time |")
        print("|---|---:|---:|---:|---:|---:|")
        print(
            f"| tier, 6 DOIs (2 closed, 2 PDFs, landing -> PDF, full-text page) | {len(dois)} | {hits} | "
            f"{len(fake.of('unpaywall'))} | {len(fake.of(CONTENT))} | {took * 1000:.0f} ms |"
        )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--launches", type=int, default=7)
    args = parser.parse_args()
    print("## (a) extraction speed\n")
    extraction(args.repeat)
    print("\n## (b) launch cost\n")
    launch(args.launches)
    print("\n## (c) the tier\n")
    asyncio.run(tier_run())


if __name__ == "__main__":
    main()
