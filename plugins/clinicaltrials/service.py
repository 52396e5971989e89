"""The ClinicalTrials.gov API v2 service: base URL, pacing and caching.

ClinicalTrials.gov asks API users to stay near 50 requests a minute per IP address (the figure
its data API's users report and the operators answer 429 beyond); it sends no rate-limit headers.
We pace at 0.8 requests a second (48 a minute), one request in flight at a time, and read the
largest pages the API serves (1,000 studies) where a caller wants many studies, so a whole
register search costs few requests. Refused input comes back as HTTP 400 with a plain-text body;
the tools ask for it with ``ok_statuses={400}`` and turn it into the caller's input error.
"""

from __future__ import annotations

from medlit.core.plugin import CacheRule, Probe, ServiceSpec, wire

NAME = "clinicaltrials"
TITLE = "ClinicalTrials.gov"
BASE_URL = "https://clinicaltrials.gov/api/v2"
RATE = 0.8  # requests a second: 48 a minute, under the ~50 a minute per IP asked of API users
RATE_SETTING = "MEDLIT_CLINICALTRIALS_RATE"
SITE = "https://clinicaltrials.gov/study/"

SERVICE = ServiceSpec(
    name=NAME,
    title=TITLE,
    base_url=BASE_URL,
    hosts=("clinicaltrials.gov", "www.clinicaltrials.gov"),
    rate=RATE,
    rate_setting=RATE_SETTING,
    concurrency=1,
    probe=Probe("version"),
    # Records change daily (status updates, results postings); a search answer is kept briefly.
    cache=(CacheRule("studies", 30 * wire.MINUTE),),
    description="ClinicalTrials.gov API v2: study search and study records",
)
