"""End to end over MCP stdio: a 20,000-record export file imported with review_import, the server
killed (SIGKILL) mid-import, and a new server resuming it when the same file is imported again:
every committed batch whole, nothing stored twice, the file's copy released once complete."""

from __future__ import annotations

import asyncio
import json
import random
import sqlite3
import sys
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters

from support.fake_upstream import FakeUpstream
from test_review_workflow import call, send, server_env

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

RECORDS = 20_000
WORDS = (
    "asthma children trial inhaled steroid wheeze preschool cohort risk outcome randomised placebo "
    "montelukast dose response exacerbation hospital admission school adherence spacer device lung "
    "function growth adverse effect bronchodilator allergy eczema smoke exposure urban rural season "
    "viral infection rhinovirus vaccine influenza obesity diet vitamin genetic marker eosinophil biomarker"
).split()


def big_ris(path: Path, n: int) -> None:
    rnd = random.Random(7)
    lines = []
    for i in range(n):
        title = " ".join(rnd.choice(WORDS) for _ in range(10)) + f" study {i}"
        lines += [
            "TY  - JOUR",
            f"ID  - R{i}",
            f"TI  - {title}",
            f"AU  - {rnd.choice(WORDS).title()}{i}, {rnd.choice('ABCDEFGH')}",
            f"PY  - {2000 + i % 25}",
            f"DO  - 10.5555/synthetic.{i}",
            "ER  - ",
            "",
        ]
    path.write_text("\n".join(lines))


def env_for(fake: FakeUpstream, tmp: Path) -> dict[str, str]:
    env = server_env(fake, tmp)
    env["MEDLIT_IMPORT_DIRS"] = str(tmp / "imports")
    return env


def counts(db: Path) -> tuple[int, int, str | None, int]:
    """(records, hits, the import's cursor, files still holding content) as committed."""
    if not db.exists():
        return 0, 0, None, 0
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)
    try:
        records = conn.execute("SELECT COUNT(*) FROM review_records").fetchone()[0]
        hits = conn.execute("SELECT COUNT(*) FROM review_hits").fetchone()[0]
        row = conn.execute("SELECT cursor FROM review_searches ORDER BY id DESC LIMIT 1").fetchone()
        held = conn.execute("SELECT COUNT(*) FROM review_files WHERE content IS NOT NULL").fetchone()[0]
    except sqlite3.OperationalError:  # tables not made yet
        return 0, 0, None, 0
    finally:
        conn.close()
    return records, hits, (row[0] if row else None), held


async def test_a_killed_file_import_loses_nothing_and_resumes(fake, tmp_path):
    (tmp_path / "imports").mkdir()
    export = tmp_path / "imports" / "embase.ris"
    big_ris(export, RECORDS)
    db = tmp_path / "review.db"
    args = {"set": "big", "database": "Embase", "path": str(export), "searchedOn": "2026-11-30"}
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "medlit",
        "serve",
        env=env_for(fake, tmp_path),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
    )
    try:
        init = {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"},
        }
        await send(proc, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init})
        assert proc.stdout is not None
        await proc.stdout.readline()
        await send(proc, {"jsonrpc": "2.0", "method": "notifications/initialized"})
        call_import = {"name": "review_import", "arguments": args}
        await send(proc, {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": call_import})
        for _ in range(3000):  # no clock: wait for the first committed batches, however slow the machine
            if counts(db)[1] >= 1000:
                break
            await asyncio.sleep(0.02)
        proc.kill()  # SIGKILL: no cleanup runs
        await proc.wait()
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
    records, hits, cursor, held = counts(db)
    assert 1000 <= hits < RECORDS, hits
    assert records == hits and cursor == str(hits)  # every committed batch whole, with its cursor
    assert held == 1  # the file is kept until its import completes

    params = StdioServerParameters(
        command=sys.executable, args=["-m", "medlit", "serve"], env=env_for(fake, tmp_path)
    )
    async with Client(params) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        state = (await call(client, tools, "review_sets", {})).structured_content["sets"][0]
        assert state["set"] == "big" and state["total"] == hits and not state["complete"]
        resumed = (await call(client, tools, "review_import", args)).structured_content
        while resumed["running"]:  # a slow machine may need more calls
            resumed = (await call(client, tools, "review_import", args)).structured_content
        assert "Resuming" in (resumed["notice"] or "") or resumed["complete"]
    assert resumed["complete"] and resumed["recordsInFile"] == RECORDS
    assert resumed["stored"] == RECORDS and resumed["total"] == RECORDS and resumed["duplicates"] == 0
    assert counts(db) == (RECORDS, RECORDS, None, 0)
    assert json.loads(json.dumps(resumed))["skipped"] == 0
