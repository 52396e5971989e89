"""The resolution chain with fake tiers and ID resolvers from inline plugins: order, overrides,
switches, failures, timeouts, lazy identifier resolution, carry-forward and merging."""

import asyncio
from dataclasses import replace

import pytest

from medlit.core.host import load_host
from medlit.core.jats.models import FulltextArticle
from medlit.core.plugin import (
    ArticleRef,
    ExtractedTextArticle,
    FulltextTier,
    IdResolver,
    PluginInfo,
    SettingSpec,
    StructuredArticle,
    TierResult,
    hookimpl,
)
from medlit.core.resolution import (
    NO_SOURCE_ENABLED,
    SPECIFICITY,
    UnavailableReason,
    merge_refs,
    most_specific,
    run_chain,
)
from medlit.core.settings import load_settings
from medlit.core.types import PluginState, ToolContext

pytestmark = pytest.mark.anyio


class _Named:
    """A fake plugin named ``self.name``, unconfigured until ``self.required`` is set when given."""

    name: str
    required: str | None

    @hookimpl
    def medlit_plugin_info(self):
        settings = (SettingSpec(self.required, "needed", required=True),) if self.required else ()
        return PluginInfo(name=self.name, title=self.name, settings=settings)


class FakeTierPlugin(_Named):
    """A plugin contributing one tier that answers from ``answers`` (key -> TierResult)."""

    def __init__(self, name, tier, order, accepts, answers=None, *, raises=None, delay=0.0, timeout=5.0,
                 required=None, learn=None):  # fmt: skip
        self.name, self.tier, self.order, self.accepts = name, tier, order, frozenset(accepts)
        self.answers = answers or {}
        self.raises, self.delay, self.timeout, self.required, self.learn = (
            raises,
            delay,
            timeout,
            required,
            learn,
        )
        self.calls = []

    @hookimpl
    def medlit_fulltext_tiers(self):
        return [FulltextTier(self.tier, self.order, self.accepts, self.resolve, timeout=self.timeout)]

    async def resolve(self, refs, ctx, options):
        self.calls.append([r.key for r in refs])
        if self.delay:
            await asyncio.sleep(self.delay)
        if self.raises is not None:
            raise self.raises
        out = {k: v for k, v in self.answers.items() if k in {r.key for r in refs}}
        for ref in refs:  # a tier may report identifiers it learns
            learned = (self.learn or {}).get(ref.key)
            if learned:
                out[ref.key] = replace(out.get(ref.key) or TierResult("miss"), ids=learned)
        return out


def hit(name="x"):
    return TierResult("hit", "", StructuredArticle(FulltextArticle(title=name, hasBody=True)))


async def _noop(*a, **k):
    return None


def context(*plugins, **env):
    settings = load_settings(env)
    host = load_host(settings, discover=False, inline=[(p.name, p) for p in plugins])
    import types as _t

    def plugin_context(plugin, progress=_noop):
        return ToolContext(plugin=plugin, settings=host.plugin_settings(plugin), progress=progress)

    core = _t.SimpleNamespace(catalog=host.catalog, context=plugin_context, call_deadline=50.0)
    return ToolContext(plugin="fulltext", progress=_noop, host=core)


def ref(key, **ids):
    return ArticleRef(key=key, requested=(key,), **ids)


def outcomes(res):
    return [(a.tier, a.outcome) for a in res.tried]


async def test_tiers_run_in_order_on_unresolved_refs():
    a = FakeTierPlugin("pa", "first", 10, {"pmcid"}, {"PMC1": hit()})
    b = FakeTierPlugin("pb", "second", 20, {"pmcid", "pmid"}, {"2": hit()})
    ctx = context(b, a)  # registration order must not matter
    result = await run_chain([ref("PMC1", pmcid="PMC1"), ref("2", pmid="2")], ctx)
    r1, r2 = result.resolutions
    assert r1.served_by == "first" and outcomes(r1) == [("first", "hit")]
    assert r2.served_by == "second"
    assert outcomes(r2) == [("first", "not-attempted"), ("second", "hit")]
    assert "pmcid" in r2.tried[0].detail
    assert a.calls == [["PMC1"]] and b.calls == [["2"]]  # a resolved ref is not sent on


