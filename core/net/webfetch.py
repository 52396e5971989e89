"""Fetching public web pages for plugins that declare an open-web service (an ``OpenWebSpec``).

An open-access copy of an article may live on any publisher or repository host, so the URL to
fetch comes from an upstream's answer, not from our configuration: a server-side request
forgery surface. :class:`WebClient` fetches such URLs under these rules:

- http(s) only, no credentials in the URL, at most :data:`MAX_REDIRECTS` redirects, each hop
  checked like the first;
- the host must resolve to public addresses only: private, loopback, link-local, multicast,
  reserved, unspecified, shared (CGNAT) and cloud-metadata addresses are refused, and so is a
  DNS name that resolves to any of them (IPv4 embedded in IPv6 is unwrapped first). Loopback is
  allowed only with ``MEDLIT_ALLOW_LOOPBACK_CONTENT=1`` (tests serve content on loopback);
- the connection goes to the address that was vetted: the session's resolver itself refuses
  (:class:`VettedResolver`), so a name cannot re-resolve elsewhere between check and connect;
- a byte cap per response (decompressed bytes, checked while reading), a timeout per hop under
  the caller's deadline, pacing per host (politeness towards each publisher) and a bound on
  requests in flight across hosts;
- no retries: a caller with several copies to try moves on to the next one instead.

A redirect from https to http is followed (repositories' handle servers do this): these requests
carry no key, only the contact a service's ``User-Agent`` names anyway. Cookies set along one
fetch's redirects go back to the same host within that fetch and are then forgotten.
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import socket
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import urljoin, urlsplit

from .. import errors as E
from ..errors import MedlitError, upstream_error
from ..redact import Redactor
from ..settings import Settings, parse_bool
from .pacing import Pacer, Slots
from .wire import REDIRECT_STATUSES, call_deadline, rate_limit_wait, read_capped

if TYPE_CHECKING:
    import aiohttp
    from aiohttp.abc import AbstractResolver, ResolveResult

log = logging.getLogger("medlit.webfetch")

LOOPBACK_VAR = "MEDLIT_ALLOW_LOOPBACK_CONTENT"
MAX_REDIRECTS = 3
ADDRESS_REFUSED = "address_refused"
ACCESS_DENIED = "access_denied"
_RECOVERY = {  # the other kinds take upstream_error's default recovery
    ADDRESS_REFUSED: "The copy is on a host this server may not reach; try another source.",
    ACCESS_DENIED: "The host refused access to this copy; try another source.",
}
_MAX_PACERS = 1024  # hosts remembered for pacing (least recently used forgotten first)

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

# Instance-metadata endpoints of the big clouds. Most sit in ranges refused anyway (link-local,
# unique-local); listed so the refusal names them, and for the ones that do not (Alibaba's
# 100.100.100.200 is in shared address space, refused as non-global too).
METADATA_ADDRESSES: frozenset[IPAddress] = frozenset(
    ipaddress.ip_address(a)
    for a in ("169.254.169.254", "169.254.170.2", "169.254.169.123", "fd00:ec2::254", "100.100.100.200")
)
_NAT64 = ipaddress.ip_network("64:ff9b::/96")


def refusal(ip: IPAddress, allow_loopback: bool = False) -> str | None:
    """Why ``ip`` may not be fetched from (``"a private address"``...), or ``None`` when it is a
    public address. IPv4 carried inside IPv6 (mapped, 6to4, Teredo, NAT64) is judged as IPv4."""
    if isinstance(ip, ipaddress.IPv6Address):
        embedded: list[IPAddress] = []
        if ip.ipv4_mapped is not None:
            embedded.append(ip.ipv4_mapped)
        if ip.sixtofour is not None:
            embedded.append(ip.sixtofour)
        if ip.teredo is not None:
            embedded.extend(ip.teredo)
        if ip in _NAT64:
            embedded.append(ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF))
        for inner in embedded:
            why = refusal(inner, allow_loopback)
            if why:
                return why
        if ip.ipv4_mapped is not None:
            return None
    if ip in METADATA_ADDRESSES:
        return "a cloud metadata address"
    if ip.is_loopback:
        return None if allow_loopback else "a loopback address"
    for test, why in (
        (ip.is_unspecified, "an unspecified address"),
        (ip.is_link_local, "a link-local address"),
        (ip.is_multicast, "a multicast address"),
        (ip.is_reserved, "a reserved address"),
        (ip.is_private, "a private address"),
    ):
        if test:
            return why
    if not ip.is_global:
        return "a non-public address"
    return None


class AddressRefused(OSError):
    """A host that resolves to an address the open web client must not connect to."""


async def getaddrinfo(host: str, port: int, family: int = 0) -> list[tuple[int, str]]:
    """``(family, address)`` pairs for ``host`` from the system resolver, run off the event loop.
    Tests replace this function to map a name to an address of their choice."""
    loop = asyncio.get_running_loop()
    infos = await loop.getaddrinfo(host, port, family=family, type=socket.SOCK_STREAM)
    return [(fam, str(sockaddr[0])) for fam, _type, _proto, _name, sockaddr in infos]


def _literal(host: str) -> IPAddress | None:
    try:
        return ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return None


def vet_address(host: str, address: str, allow_loopback: bool) -> None:
    """Raise :class:`AddressRefused` unless ``address`` (what ``host`` resolved to) is public."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        raise AddressRefused(f"{host} resolved to {address!r}, which is not an IP address") from None
    why = refusal(ip, allow_loopback)
    if why:
        raise AddressRefused(
            f"{host} is {why}" if host == address else f"{host} resolves to {address}, {why}"
        )


