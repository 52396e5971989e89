"""Review sets per principal, through the runtime (as the HTTP transport calls it): each principal
sees, pages, exports, renames and deletes only its own sets, another's answers exactly like a set
that does not exist, and exports land in a directory per principal; the local user ("") keeps the
export directory itself. On SQLite and on PostgreSQL (skipped with the reason when unreachable)."""

from __future__ import annotations

import pytest

from support.environments import fake_env
from support.review_routes import PUBMED_QUERY, Literature, install

pytestmark = pytest.mark.anyio


@pytest.fixture
def runtime(fake, tmp_path, store_url):
    from medlit.testing import make_runtime

    install(fake, Literature.build(pubmed=12, europepmc=0))
    env = fake_env(fake, MEDLIT_STORE=store_url, MEDLIT_EXPORT_DIR=str(tmp_path / "exports"))
    return make_runtime(env=env, discover=True)


async def ok(rt, principal, tool, **args):
    out = await rt.call(tool, args, principal=principal)
    assert not out.is_error, out.text
    return out


async def refused(rt, principal, tool, **args):
    out = await rt.call(tool, args, principal=principal)
    assert out.is_error, out.text
    return out


async def test_a_principal_never_reaches_another_principals_set(runtime, tmp_path):
    async with runtime as rt:
        await ok(rt, "alice", "review_search", set="s", queries={"pubmed": PUBMED_QUERY})
        exported = (await ok(rt, "alice", "review_export", set="s", format="ris")).data
        assert (await ok(rt, "alice", "review_sets", action="list")).data["sets"][0]["set"] == "s"

        for who in ("bob", ""):
            assert (await ok(rt, who, "review_sets", action="list")).data["sets"] == []
            missing = await refused(rt, who, "review_records", set="absent")
            for tool, args in (
                ("review_records", {"set": "s"}),
                ("review_export", {"set": "s", "format": "ris"}),
                ("review_sets", {"action": "delete", "set": "s", "confirm": "s"}),
                ("review_sets", {"action": "rename", "set": "s", "newName": "t"}),
                ("review_sets", {"action": "settings", "set": "s", "blind": False}),
                ("review_search", {"set": "s"}),  # resuming
            ):
                out = await refused(rt, who, tool, **args)
                assert out.error.to_dict() == {
                    **missing.error.to_dict(),
                    "message": missing.error.message.replace("'absent'", "'s'"),
                    "details": {"set": "s"},
                }, tool
            text, err = await rt.read_resource(exported["uri"], principal=who)
            assert text is None and err is not None and "No export file" in err.message
            text, err = await rt.read_resource("review://sets/s/log", principal=who)
            assert text is None and err is not None and err.kind == "unknown_set"

        text, err = await rt.read_resource(exported["uri"], principal="alice")
        assert err is None and text is not None and text.startswith("TY  -")
        assert (await ok(rt, "alice", "review_records", set="s")).data["total"] == 12

    exports = tmp_path / "exports"
    assert not list(exports.glob("*.ris"))  # nothing in the local user's directory
    (alice_dir,) = (exports / "principals").iterdir()
    assert "alice" not in alice_dir.name and (alice_dir / exported["path"]).is_file()


async def test_the_same_name_is_a_different_set_per_principal(runtime):
    async with runtime as rt:
        await ok(rt, "alice", "review_search", set="s", queries={"pubmed": PUBMED_QUERY})
        await ok(rt, "", "review_search", set="s", queries={"pubmed": PUBMED_QUERY})
        await ok(rt, "", "review_sets", action="delete", set="s", confirm="s")
        assert [s["set"] for s in (await ok(rt, "alice", "review_sets", action="list")).data["sets"]] == ["s"]
        assert (await ok(rt, "", "review_sets", action="list")).data["sets"] == []
