"""The bioRxiv/medRxiv API (api.biorxiv.org): one service for both servers.

The API publishes no request limit and asks for reasonable use; it answers one DOI per request.
We pace at 3 requests a second, two in flight, so a look-up of 100 preprints takes under a
minute. An unknown DOI is not an HTTP error: the answer is HTTP 200 with ``messages[0].status``
``"no posts found"`` and an empty ``collection``, which :mod:`.client` reads as "not on this
server".
"""

from __future__ import annotations

from medlit.core.plugin import CacheRule, Probe, ServiceSpec, wire

NAME = "biorxiv"
TITLE = "the bioRxiv/medRxiv API"
BASE_URL = "https://api.biorxiv.org"
RATE = 3.0
RATE_SETTING = "MEDLIT_BIORXIV_RATE"
SERVERS = ("biorxiv", "medrxiv")
SITES = {"biorxiv": "https://www.biorxiv.org/content/", "medrxiv": "https://www.medrxiv.org/content/"}

SERVICE = ServiceSpec(
    name=NAME,
    title=TITLE,
    base_url=BASE_URL,
    hosts=("api.biorxiv.org",),
    rate=RATE,
    rate_setting=RATE_SETTING,
    concurrency=2,
    probe=Probe("details/biorxiv/10.1101/456574/na/json"),
    # A new version or a journal link appears within days; a day's cache spares repeated look-ups.
    cache=(CacheRule("*", wire.DAY),),
    description="bioRxiv and medRxiv preprint details (every version) and published-article links",
)
