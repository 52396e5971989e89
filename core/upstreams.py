"""The upstream services: their clients, identification and error-in-200 classification."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING

from . import errors as E
from .errors import MedlitError, upstream_error
from .http import Pacer, Response, ServiceConfig, UpstreamClient, allowed_hosts_for
from .redact import Redactor
from .settings import Settings
from .xml import XMLRefused, XMLSyntaxError, parse_xml

if TYPE_CHECKING:
    import aiohttp

# NCBI errors that come back inside HTTP 200, by what they mean.
_NCBI_TRANSIENT = re.compile(
    r"(?i)timeout|temporarily unavailable|backend failed|try again|unable to obtain query|"
    r"service unavailable|internal server error|connection (reset|refused)"
)
_NCBI_NOT_FOUND = re.compile(
    r"(?i)invalid db|can ?not retrieve dbinfo|unknown db|database .*not found|invalid uid|invalid id"
)
_NCBI_RATE = re.compile(r"(?i)rate limit")
_RESULT_ROOTS = {
    "eSearchResult",
    "eSummaryResult",
    "eLinkResult",
    "eFetchResult",
    "ePostResult",
    "eInfoResult",
    "eGQueryResult",
}


def classify_ncbi_message(message: str) -> MedlitError:
    """Turn an NCBI error text (from ``<ERROR>`` or JSON ``error``) into our error model."""
    text = " ".join(message.split())[:300]
    if _NCBI_RATE.search(text):
        return upstream_error("ncbi", E.RATE_LIMITED, f"NCBI: {text}")
    if _NCBI_TRANSIENT.search(text):
        return upstream_error("ncbi", E.UNREACHABLE, f"NCBI reported a temporary failure: {text}")
    if _NCBI_NOT_FOUND.search(text):
        return upstream_error("ncbi", E.RESOURCE_NOT_FOUND, f"NCBI: {text}")
    return upstream_error("ncbi", E.UPSTREAM_ERROR, f"NCBI: {text}")


def ncbi_inspect(resp: Response) -> None:
    """Raise for NCBI errors hidden in a 2xx body: a root ``<ERROR>``, an ``<ERROR>`` directly under
    a result root (``eSearchResult/ERROR``...), or a JSON ``{"error": ...}``/``esearchresult.ERROR``.
    Per-record errors (DocSum errors, LinkSet errors) are left to the parsers."""
    body = resp.body.lstrip()
    if body.startswith((b"{", b"[")):
        try:
            data = resp.json()
        except ValueError:
            return
        if isinstance(data, dict):
            err = data.get("error") or data.get("ERROR")
            for inner in ("esearchresult", "einforesult", "linksets"):
                block = data.get(inner)
                if isinstance(block, dict) and (block.get("ERROR") or block.get("error")):
                    err = err or block.get("ERROR") or block.get("error")
            if isinstance(err, str) and err.strip():
                raise classify_ncbi_message(err)
        return
    if not body.startswith(b"<"):
        return
    try:
        root = parse_xml(body)
    except (XMLSyntaxError, XMLRefused):
        return  # the parser that reads the body will report it
    if root.tag == "ERROR":
        raise classify_ncbi_message(root.text or "unspecified error")
    if root.tag in _RESULT_ROOTS:
        msgs = [(el.text or "").strip() for el in root.findall("ERROR")]
        msgs = [m for m in msgs if m]
        # An esearch with results and an ERROR keeps its results (partial); without any it failed.
        if msgs and not (root.tag == "eSearchResult" and root.find("Count") is not None):
            raise classify_ncbi_message("; ".join(msgs))


# name, real host, requests/s, how messages name it
_SIMPLE_SERVICES = (
    ("europepmc", "www.ebi.ac.uk", 10.0, "Europe PMC"),
    ("icite", "icite.od.nih.gov", 5.0, "NIH iCite"),
    ("unpaywall", "api.unpaywall.org", 5.0, "Unpaywall"),
    ("openalex", "api.openalex.org", 8.0, "OpenAlex"),
)


def build_clients(session: aiohttp.ClientSession, settings: Settings) -> dict[str, UpstreamClient]:
    """One client per service; E-utilities and the ID converter share one NCBI pacer."""
    redactor = Redactor(settings.secrets)
    ncbi_pacer = Pacer(settings.ncbi_rate)
    ncbi_id: dict[str, str] = {"tool": settings.ncbi_tool}
    if settings.ncbi_email:
        ncbi_id["email"] = settings.ncbi_email
    urls = settings.base_urls
    configs: Mapping[str, tuple[ServiceConfig, Pacer | None]] = {
        "ncbi": (
            ServiceConfig(
                "ncbi",
                urls["ncbi"],
                "ncbi",
                allowed_hosts_for(urls["ncbi"], "eutils.ncbi.nlm.nih.gov"),
                identify={**ncbi_id, **({"api_key": settings.ncbi_api_key} if settings.ncbi_api_key else {})},
                concurrency=3,
                inspect=ncbi_inspect,
                title="NCBI E-utilities",
            ),
            ncbi_pacer,
        ),
        # The ID converter takes no API key but counts against the same per-IP budget.
        "idconv": (
            ServiceConfig(
                "idconv",
                urls["idconv"],
                "ncbi",
                allowed_hosts_for(urls["idconv"], "pmc.ncbi.nlm.nih.gov", "www.ncbi.nlm.nih.gov"),
                identify={**ncbi_id, "format": "json"},
                concurrency=2,
                title="the PMC ID Converter",
            ),
            ncbi_pacer,
        ),
        # The other services: their own host, their own pace, no identification beyond the plugin's.
        **{
            name: (
                ServiceConfig(name, urls[name], name, allowed_hosts_for(urls[name], host), title=title),
                Pacer(rate),
            )
            for name, host, rate, title in _SIMPLE_SERVICES
        },
    }
    return {
        name: UpstreamClient(session, cfg, settings, pacer, redactor)
        for name, (cfg, pacer) in configs.items()
    }