async def test_env_overrides_tier_order():
    a = FakeTierPlugin("pa", "first", 10, {"pmid"}, {"1": hit("a")})
    b = FakeTierPlugin("pb", "second", 20, {"pmid"}, {"1": hit("b")})
    ctx = context(a, b, MEDLIT_TIER_ORDER_SECOND="5")
    (res,) = (await run_chain([ref("1", pmid="1")], ctx)).resolutions
    assert res.served_by == "second" and a.calls == []


async def test_unconfigured_tiers_are_reported_and_switched_off_ones_are_absent():
    off = FakeTierPlugin("europe", "europepmc", 20, {"pmid", "doi"}, {"1": hit()})
    unconf = FakeTierPlugin("unpay", "unpaywall", 30, {"doi"}, required="UNPAY_EMAIL")
    later = FakeTierPlugin("lib", "library", 40, {"pmid", "doi"}, required="LIB_KEY")
    pmc = FakeTierPlugin("pmcish", "pmc", 10, {"pmcid"})
    ctx = context(pmc, off, unconf, later, EUROPE_ENABLED="false")
    r_doi, r_pmid = (await run_chain([ref("10.1/x", doi="10.1/x"), ref("1", pmid="1")], ctx)).resolutions
    # a switched-off plugin's hooks never ran: its tier is unknown, not reported
    assert outcomes(r_doi) == [
        ("pmc", "not-attempted"),
        ("unpaywall", "not-attempted"),
        ("library", "not-attempted"),
    ]
    assert "UNPAY_EMAIL" in r_doi.tried[1].detail and "LIB_KEY" in r_doi.tried[2].detail
    assert r_doi.unqueried == ["unpaywall", "library"]
    assert r_doi.waiting_on == {"unpaywall": "UNPAY_EMAIL", "library": "LIB_KEY"}
    assert r_doi.reason == NO_SOURCE_ENABLED
    # unpaywall needs a DOI this ref lacks: skipped but not "unqueried"
    assert r_pmid.unqueried == ["library"] and r_pmid.reason == NO_SOURCE_ENABLED
    assert off.calls == unconf.calls == later.calls == []


async def test_a_raising_tier_is_a_service_error_and_the_chain_goes_on():
    from medlit.core.errors import upstream_error

    bad = FakeTierPlugin("pa", "first", 10, {"pmid"}, raises=upstream_error("ncbi", "unreachable", "down"))
    worse = FakeTierPlugin("pc", "third", 30, {"pmid"}, raises=RuntimeError("boom"))
    good = FakeTierPlugin("pb", "second", 20, {"pmid"}, {"1": hit()})
    ctx = context(bad, good, worse)
    result = await run_chain([ref("1", pmid="1"), ref("2", pmid="2")], ctx)
    r1, r2 = result.resolutions
    assert outcomes(r1) == [("first", "service-error"), ("second", "hit")]
    assert outcomes(r2) == [("first", "service-error"), ("second", "miss"), ("third", "service-error")]
    assert "down" in r2.tried[0].detail and "boom" in r2.tried[2].detail
    assert r2.reason == "service-error"
    # the chain's account of every failure: what was raised, and a plugin fault for the crash
    assert [e.reason for e in result.errors] == ["ncbi_unreachable", "plugin_error"]
    assert "plugin pc" in result.errors[1].message
    assert not result.all_failed_for_service_reasons()


