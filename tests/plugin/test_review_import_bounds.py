"""review_import's bounds (issue 50), on SQLite and PostgreSQL: a file sent in parts is capped as
its parts arrive (never joined first), listed in review_sets while pending, cancellable, kept across
a restart and dropped when it expires; a file over the record cap is refused whole; a path with an
over-long name is an argument error naming no server path; notices read as separate sentences."""

from __future__ import annotations

import asyncio
import functools

import pytest

from support.tool_calls import answered, refused

pytestmark = pytest.mark.anyio


def ris(count: int, start: int = 0) -> str:
    return "".join(
        f"TY  - JOUR\nID  - R{i}\nTI  - A distinct trial number {i} of inhaled steroids\nPY  - 2020\nER  - \n\n"
        for i in range(start, start + count)
    )


@pytest.fixture
def runtime_for(review_runtime):
    return functools.partial(review_runtime, MEDLIT_EUROPEPMC_RATE="200")


async def uploads(rt, name):
    listed = await answered(rt, "review_sets")
    return next((s["uploads"] for s in listed.data["sets"] if s["set"] == name), None)


async def test_a_file_in_parts_is_refused_at_the_part_that_passes_the_cap(runtime_for):
    part = ris(3)
    size = len(part.encode())
    async with runtime_for(MEDLIT_IMPORT_MAX_BYTES=str(2 * size + 10)) as rt:
        await answered(rt, "review_import", set="u", database="Scopus", content=part, part=1, parts=5)
        await answered(rt, "review_import", set="u", database="Scopus", content=ris(3, 3), part=2, parts=5)
        held = await uploads(rt, "u")
        assert held == [
            {
                "database": "Scopus",
                "partsReceived": 2,
                "parts": 5,
                "bytes": 2 * size,
                "since": held[0]["since"],
            }
        ]
        err = await refused(
            rt, "review_import", set="u", database="Scopus", content=ris(3, 6), part=3, parts=5
        )
        assert err.reason == "invalid_argument" and not err.retryable
        assert f"{3 * size:,} bytes" in err.message and "MEDLIT_IMPORT_MAX_BYTES" in err.message
        assert "dropped" in err.message and err.recovery
        assert await uploads(rt, "u") == []


async def test_a_pending_file_is_listed_survives_a_restart_and_can_be_cancelled(runtime_for):
    async with runtime_for() as rt:
        first = await answered(
            rt, "review_import", set="c", database="Embase", content=ris(2), part=1, parts=2
        )
        assert not first.data["complete"] and not first.data["running"]
        listed = await rt.call("review_sets", {})
        assert "Files being sent in parts" in listed.text and "cancel=true" in listed.text
    async with runtime_for() as rt:  # a restart: the part is still held, and the file completes
        assert [u["partsReceived"] for u in await uploads(rt, "c")] == [1]
        done = await answered(
            rt, "review_import", set="c", database="Embase", content=ris(2, 2), part=2, parts=2
        )
        assert done.data["complete"] and done.data["stored"] == 4
        assert await uploads(rt, "c") == []
        await answered(rt, "review_import", set="c", database="CINAHL", content=ris(1), part=1, parts=3)
        cancelled = await answered(rt, "review_import", set="c", database="CINAHL", cancel=True)
        assert "Dropped 1 part" in cancelled.data["notice"]
        assert await uploads(rt, "c") == []
        again = await answered(rt, "review_import", set="c", database="CINAHL", cancel=True)
        assert "nothing was dropped" in again.data["notice"]
        err = await refused(rt, "review_import", set="c", database="CINAHL", cancel=True, content="x")
        assert err.reason == "invalid_argument"
        err = await refused(rt, "review_import", set="nope", database="CINAHL", cancel=True)
        assert err.reason == "unknown_set"


async def test_parts_expire_after_their_time_to_live(runtime_for):
    async with runtime_for() as rt:
        await answered(rt, "review_import", set="e", database="Embase", content=ris(1), part=1, parts=2)
    # times are kept to the second: a part is older than a 0 s time to live once a second has turned
    await asyncio.sleep(1.05)
    async with runtime_for(MEDLIT_IMPORT_PARTS_TTL="0") as rt:
        assert await uploads(rt, "e") == []
        # the part was dropped: the second part alone does not make the file
        out = await answered(
            rt, "review_import", set="e", database="Embase", content=ris(1, 1), part=2, parts=2
        )
        assert not out.data["complete"] and "Received parts 2 of 2" in out.data["notice"]


async def test_a_file_over_the_record_cap_is_refused_whole(runtime_for):
    async with runtime_for(MEDLIT_IMPORT_MAX_RECORDS="5") as rt:
        err = await refused(rt, "review_import", set="r", database="Embase", content=ris(6))
        assert err.reason == "import_too_large" and not err.retryable and err.recovery
        assert "6 records" in err.message and "MEDLIT_IMPORT_MAX_RECORDS" in err.message
        assert "nothing was stored" in err.message
        ok = await answered(rt, "review_import", set="r", database="Embase", content=ris(5))
        assert ok.data["complete"] and ok.data["stored"] == 5


async def test_a_path_with_an_overlong_name_is_an_argument_error_naming_no_server_path(runtime_for, tmp_path):
    folder = tmp_path / "imports"
    folder.mkdir()
    async with runtime_for(MEDLIT_IMPORT_DIRS=str(folder)) as rt:
        for given in (folder / ("x" * 300 + ".ris"), folder / ("d" * 256) / "a.ris"):
            err = await refused(rt, "review_import", set="p", database="Embase", path=str(given))
            assert err.reason == "invalid_argument", err
            assert "255 bytes" in err.message and str(tmp_path) not in err.message + (err.recovery or "")


async def test_two_notices_read_as_two_sentences(runtime_for):
    # UTF-16 with a title over the cap: the decoder's and the reader's notices, neither with a stop
    text = "TY  - JOUR\nID  - L1\nTI  - " + "long title " * 400 + "\nER  - \n"
    import base64

    content = base64.b64encode(text.encode("utf-16")).decode()
    async with runtime_for() as rt:
        out = await answered(
            rt, "review_import", set="n", database="Embase", content=content, contentEncoding="base64"
        )
        notice = out.data["notice"]
        assert "UTF-16 decoded. " in notice and "characters: cut." in notice, notice


async def test_several_sets_are_listed_each_with_its_own_pending_files(runtime_for):
    async with runtime_for() as rt:
        await answered(rt, "review_import", set="a", database="Embase", content=ris(2), part=1, parts=2)
        await answered(rt, "review_import", set="b", database="Scopus", content=ris(1), part=1, parts=3)
        await answered(rt, "review_import", set="c", database="CINAHL", content=ris(3))
        assert [u["database"] for u in await uploads(rt, "a")] == ["Embase"]
        assert [u["parts"] for u in await uploads(rt, "b")] == [3]
        assert await uploads(rt, "c") == []
