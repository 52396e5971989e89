"""``medlit review update SET`` (a living review's update from cron or a systemd timer) against
the fake upstream: what is new, what is flagged, the exit code a scheduler reads."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import anyio
import pytest

from support.environments import fake_env
from support.review_routes import PUBMED_QUERY, Literature, install, paper

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]


async def medlit(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    full = {**{k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "PYTHONPATH")}, **env}

    def run() -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "medlit", *args], capture_output=True, text=True, env=full, timeout=90
        )

    return await anyio.to_thread.run_sync(run)


async def test_review_update_prints_what_is_new_and_flagged_and_exits_1_on_failure(
    fake, review_runtime, store_url, tmp_path
):
    lit = install(fake, Literature.build(pubmed=6, europepmc=0))
    papers = lit.pubmed[PUBMED_QUERY]
    async with review_runtime() as rt:
        await rt.call("review_search", {"set": "s", "queries": {"pubmed": PUBMED_QUERY}})
        records = (await rt.call("review_records", {"set": "s", "limit": 50})).data["records"]
        key_of = {r["pmid"]: r["key"] for r in records}
        decisions = [
            {"id": key_of[p.pmid], "stage": "title_abstract", "decision": "include"} for p in papers[:2]
        ]
        assert not (await rt.call("review_screen", {"set": "s", "decisions": decisions})).is_error

    # a month later: two new papers, and the search no longer finds paper 1 (an include)
    lit.pubmed[PUBMED_QUERY] = [p for p in papers if p is not papers[1]] + [paper(100), paper(101)]
    env = fake_env(fake, MEDLIT_STORE=store_url, MEDLIT_EXPORT_DIR=str(tmp_path / "exports"))
    done = await medlit(env, "review", "update", "s")
    assert done.returncode == 0, done.stderr
    out = done.stdout.splitlines()
    assert out[0] == "s: run 2: 2 new records (8 in the set), 1 earlier include no longer retrieved"
    assert out[1].startswith("  pubmed: complete, found 7, fetched 7  ")
    new = out[
        out.index("New records:") + 1 : out.index(next(line for line in out if line.startswith("Flagged")))
    ]
    assert [line.split()[0] for line in new] == ["#7", "#8"]
    assert all(f"PMID {p.pmid}" in line for p, line in zip((paper(100), paper(101)), new, strict=True))
    flagged = out[-1]
    assert flagged.startswith(f"  #{key_of[papers[1].pmid]}  ") and f"PMID {papers[1].pmid}" in flagged

    again = await medlit(env, "review", "update", "s", "--json")
    assert again.returncode == 0, again.stderr
    state = json.loads(again.stdout)
    assert (
        state["new"] == 0
        and state["newRecords"] == []
        and state["droppedIncludes"] == [key_of[papers[1].pmid]]
    )
    assert state["sources"][0]["run"] == 3

    fake.fault("500", "ncbi", times=50)  # PubMed down: the run fails, and cron hears of it
    failed = await medlit(env, "review", "update", "s")
    assert failed.returncode == 1
    assert "search(es) FAILED" in failed.stdout.splitlines()[0] and "error: " in failed.stdout

    missing = await medlit(env, "review", "update", "no such set")
    assert missing.returncode == 1 and missing.stdout == ""
    assert missing.stderr.startswith("medlit review: ") and len(missing.stderr.splitlines()) == 1