async def test_all_tiers_failing_for_service_reasons():
    bad = FakeTierPlugin("pa", "first", 10, {"pmid"}, raises=RuntimeError("boom"))
    slow = FakeTierPlugin("pb", "second", 20, {"pmid"}, {"1": hit()}, delay=1.0, timeout=0.05)
    ctx = context(bad, slow)
    result = await run_chain([ref("1", pmid="1")], ctx)
    (res,) = result.resolutions
    assert outcomes(res) == [("first", "service-error"), ("second", "service-error")]
    assert "within 0.05 s" in res.tried[1].detail
    assert result.all_failed_for_service_reasons()


async def test_timeout_is_per_tier():
    slow = FakeTierPlugin("pa", "first", 10, {"pmid"}, {"1": hit()}, delay=1.0, timeout=0.05)
    fast = FakeTierPlugin("pb", "second", 20, {"pmid"}, {"1": hit("fast")})
    ctx = context(slow, fast)
    loop = asyncio.get_running_loop()
    started = loop.time()
    (res,) = (await run_chain([ref("1", pmid="1")], ctx)).resolutions
    assert loop.time() - started < 0.5
    assert res.served_by == "second" and outcomes(res)[0] == ("first", "service-error")


async def test_doi_found_along_the_way_is_carried_forward():
    pmc = FakeTierPlugin("pa", "pmc", 10, {"pmcid"}, {"PMC1": TierResult("no-body", "front matter only")},
                         learn={"PMC1": {"doi": "10.1/abc"}})  # fmt: skip
    oa = FakeTierPlugin("pb", "unpaywall", 30, {"doi"}, {"PMC1": hit()})
    ctx = context(pmc, oa)
    (res,) = (await run_chain([ref("PMC1", pmcid="PMC1")], ctx)).resolutions
    assert outcomes(res) == [("pmc", "no-body"), ("unpaywall", "hit")]
    assert oa.calls == [["PMC1"]] and res.ref.doi == "10.1/abc"


class FakeResolverPlugin(_Named):
    """A plugin contributing one ID resolver that fills ids from ``table`` (key -> {kind: value}),
    answering ``hit`` for those and ``outcomes[key]`` (default ``miss``) for the rest."""

    def __init__(self, name, resolver, order, accepts, provides, table=None, outcomes=None, *,
                 raises=None, required=None, tiers=()):  # fmt: skip
        self.name, self.resolver, self.order = name, resolver, order
        self.accepts, self.provides = frozenset(accepts), frozenset(provides)
        self.table, self.outcomes = table or {}, outcomes or {}
        self.raises, self.required, self.tiers = raises, required, tiers
        self.calls = []

    @hookimpl
    def medlit_id_resolvers(self):
        return [IdResolver(self.resolver, self.order, self.accepts, self.provides, self.resolve)]

    @hookimpl
    def medlit_fulltext_tiers(self):
        return list(self.tiers)

    async def resolve(self, refs, ctx):
        self.calls.append([r.key for r in refs])
        if self.raises is not None:
            raise self.raises
        out = {}
        for ref in refs:
            found = self.table.get(ref.key)
            if found:
                out[ref.key] = TierResult("hit", f"found {found}", ids=found)
            else:
                out[ref.key] = self.outcomes.get(ref.key, TierResult("miss", "not known"))
        return out


async def test_a_resolver_runs_before_the_tier_that_needs_it():
    conv = FakeResolverPlugin("pr", "conv", 10, {"pmid", "doi"}, {"pmcid", "doi"},
                              {"7": {"pmcid": "PMC7", "doi": "10.1/seven"}},
                              {"8": TierResult("no-body", "embargoed until 2030")})  # fmt: skip
    pmc = FakeTierPlugin("pa", "pmc", 10, {"pmcid"}, {"PMC1": hit(), "7": hit("seven")})
    refs = [ref("PMC1", pmcid="PMC1"), ref("7", pmid="7"), ref("8", pmid="8"), ref("9", pmid="9")]
    r1, r7, r8, r9 = (await run_chain(refs, context(conv, pmc))).resolutions
    # one call for every article that lacks a PMCID; an article that has one is not sent
    assert conv.calls == [["7", "8", "9"]] and pmc.calls == [["PMC1", "7"]]
    assert outcomes(r1) == [("pmc", "hit")]
    assert outcomes(r7) == [("conv", "hit"), ("pmc", "hit")] and r7.ref.doi == "10.1/seven"
    assert outcomes(r8) == [("conv", "no-body"), ("pmc", "not-attempted")] and r8.reason == "no-body"
    assert outcomes(r9) == [("conv", "miss"), ("pmc", "not-attempted")] and r9.reason == "not-found"
    assert "needs a pmcid" in r9.tried[1].detail


