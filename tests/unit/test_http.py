"""The upstream client: pacing, retries, cooldown, deadline, redirects, body cap, redaction."""

from __future__ import annotations

import asyncio
import itertools
import time

import pytest
from aiohttp import web

from medlit.core.errors import MedlitError
from medlit.core.host import load_host
from medlit.core.net.clients import build_clients
from medlit.core.net.http import UpstreamClient, xml_stops_after_prolog
from medlit.core.net.pacing import Pacer
from medlit.core.net.request import ServiceConfig
from medlit.core.net.session import new_session
from medlit.core.net.wire import Response, parse_retry_after, rate_limit_wait
from medlit.core.redact import Redactor
from medlit.core.settings import load_settings

from support.environments import fake_env
from support.fake_upstream import FakeUpstream

pytestmark = pytest.mark.anyio
OK_XML = b"<?xml version='1.0'?><eInfoResult><DbList><DbName>pubmed</DbName></DbList></eInfoResult>"


@pytest.fixture
async def clients(fake):
    fake.respond("ncbi", "einfo.fcgi", OK_XML)
    async with new_session() as session:
        yield build_clients(
            session,
            load_host(
                load_settings(fake_env(fake, NCBI_EMAIL="someone@example.org", NCBI_API_KEY="secretkey123"))
            ),
        )


async def test_identification_params_sent(clients, fake):
    await clients["ncbi"].get("einfo.fcgi")
    (req,) = fake.requests
    assert req.params["tool"] == "medlit-mcp"
    assert req.params["email"] == "someone@example.org"
    assert req.params["api_key"] == "secretkey123"


async def test_long_id_list_goes_by_post(clients, fake):
    ids = [str(30000000 + i) for i in range(400)]
    await clients["ncbi"].get("einfo.fcgi", {"id": ids})
    (req,) = fake.requests
    assert req.method == "POST" and req.params["id"].count(",") == 399


@pytest.mark.parametrize("kind", ["500", "502", "503", "html_error", "prolog_only", "truncated", "reset"])
async def test_transient_faults_are_retried(clients, fake, kind):
    fake.fault(kind, "ncbi", "einfo.fcgi", times=2)
    resp = await clients["ncbi"].get("einfo.fcgi")
    assert resp.body == OK_XML
    assert len(fake.requests) == 3


async def test_persistent_5xx_is_a_server_error_not_unreachable(clients, fake):
    fake.fault("503", "ncbi", "einfo.fcgi", times=99)
    with pytest.raises(MedlitError) as info:
        await clients["ncbi"].get("einfo.fcgi")
    # The service answered: "could not be reached" would send the user after their network.
    assert info.value.reason == "ncbi_server_error" and info.value.retryable
    assert "HTTP 503" in info.value.message and "reached" not in info.value.message
    assert len(fake.requests) == 4  # the first try plus MEDLIT_MAX_RETRIES=3


async def test_other_4xx_not_retried(clients, fake):
    fake.respond("ncbi", "einfo.fcgi", "bad", status=400)
    with pytest.raises(MedlitError) as info:
        await clients["ncbi"].get("einfo.fcgi")
    assert info.value.reason == "ncbi_bad_request" and not info.value.retryable
    assert len(fake.requests) == 1


async def test_404_is_resource_not_found(clients, fake):
    with pytest.raises(MedlitError) as info:
        await clients["ncbi"].get("nosuch.fcgi")
    assert info.value.reason == "ncbi_resource_not_found"


async def test_ok_statuses_are_returned(clients, fake):
    resp = await clients["ncbi"].get("nosuch.fcgi", expect="text", ok_statuses={404})
    assert resp.status == 404


async def test_429_honours_retry_after_and_cools_down_everyone(clients, fake):
    fake.fault("429", "ncbi", "einfo.fcgi", times=1, retry_after=0.6)
    first = asyncio.create_task(clients["ncbi"].get("einfo.fcgi"))
    await asyncio.sleep(0.15)  # the 429 has come back; the cooldown is closed for everyone
    others = [clients["ncbi"].get("einfo.fcgi", {"db": f"db{i}"}) for i in range(2)]
    results = await asyncio.gather(first, *others)
    assert all(r.body == OK_XML for r in results)
    first_429 = fake.requests[0].at
    later = [r.at - first_429 for r in fake.requests[1:]]
    assert len(later) == 3 and min(later) >= 0.55  # nobody, not only the caller that drew it, went early


