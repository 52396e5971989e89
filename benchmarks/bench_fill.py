"""review_import filling what records lack (issue 51): requests and time per 1,000 filled records.

    python benchmarks/bench_fill.py [--records 1000] [--ncbi-rate 3]

An export of N records with a PMID and no abstract and N with only a DOI and no abstract (a CSV),
imported against the fake upstream (PubMed EFetch by id, Crossref's DOI filter, both with every
record's abstract), once with filling (the default) and once with ``fillMissing=false``. Reports
the EFetch and Crossref requests, the records filled, the wall time of each import, and the
requests per 1,000 filled records. The fake answers at once: the wall time is the pacing (NCBI at
``--ncbi-rate`` requests a second, 3 without an API key) and the work, not a network.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from aiohttp import web

from medlit.testing import FakeUpstream, make_runtime

from support import crossref_routes
from support.environments import fake_env
from support.fake_upstream import Req, xml_response
from support.review_routes import paper, pubmed_xml


def export(n: int) -> str:
    rows = ["Title,Authors,Year,PMID,DOI"]
    rows += [f"Record {i} by PMID,Smith A,2001,{paper(i).pmid}," for i in range(n)]
    rows += [f"Record {i} by DOI,Khan B,2002,,10.5555/fill.{i}" for i in range(n)]
    return "\n".join(rows) + "\n"


def routes(fake: FakeUpstream, n: int) -> None:
    known = {paper(i).pmid: paper(i) for i in range(n)}

    def efetch(req: Req) -> web.Response:
        body = "".join(pubmed_xml(known[i]) for i in req.ids() if i in known)
        return xml_response(
            f'<?xml version="1.0" encoding="UTF-8"?>\n<PubmedArticleSet>{body}</PubmedArticleSet>'
        )

    fake.route("ncbi", "efetch.fcgi", efetch)
    works = [
        {
            "DOI": f"10.5555/fill.{i}",
            "type": "journal-article",
            "title": [f"Record {i} by DOI"],
            "abstract": f"<jats:p>Deposited abstract {i}.</jats:p>",
        }
        for i in range(n)
    ]
    crossref_routes.install(fake, works=works, corpus=False)


async def run(n: int, rate: str) -> None:
    content = export(n)
    for fill in (True, False):
        async with FakeUpstream() as fake:
            routes(fake, n)
            with tempfile.TemporaryDirectory() as tmp:
                env = fake_env(fake, MEDLIT_STORE=f"sqlite:///{tmp}/store.db", MEDLIT_NCBI_RATE=rate)
                env["MEDLIT_CROSSREF_MAILTO"] = "bench@example.org"
                async with make_runtime(env=env, discover=True) as rt:
                    start = time.perf_counter()
                    args = {"set": "fill", "database": "Embase", "content": content, "format": "csv"}
                    out = await rt.call("review_import", {**args, "fillMissing": fill})
                    while not out.is_error and not out.data["complete"]:
                        await asyncio.sleep(0.2)
                        out = await rt.call("review_import", {**args, "fillMissing": fill})
                    took = time.perf_counter() - start
            assert not out.is_error, out.text
            efetch, crossref = len(fake.of("ncbi", "efetch.fcgi")), len(fake.of("crossref", "works"))
            filled = out.data.get("filled") or {}
            records = sum(sum(by.values()) for by in filled.values())
            per = (efetch + crossref) / records * 1000 if records else 0.0
            print(
                f"fillMissing={str(fill).lower()}: {2 * n:,} records, filled {filled or '-'}; "
                f"EFetch {efetch}, Crossref {crossref} requests ({per:.1f} per 1,000 filled); "
                f"{took:.1f} s; failed {out.data.get('fillFailed')}; load {os.getloadavg()[0]:.1f}"
            )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=1000, help="records of each kind (PMID, DOI)")
    parser.add_argument("--ncbi-rate", default="3")
    args = parser.parse_args()
    asyncio.run(run(args.records, args.ncbi_rate))
    return 0


if __name__ == "__main__":
    sys.exit(main())