async def test_a_resolver_is_lazy_and_runs_once_per_article():
    conv = FakeResolverPlugin("pr", "conv", 10, {"pmid"}, {"pmcid", "doi"})
    first = FakeTierPlugin("pa", "bypmid", 10, {"pmid"}, {"1": TierResult("miss")})
    pmc = FakeTierPlugin("pb", "pmc", 20, {"pmcid"})
    oa = FakeTierPlugin("pc", "oa", 30, {"doi"})
    (res,) = (await run_chain([ref("1", pmid="1")], context(conv, first, pmc, oa))).resolutions
    # not called for the tier that can take the PMID; called once although two tiers needed it
    assert conv.calls == [["1"]]
    assert outcomes(res) == [
        ("bypmid", "miss"),
        ("conv", "miss"),
        ("pmc", "not-attempted"),
        ("oa", "not-attempted"),
    ]


async def test_resolvers_by_order_and_only_those_that_provide_what_the_tier_needs():
    doi_only = FakeResolverPlugin("p1", "doifinder", 5, {"pmid"}, {"doi"}, {"1": {"doi": "10.1/a"}})
    conv = FakeResolverPlugin("p2", "conv", 20, {"pmid", "doi"}, {"pmcid"}, {"1": {"pmcid": "PMC1"}})
    early = FakeResolverPlugin("p3", "early", 10, {"doi"}, {"pmcid"})  # accepts no id the ref has
    pmc = FakeTierPlugin("pa", "pmc", 10, {"pmcid"}, {"1": hit()})
    ctx = context(pmc, conv, doi_only, early)
    (res,) = (await run_chain([ref("1", pmid="1")], ctx)).resolutions
    assert doi_only.calls == [] and early.calls == [] and conv.calls == [["1"]]
    assert outcomes(res) == [("conv", "hit"), ("pmc", "hit")] and res.ref.pmcid == "PMC1"


async def test_a_later_resolver_gets_what_an_earlier_one_could_not_find():
    a = FakeResolverPlugin("p1", "a", 10, {"pmid"}, {"pmcid"}, {"1": {"pmcid": "PMC1"}})
    b = FakeResolverPlugin("p2", "b", 20, {"pmid"}, {"pmcid"}, {"2": {"pmcid": "PMC2"}})
    pmc = FakeTierPlugin("pa", "pmc", 10, {"pmcid"}, {"1": hit(), "2": hit()})
    r1, r2 = (await run_chain([ref("1", pmid="1"), ref("2", pmid="2")], context(a, b, pmc))).resolutions
    assert a.calls == [["1", "2"]] and b.calls == [["2"]]
    assert outcomes(r1) == [("a", "hit"), ("pmc", "hit")]
    assert outcomes(r2) == [("a", "miss"), ("b", "hit"), ("pmc", "hit")]


async def test_ids_a_resolver_finds_fold_refs_naming_one_article():
    conv = FakeResolverPlugin("pr", "conv", 10, {"pmid", "doi"}, {"pmcid"},
                              {"7": {"pmcid": "PMC7"}, "10.1/x": {"pmcid": "PMC7"}})  # fmt: skip
    pmc = FakeTierPlugin("pa", "pmc", 10, {"pmcid"}, {"PMC7": hit()})
    refs = [ref("PMC7", pmcid="PMC7"), ref("7", pmid="7"), ref("10.1/x", doi="10.1/x")]
    result = await run_chain(refs, context(conv, pmc))
    (res,) = result.resolutions
    assert res.ref.key == "PMC7" and res.ref.requested == ("PMC7", "7", "10.1/x")
    assert (res.ref.pmid, res.ref.doi) == ("7", "10.1/x")
    assert pmc.calls == [["PMC7"]] and res.served_by == "pmc"