async def test_429_without_retry_after_backs_off(clients, fake):
    fake.fault("429", "ncbi", "einfo.fcgi", times=1)
    resp = await clients["ncbi"].get("einfo.fcgi")
    assert resp.body == OK_XML


async def test_rate_limited_until_deadline(clients, fake):
    fake.fault("429", "ncbi", "einfo.fcgi", times=99, retry_after=0.05)
    with pytest.raises(MedlitError) as info:
        await clients["ncbi"].get("einfo.fcgi")
    assert info.value.reason == "ncbi_rate_limited" and info.value.retryable


async def test_deadline_covers_attempts_and_backoff(clients, fake):
    fake.fault("timeout", "ncbi", "einfo.fcgi", times=99, delay=5)
    started = time.monotonic()
    with pytest.raises(MedlitError) as info:
        await clients["ncbi"].get("einfo.fcgi", deadline=time.monotonic() + 0.5)
    assert time.monotonic() - started < 1.5
    assert info.value.reason == "ncbi_deadline_exceeded"


async def test_redirect_to_foreign_host_refused(clients, fake):
    fake.fault("redirect_foreign", "ncbi", "einfo.fcgi")
    with pytest.raises(MedlitError) as info:
        await clients["ncbi"].get("einfo.fcgi")
    assert info.value.reason == "ncbi_redirect_refused" and not info.value.retryable
    assert "evil.example.org" in info.value.message
    assert len(fake.requests) == 1


async def test_redirect_within_service_followed(clients, fake):
    fake.fault("redirect_local", "ncbi", "old.fcgi", to="einfo.fcgi")
    resp = await clients["ncbi"].get("old.fcgi")
    assert resp.body == OK_XML


async def test_redirect_loop_stops_after_three_hops(clients, fake):
    fake.fault("redirect_loop", "ncbi", "einfo.fcgi", times=10)
    with pytest.raises(MedlitError) as info:
        await clients["ncbi"].get("einfo.fcgi")
    assert info.value.reason == "ncbi_redirect_refused"
    assert len(fake.requests) == 4


@pytest.mark.parametrize("declared", [True, False])
async def test_body_cap(fake, declared):
    fake.fault("oversized", "ncbi", "einfo.fcgi", size=300_000, declared=declared)
    async with new_session() as session:
        clients = build_clients(
            session, load_host(load_settings(fake_env(fake, MEDLIT_MAX_BODY_BYTES="100000")))
        )
        with pytest.raises(MedlitError) as info:
            await clients["ncbi"].get("einfo.fcgi")
    assert info.value.reason == "ncbi_response_too_large" and not info.value.retryable
    said = info.value.message
    assert said.startswith(clients["ncbi"].config.label) and said.endswith("the 100,000-byte cap")
    assert ("declared 300,0" in said) == declared


async def test_ncbi_error_inside_200_classified(clients, fake):
    fake.fault("ncbi_error_200", "ncbi", "einfo.fcgi", message="Invalid db name specified: fleegle")
    with pytest.raises(MedlitError) as info:
        await clients["ncbi"].get("einfo.fcgi")
    assert info.value.reason == "ncbi_resource_not_found"
    assert "fleegle" in info.value.message


async def test_ncbi_transient_error_inside_200_retried(clients, fake):
    fake.fault("ncbi_error_200", "ncbi", "einfo.fcgi", root="eFetchResult", message="Status: Timeout")
    resp = await clients["ncbi"].get("einfo.fcgi")
    assert resp.body == OK_XML and len(fake.requests) == 2


async def test_json_error_inside_200_rate_limit_retried(clients, fake):
    fake.fault("json_error_200", "ncbi", "einfo.fcgi", message="API rate limit exceeded")
    resp = await clients["ncbi"].get("einfo.fcgi")
    assert resp.body == OK_XML


