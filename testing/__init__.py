"""The test kit for medlit plugins: a loopback fake upstream and hosts built from chosen plugins.

A plugin tests itself the way the built-ins do::

    from medlit.testing import FakeUpstream, make_runtime

    async with FakeUpstream(limits={"crossref": 5}) as fake:
        fake.respond("crossref", "works", {"items": []})
        async with make_runtime(my_plugin, fake=fake) as rt:
            outcome = await rt.call("crossref_lookup", {"doi": "10.1000/x"})
        assert fake.of("crossref", "works")

``host_for(env=...)`` is the host a configuration gives (what is served, a refusal to start),
``mcp_client(host)`` a client session with the real server over memory, ``tool_definition(host,
name)`` a tool as ``tools/list`` sends it. With medlit-mcp installed, pytest also gets the
fixtures of :mod:`medlit.testing.pytest_plugin` (``fake_upstream``, ``medlit_host``,
``medlit_runtime``). Names load lazily so that the pytest
plugin, which pytest imports in every run, costs nothing until a test uses it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from medlit.core.lazy import on_access

if TYPE_CHECKING:
    from medlit.core.host import Host, HostError
    from medlit.core.host import settings_var_for as base_url_var
    from medlit.core.runtime import CallOutcome, Runtime

    from .fake_upstream import (
        FAULT_KINDS,
        FakeUpstream,
        Fault,
        Handler,
        Limit,
        Req,
        json_response,
        text_response,
        xml_response,
    )
    from .hosts import (
        TEST_SETTINGS,
        InlinePlugin,
        declared_services,
        host_for,
        make_host,
        make_runtime,
        settings_for,
    )
    from .mcp import mcp_client, mcp_server, tool_definition, tool_definitions
    from .network import loopback_only
    from .schemas import check_structured

_EXPORTS = {
    "FAULT_KINDS": ".fake_upstream",
    "FakeUpstream": ".fake_upstream",
    "Fault": ".fake_upstream",
    "Handler": ".fake_upstream",
    "Limit": ".fake_upstream",
    "Req": ".fake_upstream",
    "base_url_var": ".fake_upstream",
    "json_response": ".fake_upstream",
    "text_response": ".fake_upstream",
    "xml_response": ".fake_upstream",
    "TEST_SETTINGS": ".hosts",
    "InlinePlugin": ".hosts",
    "declared_services": ".hosts",
    "make_host": ".hosts",
    "make_runtime": ".hosts",
    "host_for": ".hosts",
    "settings_for": ".hosts",
    "tool_definitions": ".mcp",
    "tool_definition": ".mcp",
    "mcp_server": ".mcp",
    "mcp_client": ".mcp",
    "loopback_only": ".network",
    "check_structured": ".schemas",
    "Host": "medlit.core.host",
    "HostError": "medlit.core.host",
    "Runtime": "medlit.core.runtime",
    "CallOutcome": "medlit.core.runtime",
}

__all__ = [
    "FAULT_KINDS",
    "TEST_SETTINGS",
    "CallOutcome",
    "FakeUpstream",
    "Fault",
    "Handler",
    "Host",
    "HostError",
    "InlinePlugin",
    "Limit",
    "Req",
    "Runtime",
    "base_url_var",
    "check_structured",
    "declared_services",
    "host_for",
    "json_response",
    "loopback_only",
    "make_host",
    "make_runtime",
    "mcp_client",
    "mcp_server",
    "settings_for",
    "text_response",
    "tool_definition",
    "tool_definitions",
    "xml_response",
]


__getattr__ = on_access(globals(), _EXPORTS)


def __dir__() -> list[str]:
    return sorted({*globals(), *_EXPORTS})