def _resolver_class() -> Callable[[bool], AbstractResolver]:
    from aiohttp.abc import AbstractResolver

    class VettedResolver(AbstractResolver):
        """An aiohttp resolver that returns only vetted addresses: the connection is made to the
        very address that was checked, and a name with any refused address is refused whole
        (an attacker's DNS could otherwise order a private address first)."""

        def __init__(self, allow_loopback: bool) -> None:
            self.allow_loopback = allow_loopback

        async def resolve(
            self, host: str, port: int = 0, family: int = socket.AF_INET
        ) -> list[ResolveResult]:
            try:
                infos = await getaddrinfo(host, port, family)
            except socket.gaierror as exc:
                raise OSError(f"{host} could not be resolved ({exc.strerror or exc})") from None
            if not infos:
                raise OSError(f"{host} resolved to no address")
            out: list[ResolveResult] = []
            for fam, address in infos:
                vet_address(host, address, self.allow_loopback)
                out.append(
                    {
                        "hostname": host,
                        "host": address.split("%", 1)[0] if fam == socket.AF_INET6 else address,
                        "port": port,
                        "family": fam,
                        "proto": 0,
                        "flags": socket.AI_NUMERICHOST | socket.AI_NUMERICSERV,
                    }
                )
            return out

        async def close(self) -> None:
            return None

    return VettedResolver


@dataclass
class WebResponse:
    """A fetched page or file: the final URL (after redirects), status, headers and body."""

    status: int
    url: str
    headers: Mapping[str, str]
    body: bytes
    redirects: tuple[str, ...] = ()  # every URL redirected to, in order

    @property
    def content_type(self) -> str:
        return self.headers.get("Content-Type", "").split(";")[0].strip().lower()

    @property
    def charset(self) -> str | None:
        for part in self.headers.get("Content-Type", "").split(";")[1:]:
            key, _, value = part.partition("=")
            if key.strip().lower() == "charset" and value.strip():
                return value.strip().strip("\"'")
        return None


@dataclass(frozen=True)
class WebConfig:
    """How one open-web service fetches: built by core from the plugin's ``OpenWebSpec``."""

    name: str
    title: str
    error_prefix: str
    rate: float  # requests per second to any one host
    concurrency: int = 4  # requests in flight across all hosts
    max_queue: int = 64
    headers: Mapping[str, str] = field(default_factory=dict)

    @property
    def label(self) -> str:
        return self.title or self.name


