"""NCBI's two services: the E-utilities and the PMC ID Converter, sharing one request budget.

NCBI counts requests per IP across both (3 a second, 10 with an API key), so they are declared in
one pacing group. E-utilities report many errors inside HTTP 200; :func:`inspect_eutils` turns
those into the error model so the client can retry the transient ones.
"""

from __future__ import annotations

import re

from medlit.core.plugin import MedlitError, PluginConfig, Probe, Response, ServiceSpec, errors, markup

from . import records

EUTILS_URL = "https://eutils.ncbi.nlm.nih.gov/entrez/eutils"
IDCONV_URL = "https://pmc.ncbi.nlm.nih.gov/tools/idconv/api/v1/articles"
RATE_UNKEYED = 3.0
RATE_KEYED = 10.0
DEFAULT_TOOL = "medlit-mcp"

# NCBI errors that come back inside HTTP 200, by what they mean.
_TRANSIENT = re.compile(
    r"(?i)timeout|temporarily unavailable|backend failed|try again|unable to obtain query|"
    r"service unavailable|internal server error|connection (reset|refused)"
)
_NOT_FOUND = re.compile(
    r"(?i)invalid db|can ?not retrieve dbinfo|unknown db|database .*not found|invalid uid|invalid id"
)
_RATE = re.compile(r"(?i)rate limit")
# A History set NCBI cannot find: expired (handles last a few hours idle) or not yet replicated.
_LOST_HISTORY = re.compile(r"(?i)unable to obtain query|cannot retrieve history")
_RESULT_ROOTS = {
    "eSearchResult",
    "eSpellResult",
    "eSummaryResult",
    "eLinkResult",
    "eFetchResult",
    "ePostResult",
    "eInfoResult",
    "eGQueryResult",
}


_PARTIAL_MARK = {"eSearchResult": "Count", "ePostResult": "QueryKey"}


def classify_message(message: str) -> MedlitError:
    """Turn an NCBI error text (from ``<ERROR>`` or JSON ``error``) into our error model."""
    text = " ".join(message.split())[:300]
    if _RATE.search(text):
        return errors.upstream_error("ncbi", errors.RATE_LIMITED, f"NCBI: {text}")
    if _TRANSIENT.search(text):
        return errors.upstream_error(
            "ncbi",
            errors.UNREACHABLE,
            f"NCBI reported a temporary failure: {text}",
            recovery=(
                "The History handle may have expired: re-run eutils_esearch (or eutils_epost) for a new one, "
                "then retry."
            )
            if _LOST_HISTORY.search(text)
            else None,
        )
    if _NOT_FOUND.search(text):
        return errors.upstream_error("ncbi", errors.RESOURCE_NOT_FOUND, f"NCBI: {text}")
    return errors.upstream_error("ncbi", errors.UPSTREAM_ERROR, f"NCBI: {text}")


def _garbled(what: str) -> MedlitError:
    """A body no E-utility sends on purpose (cut short, an error page, empty): asked again."""
    return errors.upstream_error(
        "ncbi", errors.INVALID_RESPONSE, f"NCBI E-utilities sent {what}", retryable=True
    )


# Endpoints whose answers may be plain text (efetch's text formats, ecitmatch's pipe lines);
# every other E-utility answers XML or JSON only.
_TEXT_ENDPOINTS = ("/efetch.fcgi", "/ecitmatch.cgi")


def inspect_eutils(resp: Response) -> None:
    """Check every 2xx body from the E-utilities, whatever tool asked:

    - NCBI errors hidden in it (a root ``<ERROR>``, an ``<ERROR>`` directly under a result root,
      a JSON ``{"error": ...}``/``esearchresult.ERROR``) become the errors they are; per-record
      errors (DocSum errors, LinkSet errors) are left to the parsers;
    - a garbled answer (malformed XML or JSON, an HTML error page, an empty body, or text where
      only XML or JSON is spoken) is retried by the client like any transient fault, so no tool
      reads one as data; XML with entities or a DTD subset is refused outright.
    """
    body = resp.body.lstrip()
    path = resp.url.split("?", 1)[0]
    if not body:
        if path.endswith("/efetch.fcgi"):
            return  # efetch's text formats answer unknown ids with nothing
        raise _garbled("an empty answer")
    head = body[:512].lower()
    if head.startswith((b"<!doctype html", b"<html")) or b"<html" in head[:300]:
        raise _garbled("an HTML page instead of its answer")
    if body.startswith((b"{", b"[")):
        _inspect_json(resp)
    elif body.startswith(b"<"):
        _inspect_xml(resp)
    elif not path.endswith(_TEXT_ENDPOINTS):
        raise _garbled("text where XML or JSON was expected")


