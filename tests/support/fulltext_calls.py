"""Calling ``pubmed_fetch_fulltext`` against the fake with the NCBI plugin's chain alone: the
articles of tests/support/fulltext_routes.py by name, the environment, a call that checks its
answer against the listed schema, and a route of small articles (tests/plugin/test_fulltext*.py)."""

from __future__ import annotations

from aiohttp import web

from medlit.testing import check_structured, settings_for, tool_definition

from support.environments import fake_env
from support.fake_upstream import Req
from support.fulltext_routes import articleset

TOOL = "pubmed_fetch_fulltext"
RESEARCH, BRIEF, CORRECTION = "PMC7100001", "PMC7100002", "PMC7100003"

# The NCBI plugin and the full-text tool alone: what other installed tier plugins would add is theirs
# to test; here the chain is PMC's, plus the inline plugins a test brings.
ONLY_NCBI = {"MEDLIT_LOAD_PLUGINS": "ncbi,fulltext"}


def env(fake, **extra):
    """The settings of a runtime with the NCBI plugin's chain alone, pointed at the fake."""
    return settings_for(fake_env(fake, **{**ONLY_NCBI, **extra}))


async def call(rt, args):
    """The tool's answer, asserted to be no error and to match its listed output schema."""
    out = await rt.call(TOOL, args)
    assert not out.is_error, out.text
    check_structured(out.data, tool_definition(rt.host, TOOL).output_schema)
    return out


def small_articles(req: Req) -> web.Response:
    """efetch db=pmc where any PMCID is a small article."""
    return articleset(
        [
            f'<article><front><article-meta><article-id pub-id-type="pmc">PMC{i}</article-id>'
            f"<title-group><article-title>Article {i}</article-title></title-group></article-meta></front>"
            f"<body><sec><title>Results</title><p>Words of article {i}.</p></sec></body></article>".encode()
            for i in req.ids()
        ]
    )