async def test_invalid_json_retried_then_reported(clients, fake):
    fake.respond("ncbi", "esearch.fcgi", '{"esearchresult": {"count": ', content_type="application/json")
    with pytest.raises(MedlitError) as info:
        await clients["ncbi"].get("esearch.fcgi", expect="json")
    assert info.value.reason == "ncbi_invalid_response"


async def test_secrets_never_in_errors(fake):
    fake.fault(
        "redirect_foreign",
        "ncbi",
        "einfo.fcgi",
        to="https://evil.example.org/?api_key=secretkey123&email=someone@example.org",
    )
    async with new_session() as session:
        env = fake_env(fake, NCBI_EMAIL="someone@example.org", NCBI_API_KEY="secretkey123")
        clients = build_clients(session, load_host(load_settings(env)))
        with pytest.raises(MedlitError) as info:
            await clients["ncbi"].get("einfo.fcgi")
    text = str(info.value.to_dict())
    assert "secretkey123" not in text and "someone@example.org" not in text


async def test_queue_full_when_start_is_past_deadline():
    pacer = Pacer(rate=1.0)
    await pacer.acquire(time.monotonic() + 1.0, "ncbi")  # sent now: the next may leave in ~1.2 s
    with pytest.raises(MedlitError) as info:
        await pacer.acquire(time.monotonic() + 0.5, "ncbi")
    assert info.value.reason == "queue_full" and info.value.retryable


async def test_queue_full_when_queue_overflows():
    pacer = Pacer(rate=2.0, max_queue=2)
    far = time.monotonic() + 60
    await pacer.acquire(far, "ncbi")  # the next send is ~0.6 s out, so the two callers below wait
    waiters = [asyncio.create_task(pacer.acquire(far, "ncbi")) for _ in range(2)]
    await asyncio.sleep(0)
    with pytest.raises(MedlitError) as info:
        await pacer.acquire(far, "ncbi")
    assert info.value.reason == "queue_full"
    for w in waiters:
        w.cancel()


async def test_pacer_spacing_has_headroom():
    pacer = Pacer(rate=10.0)
    for _ in range(6):
        await pacer.acquire(time.monotonic() + 10, "ncbi")
    gaps = [b - a for a, b in itertools.pairwise(pacer.sends)]
    assert min(gaps) >= 1 / (10 * 0.85) - 0.002  # never at exactly the limit: 334 ms bursts drew 429s


async def test_pacer_paces_actual_sends_not_reserved_slots():
    """A caller that passes the pacer late (a busy loop, a slow wake-up) must not shorten the gap
    to the next send: the next caller is spaced from the moment the late one really left."""
    pacer = Pacer(rate=5.0)
    far = time.monotonic() + 30
    await pacer.acquire(far, "ncbi")
    time.sleep(0.3)  # the event loop is blocked past the next slot: that caller goes late
    await pacer.acquire(far, "ncbi")
    await pacer.acquire(far, "ncbi")
    gaps = [b - a for a, b in itertools.pairwise(pacer.sends)]
    assert min(gaps) >= pacer.interval - 0.002


def test_retry_after_parsing():
    assert parse_retry_after("2") == 2.0
    assert parse_retry_after(None) is None
    assert parse_retry_after("soon") is None
    assert 0 <= parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT") <= 1  # in the past -> 0


def test_a_429_waits_what_it_asks_within_the_cap_or_one_second():
    assert rate_limit_wait({"Retry-After": "2"}, 30.0) == 2.0
    assert rate_limit_wait({"Retry-After": "3600"}, 30.0) == 30.0
    assert rate_limit_wait({"Retry-After": "soon"}, 30.0) == 1.0
    assert rate_limit_wait({}, 30.0) == 1.0 and rate_limit_wait({}, 0.0) == 0.0