class WebClient:
    """Fetches absolute public http(s) URLs safely (see the module docstring). One per
    open-web service (``OpenWebSpec``); its own aiohttp session (with the vetting resolver) opens on first use
    and closes with :meth:`aclose`."""

    def __init__(self, config: WebConfig, settings: Settings, redactor: Redactor | None = None) -> None:
        self.config = config
        self.settings = settings
        self.redact = redactor or Redactor(settings.secrets)
        self.allow_loopback = parse_bool(settings.get(LOOPBACK_VAR), False, LOOPBACK_VAR)
        self._session: aiohttp.ClientSession | None = None
        self._pacers: OrderedDict[str, Pacer] = OrderedDict()
        self.slots = Slots(config.concurrency, config.max_queue, config.name, config.label)
        self.requests_sent = 0  # hops that reached the wire (tests, benchmarks)

    # -- lifecycle ----------------------------------------------------------------------------
    def _open(self) -> aiohttp.ClientSession:
        if self._session is None or self._session.closed:
            import aiohttp

            connector = aiohttp.TCPConnector(
                resolver=_resolver_class()(self.allow_loopback),
                limit=max(1, self.config.concurrency) * 2,
                limit_per_host=2,
                ttl_dns_cache=60,
            )
            # No cookie jar shared across calls (cookies are carried along one fetch's redirects
            # only), no proxy from the environment: the vetted address is the one connected to.
            self._session = aiohttp.ClientSession(
                connector=connector, cookie_jar=aiohttp.DummyCookieJar(), trust_env=False
            )
        return self._session

    async def aclose(self) -> None:
        if self._session is not None and not self._session.closed:
            await self._session.close()
        self._session = None

    # -- public API -----------------------------------------------------------------------------
    async def fetch(
        self,
        url: str,
        *,
        deadline: float | None = None,
        max_bytes: int | None = None,
        accept: str | None = None,
    ) -> WebResponse:
        """GET ``url`` (absolute http(s)) and return a 2xx answer; anything else raises
        :class:`~medlit.core.errors.MedlitError` (``<prefix>_address_refused``,
        ``_redirect_refused``, ``_response_too_large``, ``_resource_not_found``,
        ``_access_denied``, ``_rate_limited``, ``_server_error``, ``_unreachable``,
        ``_deadline_exceeded``). ``deadline`` (a ``time.monotonic()`` instant) covers pacing,
        every hop and reading the body; ``max_bytes`` caps the body (default
        ``MEDLIT_MAX_BODY_BYTES``)."""
        cfg = self.config
        deadline = call_deadline(self.settings.call_deadline, deadline)
        cap = max_bytes if max_bytes is not None else self.settings.max_body_bytes
        headers = dict(cfg.headers)
        if accept:
            headers["Accept"] = accept
        cookies: dict[str, dict[str, str]] = {}  # host -> cookies set along this fetch's redirects
        redirects: list[str] = []
        for _hop in range(MAX_REDIRECTS + 1):
            host = self._check_url(url)
            await self._pacer(host).acquire(deadline, cfg.name)
            resp, set_cookies = await self._send(url, host, deadline, cap, headers, cookies.get(host))
            if set_cookies:
                cookies.setdefault(host, {}).update(set_cookies)
            if resp.status in REDIRECT_STATUSES:
                location = resp.headers.get("Location", "").strip()
                if not location:
                    raise self._fail(
                        E.INVALID_RESPONSE, f"{host} answered HTTP {resp.status} without a Location"
                    )
                url = urljoin(url, location)
                redirects.append(url)
                continue
            self._check_status(resp, host)
            resp.redirects = tuple(redirects)
            return resp
        raise self._fail(
            E.REDIRECT_REFUSED, f"{urlsplit(url).hostname} redirected more than {MAX_REDIRECTS} times"
        )

    # -- internals ------------------------------------------------------------------------------
    def _fail(self, kind: str, message: str, **details: Any) -> MedlitError:
        return upstream_error(
            self.config.error_prefix, kind, self.redact(message), recovery=_RECOVERY.get(kind), **details
        )

    def _check_url(self, url: str) -> str:
        """The URL's host, after refusing what may not be fetched before any connection: another
        scheme, credentials, a missing host, a literal IP address that is not public."""
        try:
            parts = urlsplit(url)
            port = parts.port
        except ValueError:
            raise self._fail(E.BAD_REQUEST, f"{url[:200]!r} is not a valid URL") from None
        if parts.scheme not in ("http", "https"):
            raise self._fail(
                ADDRESS_REFUSED,
                f"refused {parts.scheme or 'a schemeless'} URL {url[:200]}: only http(s) is fetched",
            )
        host = (parts.hostname or "").lower().rstrip(".")
        if not host:
            raise self._fail(ADDRESS_REFUSED, f"refused {url[:200]}: no host")
        if parts.username is not None or parts.password is not None:
            raise self._fail(ADDRESS_REFUSED, f"refused a URL with credentials for {host}")
        if port == 0:
            raise self._fail(ADDRESS_REFUSED, f"refused {host}: port 0")
        ip = _literal(host)
        if ip is not None:
            why = refusal(ip, self.allow_loopback)
            if why:
                raise self._fail(ADDRESS_REFUSED, f"refused {host}: {why}", host=host)
        elif host.replace(".", "").isdigit():  # 127.1, 2130706433: legacy forms of an address
            raise self._fail(ADDRESS_REFUSED, f"refused {host}: not a canonical IP address", host=host)
        return host

    def _pacer(self, host: str) -> Pacer:
        pacer = self._pacers.get(host)
        if pacer is None:
            pacer = self._pacers[host] = Pacer(self.config.rate, max_queue=self.config.max_queue)
            while len(self._pacers) > _MAX_PACERS:
                self._pacers.popitem(last=False)
        else:
            self._pacers.move_to_end(host)
        return pacer

    async def _send(
        self,
        url: str,
        host: str,
        deadline: float,
        cap: int,
        headers: Mapping[str, str],
        cookies: Mapping[str, str] | None,
    ) -> tuple[WebResponse, dict[str, str]]:
        import aiohttp

        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise self._fail(E.DEADLINE_EXCEEDED, f"no time left to fetch from {host}")
        await self.slots.acquire(deadline)
        try:
            budget = max(0.01, min(self.settings.request_timeout, deadline - time.monotonic()))
            self.requests_sent += 1
            async with asyncio.timeout(budget):
                async with self._open().get(
                    url,
                    allow_redirects=False,
                    headers=headers,
                    cookies=cookies or None,
                    timeout=aiohttp.ClientTimeout(total=budget),
                ) as r:
                    set_cookies = {k: m.value for k, m in r.cookies.items()}
                    if r.status in REDIRECT_STATUSES:
                        return WebResponse(r.status, url, dict(r.headers), b""), set_cookies
                    body = await read_capped(
                        r, cap, host, lambda message: self._fail(E.RESPONSE_TOO_LARGE, message, host=host)
                    )
                    return WebResponse(r.status, url, dict(r.headers), body), set_cookies
        except MedlitError:
            raise
        except TimeoutError:
            raise self._fail(E.DEADLINE_EXCEEDED, f"{host} did not answer in time", host=host) from None
        except aiohttp.ClientConnectorError as exc:
            if isinstance(exc.os_error, AddressRefused):
                raise self._fail(ADDRESS_REFUSED, f"refused {exc.os_error}", host=host) from None
            raise self._fail(
                E.UNREACHABLE, f"{host} could not be reached ({exc.os_error or exc})", host=host
            ) from None
        except (aiohttp.InvalidURL, ValueError):
            raise self._fail(E.BAD_REQUEST, f"{url[:200]!r} is not a valid URL", host=host) from None
        except aiohttp.ClientError as exc:
            raise self._fail(E.UNREACHABLE, f"{host} failed ({type(exc).__name__})", host=host) from None
        finally:
            self.slots.release()

    def _check_status(self, resp: WebResponse, host: str) -> None:
        status = resp.status
        if 200 <= status < 300:
            return
        if status == 429:
            self._pacer(host).cooldown(rate_limit_wait(resp.headers, self.settings.retry_after_cap))
            raise self._fail(
                E.RATE_LIMITED, f"{host} is rate limiting requests (HTTP 429)", host=host, status=status
            )
        if status in (404, 410):
            raise self._fail(
                E.RESOURCE_NOT_FOUND, f"{host} has no such page (HTTP {status})", host=host, status=status
            )
        if status in (401, 402, 403, 451):
            raise self._fail(
                ACCESS_DENIED, f"{host} refused access (HTTP {status})", host=host, status=status
            )
        if status >= 500 or status == 408:
            raise self._fail(E.SERVER_ERROR, f"{host} answered HTTP {status}", host=host, status=status)
        raise self._fail(E.BAD_REQUEST, f"{host} answered HTTP {status}", host=host, status=status)