def _inspect_json(resp: Response) -> None:
    """An error at the top of a JSON answer or in one of its result blocks (the top one wins)."""
    try:
        data = resp.json()
    except ValueError:
        raise _garbled("malformed JSON") from None
    if not isinstance(data, dict):
        return
    err = data.get("error") or data.get("ERROR")
    for inner in ("esearchresult", "einforesult", "linksets"):
        block = data.get(inner)
        if isinstance(block, dict) and (block.get("ERROR") or block.get("error")):
            err = err or block.get("ERROR") or block.get("error")
    if isinstance(err, str) and err.strip():
        raise classify_message(err)


def _inspect_xml(resp: Response) -> None:
    """A root ``<ERROR>``, or an ``<ERROR>`` under a result root that carries no result."""
    try:
        root = resp.xml()  # parsed once: the request's parser reads the same tree
    except markup.XMLRefused as exc:
        raise errors.upstream_error(
            "ncbi", errors.INVALID_RESPONSE, f"NCBI E-utilities sent XML that was refused ({exc})"
        ) from None
    except markup.XMLSyntaxError:
        raise _garbled("malformed or truncated XML") from None
    if root.tag == "ERROR":
        raise classify_message(root.text or "unspecified error")
    if root.tag in _RESULT_ROOTS:
        msgs = [(el.text or "").strip() for el in root.findall("ERROR")]
        msgs = [m for m in msgs if m]
        # An answer that carries its result with an ERROR (an esearch's Count, an epost's QueryKey
        # when some ids were omitted) is partial: the parser keeps the ERROR as a warning.
        partial = _PARTIAL_MARK.get(root.tag)
        if msgs and not (partial and root.find(partial) is not None):
            raise classify_message("; ".join(msgs))


def rate(config: PluginConfig) -> float:
    """NCBI's per-IP limit: 10 requests a second with an API key, else 3."""
    return RATE_KEYED if config.get("NCBI_API_KEY") else RATE_UNKEYED


def idconv_rate(config: PluginConfig) -> float:
    """The ID converter takes no key: its requests are judged at the unkeyed limit against
    everything the address sent, so it is a slower lane of the NCBI group."""
    return RATE_UNKEYED


def _identity(config: PluginConfig) -> dict[str, str]:
    out = {"tool": config.get("NCBI_TOOL") or DEFAULT_TOOL}
    if config.get("NCBI_EMAIL"):
        out["email"] = config["NCBI_EMAIL"] or ""
    return out


def eutils_identity(config: PluginConfig) -> dict[str, str]:
    out = _identity(config)
    if config.get("NCBI_API_KEY"):
        out["api_key"] = config["NCBI_API_KEY"] or ""
    return out


def idconv_identity(config: PluginConfig) -> dict[str, str]:
    # The ID converter takes no API key but counts against the same per-IP budget.
    return {**_identity(config), "format": "json"}


# E-utilities' History server: a search stored with usehistory=y hands out a WebEnv and query_key
# that name state on NCBI's side for a while; such requests and answers are never cached.
HISTORY_PARAMS = frozenset({"WebEnv", "query_key", "usehistory"})
HISTORY_MARKERS = (b"WebEnv",)
# E-utilities' booleans are y/n (usehistory=y); the ID converter's alike.
YES_NO = ("y", "n")


def user_agent(config: PluginConfig) -> dict[str, str]:
    return {"User-Agent": f"{config.get('NCBI_TOOL') or DEFAULT_TOOL} (medlit-mcp; MCP server)"}


SERVICES = (
    ServiceSpec(
        name="ncbi",
        title="NCBI E-utilities",
        base_url=EUTILS_URL,
        hosts=("eutils.ncbi.nlm.nih.gov",),
        rate=rate,
        pacing_group="ncbi",
        rate_setting="MEDLIT_NCBI_RATE",
        identify=eutils_identity,
        headers=user_agent,
        inspect=inspect_eutils,
        probe=Probe("einfo.fcgi", {}, "xml"),
        cache=records.EUTILS_CACHE,
        records=records.EUTILS_RECORDS,
        uncacheable_params=HISTORY_PARAMS,
        uncacheable_markers=HISTORY_MARKERS,
        bool_values=YES_NO,
        concurrency=3,
        description="Entrez E-utilities for every NCBI database",
    ),
    ServiceSpec(
        name="idconv",
        title="the PMC ID Converter",
        base_url=IDCONV_URL,
        hosts=("pmc.ncbi.nlm.nih.gov", "www.ncbi.nlm.nih.gov"),
        rate=idconv_rate,
        pacing_group="ncbi",
        rate_setting="MEDLIT_NCBI_RATE",
        identify=idconv_identity,
        headers=user_agent,
        probe=Probe("", {"ids": "PMC3531190"}, "json"),
        records=records.IDCONV_RECORDS,
        bool_values=YES_NO,
        error_prefix="ncbi",
        concurrency=2,
        description="PMID / PMCID / DOI conversion for articles in PMC",
    ),
)