def test_prolog_only_detection():
    assert xml_stops_after_prolog(b'<?xml version="1.0"?>\n<!DOCTYPE x PUBLIC "a" "b">\n')
    assert xml_stops_after_prolog(b"")
    assert not xml_stops_after_prolog(b'<?xml version="1.0"?><a/>')
    assert not xml_stops_after_prolog(b"<!-- c --><a/>")
    # Content the parser reads fine must never be retried as "no content".
    assert not xml_stops_after_prolog(b"<!DOCTYPE a [<!ELEMENT a ANY>]><a/>")
    assert not xml_stops_after_prolog(b"\xef\xbb\xbf<a/>")
    assert not xml_stops_after_prolog(b'<!DOCTYPE a SYSTEM "x>y"><a/>')
    assert not xml_stops_after_prolog(b"<!--" + b"-" * 70_000 + b"--><a/>")
    assert xml_stops_after_prolog(b"<!DOCTYPE a [<!ELEMENT a ANY>")  # cut inside the subset
    assert xml_stops_after_prolog(b"<?xml version='1.0'?><!-- cut")


async def test_slow_answers_within_timeout_succeed(clients, fake):
    fake.fault("slow", "ncbi", "einfo.fcgi", delay=0.2)
    resp = await clients["ncbi"].get("einfo.fcgi")
    assert resp.body == OK_XML


async def test_rate_never_exceeded_under_concurrency():
    """Concurrent tool calls at the real unkeyed default: no one-second window over 3, no 429."""
    from medlit.core.host import load_host
    from medlit.core.runtime import Runtime

    async with FakeUpstream(ncbi_limit=3.0) as fake:
        fake.route("ncbi", "esearch.fcgi", lambda req: web.json_response(
            {"esearchresult": {"count": "0", "retmax": "0", "retstart": "0", "idlist": [], "querytranslation": req.params["term"]}}
        ))  # fmt: skip
        settings = load_settings(fake.env(MEDLIT_BACKOFF_BASE="0.01"))
        host = load_host(settings)
        assert host.services["ncbi"].rate == 3.0
        started = time.monotonic()
        async with Runtime(host) as rt:
            terms = [f"cancer{i}" for i in range(8)]  # distinct: identical calls would share one request
            outcomes = await asyncio.gather(
                *(rt.call("eutils_esearch", {"db": "pubmed", "term": t}) for t in terms)
            )
        assert all(not o.is_error for o in outcomes)
        times = sorted(r.at for r in fake.requests)
        assert fake.rate_limited == [] and len(times) >= 8
        for i, t in enumerate(times):
            assert sum(1 for u in times[i:] if u - t < 1.0) <= 3
        assert time.monotonic() - started >= (len(times) - 1) / 3  # paced, not burst


def test_web_import_used():
    assert web.Response  # the fake's responses are aiohttp web objects


async def test_429_whose_retry_after_outlasts_the_deadline_fails_fast(clients, fake):
    fake.fault("429", "ncbi", "einfo.fcgi", times=1, retry_after=20)
    started = time.monotonic()
    with pytest.raises(MedlitError) as info:
        await clients["ncbi"].get("einfo.fcgi", deadline=time.monotonic() + 2)
    assert time.monotonic() - started < 0.5  # no sleeping into a wait that cannot end in time
    assert info.value.reason == "ncbi_rate_limited" and info.value.retryable
    assert len(fake.requests) == 1


async def test_redirect_without_location_is_an_invalid_response(clients, fake):
    fake.route("ncbi", "einfo.fcgi", lambda req: web.Response(status=302))
    with pytest.raises(MedlitError) as info:
        await clients["ncbi"].get("einfo.fcgi")
    assert info.value.reason == "ncbi_invalid_response" and "without a Location" in info.value.message
    assert len(fake.requests) == 1  # not followed to itself three times


async def test_redirect_location_query_is_not_repeated(clients, fake):
    target = "/ncbi/einfo.fcgi?db=pubmed&tool=medlit-mcp"
    fake.route("ncbi", "old.fcgi", lambda req: web.Response(status=301, headers={"Location": target}))
    await clients["ncbi"].get("old.fcgi", {"db": "pubmed"})
    first, second = fake.requests
    assert first.request.query.getall("db") == ["pubmed"]
    assert second.path == "einfo.fcgi" and second.request.query.getall("db") == ["pubmed"]
    assert second.request.query.getall("tool") == ["medlit-mcp"]


