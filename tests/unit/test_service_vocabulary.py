"""What a service declares about itself and core applies without knowing it (booleans, error keys,
uncacheable parameters and answers), the session every paced client shares, and open-web
services as their own record type."""

from __future__ import annotations

import dataclasses

import aiohttp
import pytest
from aiohttp import web

from medlit.core.cache import SqliteCache, cache_setting
from medlit.core.errors import MedlitError
from medlit.core.host import load_host
from medlit.core.net.http import UpstreamClient
from medlit.core.net.request import ServiceConfig
from medlit.core.net.session import is_paced_session, new_session
from medlit.core.net.webfetch import WebClient
from medlit.core.plugin import CacheRule, OpenWebSpec, PluginInfo, ServiceSpec, hookimpl, wire
from medlit.core.settings import load_settings
from medlit.testing import InlinePlugin, make_host, make_runtime

from support.environments import fake_env

pytestmark = pytest.mark.anyio
LOOPBACK = frozenset({"127.0.0.1", "localhost"})


def _config(fake, **options) -> ServiceConfig:
    return ServiceConfig("acme", fake.url("acme"), "acme", LOOPBACK, **options)


async def _sent_flag(fake, **options) -> str:
    fake.respond("acme", "q", b"<ok/>")
    async with new_session() as session:
        client = UpstreamClient(session, _config(fake, **options), load_settings(fake_env(fake)))
        await client.get("q", {"flag": True, "other": False})
    (req,) = fake.of("acme")
    return f"{req.params['flag']}/{req.params['other']}"


async def test_booleans_are_sent_as_the_service_spells_them(fake):
    assert await _sent_flag(fake) == "true/false"  # the generic default
    fake.requests.clear()
    assert await _sent_flag(fake, bool_values=("y", "n")) == "y/n"


async def test_e_utilities_booleans_stay_y_and_n(fake):
    fake.respond("ncbi", "einfo.fcgi", b"<eInfoResult/>")
    async with new_session() as session:
        from medlit.core.net.clients import build_clients

        clients = build_clients(session, load_host(load_settings(fake_env(fake))))
        await clients["ncbi"].get("einfo.fcgi", {"flag": True})
    assert fake.of("ncbi")[-1].params["flag"] == "y"


async def _refusal(fake, **options) -> str:
    fake.route("acme", "q", lambda req: web.json_response({"errMsg": "no such field"}, status=400))
    async with new_session() as session:
        client = UpstreamClient(session, _config(fake, **options), load_settings(fake_env(fake)))
        with pytest.raises(MedlitError) as info:
            await client.get("q", expect="json")
    return info.value.message


async def test_an_error_body_is_quoted_from_the_keys_the_service_declares(fake):
    assert await _refusal(fake) == "acme rejected the request (HTTP 400)"  # errMsg is nobody's default
    assert (
        await _refusal(fake, error_keys=("errMsg",)) == "acme rejected the request (HTTP 400): no such field"
    )


async def _requests_for_two_calls(fake, tmp_path, params: dict[str, str], body: bytes, **options) -> int:
    fake.requests.clear()
    fake.respond("acme", "q", body)
    settings = load_settings({"MEDLIT_CACHE": f"sqlite:///{tmp_path}/c.sqlite3"})
    cache = SqliteCache(cache_setting(settings))
    try:
        async with new_session() as session:
            config = _config(fake, cache_rules=(CacheRule("*", wire.DAY),), **options)
            client = UpstreamClient(session, config, load_settings(fake_env(fake)), cache=cache)
            for _ in range(2):
                await client.get("q", params)
        return len(fake.of("acme"))
    finally:
        await cache.clear()
        await cache.close()


async def test_uncacheable_parameters_and_markers_are_the_services_own(fake, tmp_path):
    handle = {"Session": "abc"}
    assert await _requests_for_two_calls(fake, tmp_path, handle, b"<ok/>") == 1  # nothing declared
    assert (
        await _requests_for_two_calls(fake, tmp_path, handle, b"<ok/>", uncacheable_params={"session"}) == 2
    )
    assert await _requests_for_two_calls(fake, tmp_path, {}, b"<ok><WebEnv>x</WebEnv></ok>") == 1
    marked = b"<ok><Handle>x</Handle></ok>"
    assert await _requests_for_two_calls(fake, tmp_path, {}, marked, uncacheable_markers=(b"<Handle>",)) == 2


async def test_a_client_needs_the_paced_session():
    async with aiohttp.ClientSession() as plain, new_session() as paced:
        assert is_paced_session(paced) and not is_paced_session(plain)
        config = ServiceConfig("acme", "https://acme.example.org", "acme", frozenset({"acme.example.org"}))
        with pytest.raises(ValueError, match="new_session"):
            UpstreamClient(plain, config, load_settings({}))
        assert UpstreamClient(paced, config, load_settings({})).session is paced


# -- open-web services ----------------------------------------------------------------------------
def _web_plugin(*services) -> InlinePlugin:
    return InlinePlugin(
        medlit_plugin_info=hookimpl(lambda: PluginInfo(name="acme", title="Acme")),
        medlit_services=hookimpl(lambda: list(services)),
    )


def test_an_open_web_service_is_its_own_record():
    assert "open_web" not in {f.name for f in dataclasses.fields(ServiceSpec)}
    fields = {f.name for f in dataclasses.fields(OpenWebSpec)}
    assert not fields & {"base_url", "identify", "inspect", "hosts", "pacing_group", "cache", "records"}
    web_spec = OpenWebSpec("acme_web", "Acme hosts", rate=1.5, headers=lambda cfg: {"User-Agent": "a"})
    host = make_host(("acme", _web_plugin(web_spec)))
    rec = host.services["acme_web"]
    assert isinstance(rec.spec, OpenWebSpec) and rec.spec.plugin == "acme"
    assert rec.rate == 1.5 and rec.headers == {"User-Agent": "a"}
    assert rec.base_url == "" and rec.allowed_hosts == frozenset()


def test_a_service_hook_returning_something_else_names_both_records():
    host = make_host(("acme", _web_plugin("not a spec")))
    assert host.plugins["acme"].status == "error"
    assert "not a ServiceSpec or OpenWebSpec" in host.plugins["acme"].detail


def test_an_open_web_service_name_is_checked_like_any_service():
    host = make_host(("acme", _web_plugin(OpenWebSpec("Acme Web", "Acme hosts"))))
    assert host.plugins["acme"].status == "error" and "lower-case" in host.plugins["acme"].detail


async def test_services_and_open_web_services_get_their_own_clients():
    plugin = _web_plugin(
        ServiceSpec("acme_api", "Acme", "https://api.acme.example.org"),
        OpenWebSpec("acme_web", "Acme hosts", rate=2.0, error_prefix="acme_host"),
    )
    async with make_runtime(("acme", plugin)) as rt:
        ctx = rt.context("acme")
        web_client = ctx.web("acme_web")
        assert isinstance(web_client, WebClient)
        assert web_client.config.rate == 2.0 and web_client.config.error_prefix == "acme_host"
        assert isinstance(ctx.client("acme_api"), UpstreamClient)
        with pytest.raises(MedlitError, match="OpenWebSpec"):
            ctx.client("acme_web")
        with pytest.raises(MedlitError, match="OpenWebSpec"):
            ctx.web("acme_api")
