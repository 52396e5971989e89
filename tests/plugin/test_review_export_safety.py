"""Review exports against kills and hostile names (issue 32): the temporaries a killed export left
are swept when the workspace opens and never served; a resource name too long for a file system
is refused as an argument (no path, no traceback); a remote principal's answer names files and
resource URIs, never the server's directories; a screening id has a bound like every integer."""

from __future__ import annotations

import logging
import os
import time

import pytest

from support.environments import fake_env
from support.review_routes import PUBMED_QUERY, Literature, install
from support.review_stores import sqlite_url

pytestmark = pytest.mark.anyio


@pytest.fixture
def exports(tmp_path):
    return tmp_path / "exports"


@pytest.fixture
def runtime(fake, tmp_path, exports):
    from medlit.testing import make_runtime

    install(fake, Literature.build(pubmed=6, europepmc=0))
    env = fake_env(fake, MEDLIT_STORE=sqlite_url(tmp_path), MEDLIT_EXPORT_DIR=str(exports))
    return make_runtime(env=env, discover=True)


async def ok(rt, tool, principal="", **args):
    out = await rt.call(tool, args, principal=principal)
    assert not out.is_error, out.text
    return out


def leftover(directory, name, age):
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / name
    path.write_text("TY  - JOUR\nTI  - half a rec")  # what a SIGKILL mid-write leaves
    stamp = time.time() - age
    os.utime(path, (stamp, stamp))
    return path


async def test_a_killed_exports_temporaries_are_swept_at_start_and_never_served(runtime, exports):
    stale = leftover(exports, ".export-k1ll3d", age=3600)
    stale_remote = leftover(exports / "principals" / ("a" * 32), ".export-r3m0te", age=3600)
    fresh = leftover(exports, ".export-1nfl1ght", age=0)  # another replica's export in progress
    async with runtime as rt:
        await ok(rt, "review_sets", action="list")  # the workspace opens
        assert not stale.exists() and not stale_remote.exists()
        assert fresh.exists()
        text, err = await rt.read_resource(f"review://exports/{fresh.name}")
        assert text is None and err is not None and err.kind == "invalid_argument"
        assert "half a rec" not in err.message


async def test_a_resource_name_too_long_for_a_file_is_a_clean_invalid_argument(runtime, exports, caplog):
    caplog.set_level(logging.DEBUG)
    async with runtime as rt:
        await ok(rt, "review_search", set="s", queries={"pubmed": PUBMED_QUERY})
        await ok(rt, "review_export", set="s", format="ris")
        for name in ("x" * 256 + ".ris", "é" * 200 + ".ris"):  # 256+ bytes, in characters or not
            text, err = await rt.read_resource(f"review://exports/{name}")
            assert text is None and err is not None
            assert err.kind == "invalid_argument", err.message
            assert str(exports) not in err.message and "/" not in err.message
    assert not [r for r in caplog.records if r.exc_info], [
        r.getMessage() for r in caplog.records if r.exc_info
    ]


async def test_a_remote_principal_learns_file_names_and_uris_never_server_paths(runtime, exports):
    async with runtime as rt:
        for who in ("alice", ""):
            await ok(rt, "review_search", principal=who, set="s", queries={"pubmed": PUBMED_QUERY})
        remote = await ok(rt, "review_export", principal="alice", set="s", format="ris")
        local = await ok(rt, "review_export", set="s", format="ris")
        assert remote.data["path"] == "s.ris" and remote.data["logPath"] == "s.search-log.md"
        assert remote.data["uri"] == "review://exports/s.ris"
        assert str(exports) not in remote.text and str(exports) not in str(remote.data)
        text, err = await rt.read_resource(remote.data["uri"], principal="alice")
        assert err is None and text is not None and text.startswith("TY  -")
        # the local stdio user owns the disk: it keeps the path to open
        assert local.data["path"] == str((exports / "s.ris").resolve())


async def test_a_screening_id_beyond_the_bound_is_an_invalid_argument(runtime, caplog):
    async with runtime as rt:
        await ok(rt, "review_search", set="s", queries={"pubmed": PUBMED_QUERY})
        for huge in (2**63, 2**53):
            out = await rt.call(
                "review_screen",
                {"set": "s", "decisions": [{"id": huge, "stage": "title_abstract", "decision": "include"}]},
            )
            assert out.is_error and out.error.kind == "invalid_argument", out.text
        # the bound leaves every real key alone: an unknown small key is refused on its own
        out = await ok(
            rt,
            "review_screen",
            set="s",
            decisions=[{"id": 2**53 - 1, "stage": "title_abstract", "decision": "include"}],
        )
        assert "unknown_id" in out.text
    assert not [r for r in caplog.records if r.exc_info]