def _https_client() -> UpstreamClient:
    config = ServiceConfig(
        "ncbi", "https://eutils.ncbi.nlm.nih.gov/entrez/eutils", "ncbi",
        frozenset({"eutils.ncbi.nlm.nih.gov", "www.ncbi.nlm.nih.gov"}),
    )  # fmt: skip
    return UpstreamClient(
        None, config, load_settings({"NCBI_API_KEY": "secretkey123"}), redactor=Redactor(["secretkey123"])
    )  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("location", "allowed"),
    [
        ("https://www.ncbi.nlm.nih.gov/x?a=1", True),
        ("/entrez/eutils/other.fcgi", True),
        ("http://www.ncbi.nlm.nih.gov/x?api_key=secretkey123", False),  # downgrade: the key goes clear
        ("ftp://eutils.ncbi.nlm.nih.gov/x", False),
    ],
)
async def test_redirect_never_downgrades_the_scheme(location, allowed):
    client = _https_client()
    resp = Response(302, "https://eutils.ncbi.nlm.nih.gov/", {"Location": location}, b"")
    if allowed:
        assert client._follow("https://eutils.ncbi.nlm.nih.gov/entrez/eutils/einfo.fcgi", resp)
        return
    with pytest.raises(MedlitError) as info:
        client._follow("https://eutils.ncbi.nlm.nih.gov/entrez/eutils/einfo.fcgi", resp)
    assert info.value.reason == "ncbi_redirect_refused" and not info.value.retryable
    assert "secretkey123" not in str(info.value.to_dict())


async def test_secret_in_a_redirect_host_is_redacted_everywhere(fake):
    fake.fault("redirect_foreign", "ncbi", "einfo.fcgi", to="https://secretkey123.evil.example.org/")
    async with new_session() as session:
        clients = build_clients(
            session, load_host(load_settings(fake_env(fake, NCBI_API_KEY="secretkey123")))
        )
        with pytest.raises(MedlitError) as info:
            await clients["ncbi"].get("einfo.fcgi")
    assert info.value.reason == "ncbi_redirect_refused"
    assert "secretkey123" not in str(info.value.to_dict())  # message and details alike


async def test_a_caller_sleeping_on_its_slot_respects_a_later_cooldown():
    pacer = Pacer(rate=20.0)
    far = time.monotonic() + 60
    await pacer.acquire(far, "ncbi")
    started = time.monotonic()
    waiter = asyncio.create_task(pacer.acquire(far, "ncbi"))  # its turn is ~60 ms out
    await asyncio.sleep(0.01)
    pacer.cooldown(0.4)  # another caller drew a 429 meanwhile
    await waiter
    assert time.monotonic() - started >= 0.4


async def test_queue_is_bounded_before_the_concurrency_slot(fake):
    fake.fault("slow", "ncbi", "einfo.fcgi", times=99, delay=0.5)
    async with new_session() as session:
        settings = load_settings(fake_env(fake))
        config = ServiceConfig(
            "ncbi", settings.base_url_override("ncbi"), "ncbi", frozenset({"127.0.0.1", "localhost"}),
            concurrency=1, max_queue=1,
        )  # fmt: skip
        client = UpstreamClient(session, config, settings)
        running = asyncio.create_task(client.get("einfo.fcgi", {"db": "a"}))
        await asyncio.sleep(0.05)
        queued = asyncio.create_task(client.get("einfo.fcgi", {"db": "b"}))
        await asyncio.sleep(0.05)
        with pytest.raises(MedlitError) as info:
            await client.get("einfo.fcgi", {"db": "c"})
        assert info.value.reason == "queue_full" and "already queued" in info.value.message
        assert (await running).body and (await queued).body


