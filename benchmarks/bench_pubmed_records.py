"""The 57-record ``pubmed_fetch_articles`` call in-process: cold, from the process record cache,
where its time goes, and how many pydantic models it builds (issue 25: parse once, no copies).

    python benchmarks/bench_pubmed_records.py [--runs 15] [--profile]

A Runtime against the loopback fake of tests/support/pubmed_fakes.py (every PubMed record of the
shared corpus: 57 distinct PMIDs in one efetch), NCBI pacing raised to 1000 req/s so the pacer is
not what is measured. The fake's efetch answer is built once (its own XML work is not counted).

- **cold**: the process record cache emptied before each call (one efetch, parse, output);
- **cached**: the same call again with the records in the process cache (no request);
- **breakdown**: the parts of the cold call on the same body outside the tool (hardened lxml
  parse; the service's inspector; ``parse_pubmed_xml``; the output mapping; the runtime's JSON
  dump; the markdown);
- **models**: pydantic models built per call, counted by wrapping ``BaseModel.__init__``
  (validated: every explicit construction; the nested models pydantic-core builds while
  validating one are counted by walking what it built), ``model_construct`` and deep copies
  (``__deepcopy__``), for a cold and a cached call.

Medians of ``--runs`` after a warm-up. ``--profile`` prints the cProfile of one cold call's top
functions by cumulative time. Runs on any checkout of medlit (it only uses what both sides of the
issue-25 change have); docs/benchmarks.md records a run before and after.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import pstats
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "tests" / "plugin")]

from aiohttp import web
from pydantic import BaseModel

from medlit.core.host import load_host
from medlit.core.net.wire import Response
from medlit.core.runtime import Runtime
from medlit.core.settings import load_settings
from medlit.core.xml import parse_xml
from medlit.plugins.ncbi.client import RECORD_CACHE_KEY
from medlit.plugins.ncbi.parse.pubmed import parse_pubmed_xml
from medlit.plugins.ncbi.service import inspect_eutils
from medlit.plugins.ncbi.tools.pubmed_fetch import FetchArticlesInput, fetch_articles, render_fetch

from support.fake_upstream import FakeUpstream, Req, xml_response
from support.pubmed_fakes import install, record_index

TOOL = "pubmed_fetch_articles"


def body_of(pmids: list[str]) -> bytes:
    index = record_index()
    return (
        b'<?xml version="1.0" encoding="UTF-8"?>\n<PubmedArticleSet>'
        + b"".join(index[p] for p in pmids)
        + b"</PubmedArticleSet>"
    )


class Counter:
    """Pydantic models built while active: validated (``__init__``, ``model_validate``, with the
    nested models each one built), constructed without validation, deep-copied."""

    def __init__(self) -> None:
        self.validated = self.constructed = self.copied = 0
        self._saved: dict[str, Any] = {}

    def __enter__(self) -> Counter:
        init, validate, construct = (
            BaseModel.__init__,
            BaseModel.model_validate.__func__,
            BaseModel.model_construct.__func__,
        )  # type: ignore[attr-defined]
        deepcopy = BaseModel.__deepcopy__
        self._saved = {
            "__init__": init,
            "model_validate": BaseModel.__dict__["model_validate"],
            "model_construct": BaseModel.__dict__["model_construct"],
            "__deepcopy__": deepcopy,
        }
        counter = self

        def counted_init(self_: BaseModel, /, **data: Any) -> None:
            init(self_, **data)
            counter.validated += _nested(self_, data)

        def counted_validate(cls: type[BaseModel], obj: Any, *a: Any, **k: Any) -> Any:
            out = validate(cls, obj, *a, **k)
            counter.validated += _nested(out, obj)
            return out

        def counted_construct(cls: type[BaseModel], *a: Any, **k: Any) -> Any:
            counter.constructed += 1
            return construct(cls, *a, **k)

        def counted_deepcopy(self_: BaseModel, memo: Any = None) -> Any:
            counter.copied += 1
            return deepcopy(self_, memo)

        BaseModel.__init__ = counted_init  # type: ignore[method-assign]
        BaseModel.model_validate = classmethod(counted_validate)  # type: ignore[method-assign,assignment]
        BaseModel.model_construct = classmethod(counted_construct)  # type: ignore[method-assign,assignment]
        BaseModel.__deepcopy__ = counted_deepcopy  # type: ignore[method-assign]
        return self

    def __exit__(self, *exc: Any) -> None:
        for name, value in self._saved.items():
            setattr(BaseModel, name, value)


def _nested(model: BaseModel, given: Any) -> int:
    """1 for ``model`` plus the models pydantic-core built inside it from plain data (a model
    handed in as a value was counted when it was built)."""
    seen: set[int] = set()
    passed: set[int] = set()

    def mark(v: Any) -> None:
        if isinstance(v, BaseModel):
            passed.add(id(v))
        elif isinstance(v, dict):
            for x in v.values():
                mark(x)
        elif isinstance(v, (list, tuple)):
            for x in v:
                mark(x)

    mark(given)

    def walk(v: Any) -> int:
        if isinstance(v, BaseModel):
            if id(v) in seen:
                return 0
            seen.add(id(v))
            own = 0 if id(v) in passed else 1
            return own + sum(walk(getattr(v, f)) for f in type(v).model_fields)
        if isinstance(v, (list, tuple)):
            return sum(walk(x) for x in v)
        if isinstance(v, dict):
            return sum(walk(x) for x in v.values())
        return 0

    return 1 + sum(walk(getattr(model, f)) for f in type(model).model_fields)


def timed(fn: Any, runs: int) -> float:
    fn()
    out = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t)
    return statistics.median(out)


def breakdown(pmids: list[str], runs: int) -> list[tuple[str, float]]:
    body = body_of(pmids)
    args = FetchArticlesInput(pmids=pmids)
    url = "https://eutils.ncbi.nlm.nih.gov/entrez/eutils/efetch.fcgi"
    rows = [
        ("hardened lxml parse (`parse_xml`)", timed(lambda: parse_xml(body), runs)),
        (
            "the service's inspector (`inspect_eutils`, on a fresh Response)",
            timed(lambda: inspect_eutils(Response(200, url, {}, body)), runs),
        ),
        ("`parse_pubmed_xml` (from bytes)", timed(lambda: parse_pubmed_xml(body), runs)),
    ]

    class Ctx:  # what fetch_articles needs when every record is cached
        cache: dict[str, Any] = {}

    records = parse_pubmed_xml(body)

    async def output() -> Any:
        from medlit.plugins.ncbi import client

        ctx = Ctx()
        ctx.cache = {}
        expires = time.monotonic() + 600
        store = client._record_cache(ctx)  # type: ignore[arg-type]
        for r in records:
            store[(r.pmid, False, False)] = (expires, r)
        return await fetch_articles(args, ctx)  # type: ignore[arg-type]

    loop = asyncio.new_event_loop()
    rows.append(
        (
            "cache hit + output mapping (`fetch_articles` with all 57 cached)",
            timed(lambda: loop.run_until_complete(output()), runs),
        )
    )
    out = loop.run_until_complete(output())
    rows.append(
        ("runtime's JSON dump (`model_dump(mode='json')`)", timed(lambda: out.model_dump(mode="json"), runs))
    )
    rows.append(("markdown (`render_fetch`)", timed(lambda: render_fetch(out, args), runs)))
    loop.close()
    return rows


async def in_process(pmids: list[str], runs: int, profile: bool) -> dict[str, Any]:
    body = body_of(pmids)

    def efetch(req: Req) -> web.Response:
        return xml_response(body)

    async with FakeUpstream() as fake:
        install(fake)
        fake.route("ncbi", "efetch.fcgi", efetch)
        async with Runtime(load_host(load_settings(fake.env(MEDLIT_NCBI_RATE="1000")))) as rt:

            async def call() -> Any:
                res = await rt.call(TOOL, {"pmids": pmids})
                assert not res.is_error, res.text
                assert res.data["totalReturned"] == len(pmids)
                return res

            def drop() -> None:
                rt.caches.get("ncbi", {}).pop(RECORD_CACHE_KEY, None)

            await call()  # warm-up: imports, first-call costs
            cold, warm = [], []
            for _ in range(runs):
                drop()
                t = time.perf_counter()
                await call()
                cold.append(time.perf_counter() - t)
                t = time.perf_counter()
                await call()
                warm.append(time.perf_counter() - t)
            fake.requests.clear()
            drop()
            with Counter() as cold_models:
                await call()
            requests_cold = len(fake.requests)
            with Counter() as warm_models:
                await call()
            requests_warm = len(fake.requests) - requests_cold
            prof = None
            if profile:
                drop()
                prof = cProfile.Profile()
                prof.enable()
                await call()
                prof.disable()
    return {
        "cold": (statistics.median(cold), min(cold)),
        "warm": (statistics.median(warm), min(warm)),
        "cold_models": cold_models,
        "warm_models": warm_models,
        "requests": (requests_cold, requests_warm),
        "profile": prof,
        "bytes": len(body),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    pmids = sorted(record_index())
    if not pmids:
        sys.exit("no PubMed records: the shared corpus is absent (set MEDLIT_CORPUS)")
    r = asyncio.run(in_process(pmids, args.runs, args.profile))
    print(f"{len(pmids)} PMIDs, one efetch answer of {r['bytes'] / 1e6:.2f} MB; median of {args.runs}\n")
    print(
        "| `pubmed_fetch_articles`, 57 PMIDs, in-process | wall time, median (best) | requests | models validated / constructed / deep-copied |"
    )
    print("|---|---:|---:|---|")
    for key, label, n in (
        ("cold", "cold (process record cache empty)", 0),
        ("warm", "from the process record cache", 1),
    ):
        m = r[f"{key}_models"]
        print(
            f"| {label} | {r[key][0] * 1000:.1f} ms ({r[key][1] * 1000:.1f} ms) | {r['requests'][n]} | {m.validated:,} / {m.constructed:,} / {m.copied:,} |"
        )
    print("\n| part of the cold call (same body, outside the tool) | median |")
    print("|---|---:|")
    for label, secs in breakdown(pmids, args.runs):
        print(f"| {label} | {secs * 1000:.1f} ms |")
    if r["profile"] is not None:
        print()
        pstats.Stats(r["profile"]).sort_stats("cumulative").print_stats(40)


if __name__ == "__main__":
    main()