async def test_a_failing_resolver_is_a_service_error_for_its_articles_only():
    from medlit.core.errors import upstream_error

    conv = FakeResolverPlugin("pr", "conv", 10, {"pmid"}, {"pmcid"},
                              raises=upstream_error("conv", "unreachable", "down"))  # fmt: skip
    pmc = FakeTierPlugin("pa", "pmc", 10, {"pmcid"}, {"PMC1": hit()})
    result = await run_chain([ref("PMC1", pmcid="PMC1"), ref("2", pmid="2")], context(conv, pmc))
    r1, r2 = result.resolutions
    assert r1.resolved and outcomes(r2) == [("conv", "service-error"), ("pmc", "not-attempted")]
    assert r2.reason == "service-error" and "down" in r2.tried[0].detail
    assert [e.reason for e in result.errors] == ["conv_unreachable"]
    only = await run_chain([ref("2", pmid="2")], context(conv, pmc))
    assert only.all_failed_for_service_reasons()


async def _never_asked(refs, ctx, options):  # a tier of the waiting plugin: the host checks its arity
    raise AssertionError("a waiting plugin's tier ran")


async def test_an_inactive_resolver_is_reported_and_its_tier_counted_unqueried():
    off = FakeResolverPlugin("conv", "conv", 10, {"pmid"}, {"pmcid", "doi"},
                             tiers=[FulltextTier("pmc", 10, frozenset({"pmcid"}), _never_asked)])  # fmt: skip
    oa = FakeTierPlugin("pb", "oa", 30, {"doi"})
    off.required = "CONV_KEY"  # switched on, waiting on a setting: its steps are known, not run
    ctx = context(off, oa)
    (res,) = (await run_chain([ref("1", pmid="1")], ctx)).resolutions
    assert off.calls == [] and oa.calls == []
    # pmc could have served it (the resolver would have found a PMCID); oa needs a DOI that only
    # the unconfigured resolver could find: it is named, with the variable to set
    assert outcomes(res) == [("pmc", "not-attempted"), ("conv", "not-attempted"), ("oa", "not-attempted")]
    assert "set CONV_KEY" in res.tried[1].detail
    assert res.unqueried == ["pmc"] and res.waiting_on == {"pmc": "CONV_KEY"}
    assert res.reason == NO_SOURCE_ENABLED


async def test_a_resolver_answer_with_a_bad_outcome_is_contained():
    conv = FakeResolverPlugin("pr", "conv", 10, {"pmid"}, {"pmcid"},
                              outcomes={"1": TierResult("found-it"), "2": "yes"})  # fmt: skip
    pmc = FakeTierPlugin("pa", "pmc", 10, {"pmcid"})
    r1, r2 = (await run_chain([ref("1", pmid="1"), ref("2", pmid="2")], context(conv, pmc))).resolutions
    assert outcomes(r1)[0] == ("conv", "service-error") and outcomes(r2)[0] == ("conv", "service-error")


async def test_hits_are_stamped_with_the_tier_that_served_them():
    text = ExtractedTextArticle("words", "pdf-text", "https://x.example/a.pdf")
    oa = FakeTierPlugin("pb", "oa", 30, {"doi"}, {"10.1/a": TierResult("hit", "", text)})
    (res,) = (await run_chain([ref("10.1/a", doi="10.1/a")], context(oa))).resolutions
    assert res.hit.article == replace(text, tier="oa", source="oa") and text.tier == ""  # a copy