async def test_repeated_parameter_sent_once_per_value_by_get_and_post(clients, fake):
    from medlit.core.net.request import Repeated

    await clients["ncbi"].get("einfo.fcgi", {"id": Repeated(("1", "2"))})
    assert fake.requests[-1].method == "GET" and fake.requests[-1].repeated("id") == ["1", "2"]
    many = tuple(str(30000000 + i) for i in range(300))
    await clients["ncbi"].get("einfo.fcgi", {"id": Repeated(many)})
    assert fake.requests[-1].method == "POST" and fake.requests[-1].repeated("id") == list(many)


async def test_identical_requests_in_flight_share_one_upstream_call(clients, fake):
    fake.fault("slow", "ncbi", "einfo.fcgi", times=1, delay=0.3)
    results = await asyncio.gather(*(clients["ncbi"].get("einfo.fcgi", {"db": "pubmed"}) for _ in range(200)))
    assert all(r.body == OK_XML for r in results)
    assert len(fake.requests) == 1 and clients["ncbi"].shared_hits == 199
    await clients["ncbi"].get("einfo.fcgi", {"db": "pubmed"})  # later calls are new requests
    assert len(fake.requests) == 2


async def test_a_cancelled_caller_does_not_cancel_the_others_sharing_its_request(clients, fake):
    fake.fault("slow", "ncbi", "einfo.fcgi", times=1, delay=0.3)
    first = asyncio.create_task(clients["ncbi"].get("einfo.fcgi"))
    second = asyncio.create_task(clients["ncbi"].get("einfo.fcgi"))
    await asyncio.sleep(0.05)
    first.cancel()
    assert (await second).body == OK_XML and len(fake.requests) == 1


async def test_a_resend_after_a_connection_reset_passes_the_pacer(fake):
    """aiohttp re-sends an idempotent GET by itself after a reset of a kept-alive connection, 2 ms
    later; that resend must wait for the pacer like any attempt (NCBI counts it)."""
    fake.respond("ncbi", "einfo.fcgi", OK_XML)
    async with new_session() as session:
        host = load_host(load_settings(fake_env(fake, MEDLIT_NCBI_RATE="5")))
        client = build_clients(session, host)["ncbi"]
        await client.get("einfo.fcgi", {"db": "a"})  # opens a kept-alive connection
        fake.fault("reset", "ncbi", "einfo.fcgi", times=1)
        await client.get("einfo.fcgi", {"db": "b"})
    times = [r.at for r in fake.requests]
    assert len(times) == 3
    assert min(b - a for a, b in itertools.pairwise(times)) >= client.pacer.interval - 0.01


async def test_a_body_that_fails_to_parse_is_retried(clients, fake):
    from medlit.core.xml import parse_xml

    fake.fault("invalid_xml", "ncbi", "einfo.fcgi", times=1)
    resp = await clients["ncbi"].get("einfo.fcgi", parse=lambda r: parse_xml(r.body))
    assert resp.parsed is not None and resp.parsed.tag == "eInfoResult" and len(fake.requests) == 2


async def test_a_body_that_never_parses_is_reported_after_the_retries(clients, fake):
    from medlit.core.xml import parse_xml

    fake.fault("invalid_xml", "ncbi", "einfo.fcgi", times=99)
    with pytest.raises(MedlitError) as info:
        await clients["ncbi"].get("einfo.fcgi", parse=lambda r: parse_xml(r.body))
    assert info.value.reason == "ncbi_invalid_response" and info.value.retryable
    assert len(fake.requests) == 4


async def test_the_call_deadline_caps_every_request_of_a_tool_call(clients, fake):
    from medlit.core.net.wire import CALL_DEADLINE

    fake.fault("timeout", "ncbi", "einfo.fcgi", times=99, delay=5)
    token = CALL_DEADLINE.set(time.monotonic() + 0.6)
    started = time.monotonic()
    try:
        with pytest.raises(MedlitError) as info:
            await clients["ncbi"].get("einfo.fcgi")
    finally:
        CALL_DEADLINE.reset(token)
    assert time.monotonic() - started < 1.5
    assert info.value.reason == "ncbi_deadline_exceeded" and "attempt" in info.value.message


