"""Resource ``pubmed://database/info``: PubMed's record count, last update, search fields and links."""

from __future__ import annotations

import json

from medlit.core.plugin import ToolContext

from .client import describe_database

CACHE_KEY = "ncbi.pubmed.database_info"


async def read_pubmed_info(ctx: ToolContext) -> str:
    """EInfo for PubMed as JSON, fetched once per process (one NCBI request)."""
    cached = ctx.cache.get(CACHE_KEY)
    if not isinstance(cached, str):
        db = await describe_database(ctx, "pubmed")
        cached = json.dumps(
            {
                "database": db.name,
                "title": db.menu_name,
                "description": db.description,
                "recordCount": db.count,
                "lastUpdate": db.last_update,
                "build": db.build,
                "searchFields": [
                    {"tag": f.name, "name": f.full_name, "description": f.description}
                    for f in db.fields
                    if not f.is_hidden
                ],
                "links": [
                    {"name": li.name, "to": li.db_to, "description": li.description} for li in db.links
                ],
                "usage": "Use a field as term[TAG] in pubmed_search_articles queries, e.g. 'smith j[AU]'; use a "
                "link name with eutils_elink.",
            },
            ensure_ascii=False,
            indent=1,
        )
        ctx.cache[CACHE_KEY] = cached
    return cached
