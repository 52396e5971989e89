"""The Example Works registry as the tests fake it: routes on medlit's fake upstream."""

from __future__ import annotations

from medlit.testing import FakeUpstream, Req, json_response

SERVICE = "example_works"

WORKS = {
    "10.5555/alpha.1": {
        "doi": "10.5555/ALPHA.1",
        "title": "Alpha waves in the resting brain",
        "journal": "Journal of Examples",
        "issn": "1234-5678",
        "published": "2013-08-01",
        "volume": "5",
        "issue": "2",
        "pages": "10-20",
        "authors": [{"family": "Smith", "given": "Jane Ann"}, {"family": "Doe", "given": "J.-P."}],
        "publisher": "Example Press",
        "has_text": True,
    },
    "10.5555/beta,2": {
        "doi": "10.5555/beta,2",
        "title": "Beta, with a comma in its DOI",
        "published": "2020",
    },
    "10.5555/closed.3": {"doi": "10.5555/closed.3", "title": "A closed article", "has_text": False},
}
TEXTS = {
    "10.5555/alpha.1": {
        "status": "ok",
        "title": "Alpha waves in the resting brain",
        "markdown": "# Alpha waves\n\nAlpha rhythms dominate the resting brain.",
        "source_url": "https://works.example.org/10.5555/alpha.1/full",
        "license": "cc-by",
    },
    "10.5555/closed.3": {"status": "ok", "access": "restricted", "markdown": None},
}


def serve_registry(fake: FakeUpstream) -> None:
    """Answer /works, /text and /heartbeat from WORKS and TEXTS."""

    def works(req: Req):
        wanted = [d.lower() for d in req.repeated("doi")]
        return json_response({"status": "ok", "works": [WORKS[d] for d in wanted if d in WORKS]})

    def text(req: Req):
        doi = req.params.get("doi", "").lower()
        if doi not in TEXTS:
            return json_response({"status": "error", "message": "not found"}, status=404)
        return json_response({"doi": doi, **TEXTS[doi]})

    def search(req: Req):
        words = req.params.get("q", "").lower().split()
        hits = [w for w in WORKS.values() if all(x in (w.get("title") or "").lower() for x in words)]
        hits += [w for w in generated() if all(x in w["title"].lower() for x in words)]
        offset, rows = int(req.params.get("offset", 0)), min(int(req.params.get("rows", 20)), 100)
        return json_response({"status": "ok", "total": len(hits), "works": hits[offset : offset + rows]})

    fake.route(SERVICE, "search", search)
    fake.route(SERVICE, "works", works)
    fake.route(SERVICE, "text", text)
    fake.respond(SERVICE, "heartbeat", {"status": "ok"})


def generated(n: int = 250) -> list[dict]:
    """Works made up for paging tests: "Gamma study <i>" (10.5555/gamma.<i>)."""
    return [
        {
            "doi": f"10.5555/gamma.{i}",
            "title": f"Gamma study {i}",
            "published": "2021",
            "authors": [{"family": "Roe", "given": "Pat"}],
        }
        for i in range(n)
    ]