async def test_a_slower_lane_waits_until_the_whole_group_sent_fewer_than_its_limit():
    """With an API key NCBI allows 10 a second, but the ID converter (no key) is judged at 3
    against everything the address sent: its requests wait for the group's trailing window."""
    pacer = Pacer(rate=10.0)
    far = time.monotonic() + 30
    for _ in range(4):
        await pacer.acquire(far, "ncbi")
    await pacer.acquire(far, "idconv", lane=3.0)
    sent = pacer.sends[-1]
    window = 1 / pacer.headroom
    assert sum(1 for t in pacer.sends[:-1] if t > sent - window) < 3


async def test_the_id_converter_is_a_slower_lane_of_the_keyed_ncbi_group(fake):
    async with new_session() as session:
        env = fake.env(NCBI_API_KEY="k")
        clients = build_clients(session, load_host(load_settings(env)))
    assert clients["ncbi"].pacer is clients["idconv"].pacer and clients["ncbi"].pacer.rate == 10
    assert clients["idconv"].config.lane == 3 and clients["ncbi"].config.lane is None


async def _client_for(base_url: str, **env: str):
    from medlit.core.net.clients import build_clients as build

    settings = load_settings({"MEDLIT_BASE_URL_NCBI": base_url, "MEDLIT_MAX_RETRIES": "0", **env})
    return build, load_host(settings)


async def test_offline_dns_failure_says_to_check_the_network_not_to_retry(monkeypatch):
    import socket

    def no_dns(host, *args, **kwargs):
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    monkeypatch.setattr(socket, "getaddrinfo", no_dns)
    build, host = await _client_for("http://localhost:9/entrez/eutils/")  # its lookup fails here
    async with new_session() as session:
        with pytest.raises(MedlitError) as info:
            await build(session, host)["ncbi"].get("einfo.fcgi")
    err = info.value
    assert err.reason == "ncbi_unreachable" and "does not resolve" in err.message
    assert "network connection" in err.recovery and "proxy" in err.recovery
    assert "retry in a minute" not in err.recovery


async def test_a_refused_connection_says_to_check_the_network():
    import socket

    with socket.socket() as s:  # a loopback port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    build, host = await _client_for(f"http://127.0.0.1:{port}/")
    async with new_session() as session:
        with pytest.raises(MedlitError) as info:
            await build(session, host)["ncbi"].get("einfo.fcgi")
    assert info.value.reason == "ncbi_unreachable" and "proxy" in info.value.recovery


async def test_a_read_timeout_is_a_timeout_not_unreachable(fake, caplog):
    fake.fault("timeout", "ncbi", "einfo.fcgi", times=99, delay=3)
    settings = load_settings(fake_env(fake, MEDLIT_REQUEST_TIMEOUT="0.3", MEDLIT_MAX_RETRIES="1"))
    async with new_session() as session:
        with pytest.raises(MedlitError) as info:
            await build_clients(session, load_host(settings))["ncbi"].get(
                "einfo.fcgi", deadline=time.monotonic() + 10
            )
    err = info.value
    assert err.reason == "ncbi_timeout" and "did not answer within 0.3 s" in err.message and err.retryable
    assert "unreachable" not in caplog.text


@pytest.mark.parametrize("rate", [0.5, 1.0, 2.5, 3.0, 10 / 3, 10 / 4, 3 / 4, 10.0, 40.0])
@pytest.mark.parametrize(
    "headroom", [0.85, 0.92, 0.99]
)  # below 1: a gap of exactly 1/rate meets the window's edge
def test_pacer_spacing_keeps_every_second_within_the_rate(rate, headroom):
    # Sends exactly one gap apart are the densest the pacer allows; count the most that fall in
    # any one-second window (a window starting at a send holds the most). A replica's share of a
    # shared budget (10 a second over three replicas) is the non-whole rate this is for.
    from medlit.core.net.pacing import spacing

    gap = spacing(rate, headroom)
    sends = [i * gap for i in range(200)]
    most = max(sum(1 for u in sends[i:] if u - t < 1.0) for i, t in enumerate(sends))
    assert most <= max(1, rate), (rate, headroom, gap, most)
    assert Pacer(rate, headroom).interval == gap
