"""Which link resolver: ``OPENURL_RESOLVER`` (a base URL) or ``OPENURL_PRESET`` (a product whose
base URL is built from the library's codes).

Every product below takes an OpenURL 1.0 KEV query on the base URL; what differs is where the
library's identity goes (a host name, a path segment or query parameters). A library whose
resolver is not listed, or needs more parameters, sets ``OPENURL_RESOLVER`` to its base URL,
query included (``https://resolver.example.edu/openurl?institution=X``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import quote, urlsplit

RESOLVER = "OPENURL_RESOLVER"
PRESET = "OPENURL_PRESET"
INSTITUTION = "OPENURL_INSTITUTION"
HOST = "OPENURL_HOST"
VIEW = "OPENURL_VIEW"
# Which variable fills which placeholder of a template.
PLACEHOLDER = {"institution": INSTITUTION, "host": HOST, "view": VIEW}

_HOST = re.compile(
    r"^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}[A-Za-z0-9])?)*(?::\d{1,5})?$"
)
_LABEL = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}[A-Za-z0-9])?$")  # one DNS label
_CODE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:~-]{0,99}$")


@dataclass(frozen=True)
class Preset:
    """A resolver product: its URL template and what each placeholder means for it."""

    name: str
    product: str
    template: str
    needs: Mapping[str, str]  # placeholder -> what the library supplies, with an example

    def url(self, values: Mapping[str, str]) -> str:
        out = self.template
        for key in self.needs:
            out = out.replace("{" + key + "}", values[key])
        return out


PRESETS: dict[str, Preset] = {
    p.name: p
    for p in (
        Preset(
            "sfx",
            "Ex Libris SFX",
            "https://{host}/{institution}",
            {
                "host": "the SFX server, e.g. sfx.library.example.edu",
                "institution": "the instance, e.g. sfx_local",
            },
        ),
        Preset(
            "360link",
            "ProQuest 360 Link (Serials Solutions)",
            "https://{institution}.search.serialssolutions.com/",
            {"institution": "the 360 Link client ID, e.g. ab1cd2ef3g"},
        ),
        Preset(
            "alma",
            "Ex Libris Alma link resolver (uresolver)",
            "https://{host}/view/uresolver/{institution}/openurl",
            {
                "host": "the Alma server, e.g. na01.alma.exlibrisgroup.com",
                "institution": "the institution code, e.g. 01UNIV_INST",
            },
        ),
        Preset(
            "primo",
            "Ex Libris Primo VE",
            "https://{host}/discovery/openurl?institution={institution}&vid={view}",
            {
                "host": "the Primo VE host, e.g. univ.primo.exlibrisgroup.com",
                "institution": "the institution code, e.g. 01UNIV_INST",
                "view": "the view, e.g. 01UNIV_INST:MAIN",
            },
        ),
        Preset(
            "ebsco",
            "EBSCO Full Text Finder",
            "https://resolver.ebscohost.com/openurl?custid={institution}&groupid=main",
            {"institution": "the EBSCO customer ID, e.g. s1234567"},
        ),
        Preset(
            "worldcat",
            "OCLC WorldCat Discovery / WorldShare link resolver",
            "https://{institution}.on.worldcat.org/atoztitles/link",
            {"institution": "the WorldCat Discovery subdomain, e.g. univ (for univ.on.worldcat.org)"},
        ),
    )
}


def _value(preset: Preset, key: str, raw: str) -> str:
    """A placeholder's value checked for where it goes (a host name, a DNS label, a code)."""
    var = PLACEHOLDER[key]
    text = raw.strip()
    if key == "host":
        text = text.removeprefix("https://").removeprefix("http://").rstrip("/")
        if not _HOST.match(text):
            raise ValueError(f"{var}={raw!r} is not a host name ({preset.needs[key]})")
        return text.lower()
    if key == "institution" and preset.template.startswith("https://{institution}."):
        if not _LABEL.match(text):
            raise ValueError(f"{var}={raw!r} must be letters, digits and hyphens ({preset.needs[key]})")
        return text.lower()
    if not _CODE.match(text):
        raise ValueError(f"{var}={raw!r} is not a code ({preset.needs[key]})")
    return quote(text, safe=":_.~-")


def _needed(preset: Preset, config: Mapping[str, str | None]) -> list[str]:
    return [
        f"{PLACEHOLDER[k]} ({d})"
        for k, d in preset.needs.items()
        if not (config.get(PLACEHOLDER[k]) or "").strip()
    ]


def check(config: Mapping[str, str | None]) -> str | None:
    """What the plugin still needs (``None``: ready); ``ValueError`` for a malformed setting."""
    if (config.get(RESOLVER) or "").strip():
        resolver_base(config)  # raises on a bad URL
        return None
    name = (config.get(PRESET) or "").strip().lower()
    if not name:
        return f"{RESOLVER} (your library's OpenURL base URL) or {PRESET} ({', '.join(PRESETS)})"
    if name not in PRESETS:
        raise ValueError(f"{PRESET}={name!r} is not one of {', '.join(PRESETS)}; or set {RESOLVER} instead")
    missing = _needed(PRESETS[name], config)
    if missing:
        return " and ".join(missing) + f" for {PRESET}={name}"
    resolver_base(config)
    return None


def resolver_base(config: Mapping[str, str | None]) -> str | None:
    """The resolver's base URL from the settings (``OPENURL_RESOLVER`` wins over a preset), or
    ``None`` when neither is complete. ``ValueError`` for a malformed value."""
    raw = (config.get(RESOLVER) or "").strip()
    if raw:
        parts = urlsplit(raw)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"{RESOLVER}={raw!r} is not an http(s) URL")
        if parts.username or parts.password:
            raise ValueError(
                f"{RESOLVER} must not carry credentials; the resolver authenticates the user itself"
            )
        return raw.split("#", 1)[0]
    name = (config.get(PRESET) or "").strip().lower()
    preset = PRESETS.get(name)
    if preset is None or _needed(preset, config):
        return None
    values = {k: _value(preset, k, config.get(PLACEHOLDER[k]) or "") for k in preset.needs}
    return preset.url(values)


def describe(config: Mapping[str, str | None]) -> str:
    """Which resolver the links go to, for the tool's output (the product or the host)."""
    name = (config.get(PRESET) or "").strip().lower()
    if not (config.get(RESOLVER) or "").strip() and name in PRESETS:
        return PRESETS[name].product
    base = resolver_base(config) or ""
    return urlsplit(base).hostname or "the configured resolver"