async def test_a_tier_labels_its_articles_and_only_its_declared_record_ids_pass():
    art = StructuredArticle(
        FulltextArticle(title="x", hasBody=True), record_ids={"libId": "L1", "sneaky": "s"}
    )
    lib = FakeTierPlugin("pb", "lib", 10, {"pmid"}, {"1": TierResult("hit", "", art)})
    plugin_ctx = context(lib)
    tier = replace(plugin_ctx.host.catalog.tiers[0].record, source="acme-library", record_ids=("libId",))
    state = plugin_ctx.host.catalog.tiers[0].state
    (res,) = (
        await run_chain([ref("1", pmid="1")], plugin_ctx, tiers=[(tier, state)], resolvers=[])
    ).resolutions
    assert (res.hit.article.source, res.hit.article.tier, dict(res.hit.article.record_ids)) == (
        "acme-library",
        "lib",
        {"libId": "L1"},
    )


def test_one_vocabulary():
    from typing import get_args

    from medlit.core.types import TierOutcomeKind
    from medlit.plugins.fulltext.models import Unavailable

    assert set(SPECIFICITY) | {NO_SOURCE_ENABLED} == set(get_args(UnavailableReason))
    assert Unavailable.model_fields["reason"].annotation == UnavailableReason
    schema = Unavailable.model_json_schema()
    assert set(schema["properties"]["reason"]["enum"]) == set(get_args(UnavailableReason))
    assert "hit" in get_args(TierOutcomeKind) and "not-attempted" in get_args(TierOutcomeKind)


async def test_most_specific_reason():
    pmc = FakeTierPlugin("pa", "pmc", 10, {"pmcid"}, {"PMC1": TierResult("no-body")})
    epmc = FakeTierPlugin("pb", "europepmc", 20, {"pmcid"}, {"PMC1": TierResult("no-fulltext")})
    oa = FakeTierPlugin("pc", "unpaywall", 30, {"pmcid"}, raises=RuntimeError("x"))
    (res,) = (await run_chain([ref("PMC1", pmcid="PMC1")], context(pmc, epmc, oa))).resolutions
    assert res.reason == "no-body"
    assert most_specific(["miss", "service-error"]) == "service-error"
    assert most_specific(["miss", "no-fulltext"]) == "no-fulltext"
    assert most_specific(["not-attempted"]) == NO_SOURCE_ENABLED
    assert most_specific([]) == NO_SOURCE_ENABLED


async def test_bad_tier_answers_are_contained():
    weird = FakeTierPlugin("pa", "first", 10, {"pmid"},
                           {"1": "not a result", "2": TierResult("hit"), "3": TierResult("bogus")})  # fmt: skip
    result = await run_chain([ref("1", pmid="1"), ref("2", pmid="2"), ref("3", pmid="3")], context(weird))
    assert [r.tried[0].outcome for r in result.resolutions] == [
        "service-error",
        "parse-failed",
        "service-error",
    ]


async def test_every_ref_ends_resolved_or_with_a_reason():
    a = FakeTierPlugin("pa", "first", 10, {"pmcid", "pmid", "doi"},
                       {"PMC1": hit(), "2": TierResult("miss"), "10.1/z": TierResult("no-oa")})  # fmt: skip
    refs = [ref("PMC1", pmcid="PMC1"), ref("2", pmid="2"), ref("10.1/z", doi="10.1/z"), ref("nothing")]
    result = await run_chain(refs, context(a))
    for res in result.resolutions:
        assert res.resolved or res.reason
    assert [r.reason for r in result.unresolved] == ["not-found", "no-oa", NO_SOURCE_ENABLED]


async def test_no_tiers_at_all():
    (res,) = (await run_chain([ref("1", pmid="1")], context())).resolutions
    assert res.tried == [] and res.reason == NO_SOURCE_ENABLED


async def test_progress_reported_per_tier():
    seen = []

    async def progress(done, total=None, message=None):
        seen.append(message)

    a = FakeTierPlugin("pa", "first", 10, {"pmid"})
    ctx = replace(context(a), progress=progress)
    await run_chain([ref("1", pmid="1")], ctx)
    assert any("first" in (m or "") for m in seen)


