"""What a caller of pubmed_fetch_fulltext reads when Europe PMC is the tier that answers: a hit
beside per-article misses (no record, not open access, full text gone, a failed fetch), and a
lookup search that fails for every article."""

from __future__ import annotations

import pytest

from support.europepmc_routes import install

pytestmark = pytest.mark.anyio

TOOL = "pubmed_fetch_fulltext"
ONLY_EUROPEPMC = {"NCBI_ENABLED": "false", "UNPAYWALL_ENABLED": "false", "OPENALEX_ENABLED": "false"}


async def test_hit_beside_every_kind_of_miss(make_runtime, fake):
    epmc = install(fake)
    fake.fault("500", "europepmc", "PPR900001/fullTextXML", times=20)
    async with make_runtime(MEDLIT_MAX_RETRIES="1", **ONLY_EUROPEPMC) as rt:
        out = await rt.call(
            TOOL,
            {"pmids": ["30000010", "30000001", "30000002", "12345"], "dois": ["10.1101/2024.02.02.900001"]},
        )
    assert not out.is_error, out.text
    assert len(epmc.queries) == 1  # one lookup search for all five ids
    assert out.data["totalReturned"] == 1
    (art,) = out.data["articles"]
    assert "Harbour seal vocal learning" in out.text and "via europepmc" in out.text
    assert (art["pmid"], art["pmcId"], art["sourceIds"]["epmcSource"], art["viaSource"]) == (
        "30000010",
        "PMC7000010",
        "MED",
        "europepmc",
    )
    why = {
        u["id"]: next((t["outcome"], t["detail"]) for t in u["triedTiers"] if t["tier"] == "europepmc")
        for u in out.data["unavailable"]
    }
    assert set(why) == {"30000001", "30000002", "12345", "10.1101/2024.02.02.900001"}
    assert why["12345"] == ("miss", "Europe PMC has no record for PMID 12345")
    assert why["30000001"] == ("no-fulltext", "Europe PMC record MED 30000001 is not open access")
    assert why["30000002"][0] == "no-fulltext" and "serves no full text for PMC7000002" in why["30000002"][1]
    assert why["10.1101/2024.02.02.900001"][0] == "fetch-failed"
    # The text names each miss with Europe PMC's own reason, not only the data.
    assert "pmid 12345: **not-found**" in out.text and "Europe PMC has no record for PMID 12345" in out.text
    assert "Europe PMC record MED 30000001 is not open access" in out.text
    assert "europepmc: fetch-failed (PPR900001/fullTextXML: Europe PMC answered HTTP 500" in out.text


async def test_failed_lookup_search_is_a_retryable_error_naming_europepmc(make_runtime, fake):
    install(fake)
    fake.fault("503", "europepmc", "search", times=50)
    async with make_runtime(MEDLIT_MAX_RETRIES="1", **ONLY_EUROPEPMC) as rt:
        out = await rt.call(TOOL, {"pmids": ["30000010"]})
    assert out.is_error and out.error.reason == "europepmc_server_error" and out.error.retryable
    assert "Europe PMC answered HTTP 503" in out.error.message
    assert "Retryable: yes" in out.text
    assert not fake.of("europepmc", "PMC7000010/fullTextXML")  # nothing fetched without a record