def test_merge_refs_folds_ids_naming_one_article():
    refs = [
        ArticleRef("PMC1", pmcid="PMC1", requested=("PMC1",)),
        ArticleRef("11", pmid="11", pmcid="PMC1", requested=("11",)),
        ArticleRef("10.1/AB", doi="10.1/AB", pmid="11", requested=("10.1/AB",)),
        ArticleRef("10.2/x", doi="10.2/x", requested=("10.2/x",)),
        ArticleRef("10.1/ab", doi="10.1/ab", requested=("10.1/ab",)),
    ]
    merged, alias = merge_refs(refs)
    assert [m.key for m in merged] == ["PMC1", "10.2/x"]
    first = merged[0]
    assert (first.pmcid, first.pmid, first.doi) == ("PMC1", "11", "10.1/AB")
    assert first.requested == ("PMC1", "11", "10.1/AB", "10.1/ab")
    assert alias == {"PMC1": "PMC1", "11": "PMC1", "10.1/AB": "PMC1", "10.2/x": "10.2/x", "10.1/ab": "PMC1"}


async def test_a_tier_returning_no_mapping_is_a_service_error_not_a_miss():
    class ListTier(FakeTierPlugin):
        async def resolve(self, refs, ctx, options):
            return [hit()]

    (res,) = (await run_chain([ref("1", pmid="1")], context(ListTier("pa", "t", 10, {"pmid"})))).resolutions
    assert outcomes(res) == [("t", "service-error")] and "not a mapping" in res.tried[0].detail
    assert res.reason == "service-error"


async def test_a_tiers_own_timeout_is_not_reported_as_the_chains():
    own = FakeTierPlugin("pa", "t", 10, {"pmid"}, raises=TimeoutError("socket read"), timeout=30)
    (res,) = (await run_chain([ref("1", pmid="1")], context(own))).resolutions
    assert outcomes(res) == [("t", "service-error")]
    assert "within" not in res.tried[0].detail and "socket read" in res.tried[0].detail


async def test_a_hit_folded_in_keeps_its_own_report_of_the_tier():
    """The tier misses PMC1 and serves PMID 2, learning it is PMC1: the folded article is served by
    that tier, and its report says hit, not the other ref's miss."""
    t = FakeTierPlugin("pm", "mirror", 10, {"pmcid", "pmid"}, {"PMC1": TierResult("miss", "not here"), "2": hit()},
                       learn={"2": {"pmcid": "PMC1"}})  # fmt: skip
    out = await run_chain([ref("PMC1", pmcid="PMC1"), ref("2", pmid="2")], context(t))
    (res,) = out.resolutions
    assert res.ref.requested == ("PMC1", "2") and res.served_by == "mirror"
    assert outcomes(res) == [("mirror", "hit")]


async def test_an_inactive_tier_no_variable_enables_says_why_in_the_hosts_words():
    """A plugin off for a reason no variable fixes (left out of MEDLIT_LOAD_PLUGINS, failed to
    load): the step's detail carries the host's account, not only the status."""

    async def resolve(refs, ctx, options):
        raise AssertionError("an inactive tier is never called")

    tier = FulltextTier("t", 10, frozenset({"pmcid"}), resolve, plugin="px")
    record = PluginState(
        name="px", status="error", waiting_on="", detail="failed to load: ImportError: no lxml"
    )
    out = await run_chain([ref("PMC1", pmcid="PMC1")], context(), tiers=[(tier, record)], resolvers=[])
    (res,) = out.resolutions
    assert res.reason == NO_SOURCE_ENABLED and res.waiting_on == {} and res.unqueried == ["t"]
    assert [a.as_dict() for a in res.tried] == [
        {
            "tier": "t",
            "outcome": "not-attempted",
            "detail": "plugin 'px' is error (failed to load: ImportError: no lxml)",
        }
    ]
