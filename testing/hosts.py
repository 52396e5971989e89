"""Hosts and runtimes for tests: chosen plugins, an explicit environment, services on the fake.

Nothing is read from ``os.environ``: a test's environment is exactly what it passes, so a
developer's own ``NCBI_API_KEY`` or ``*_ENABLED`` never changes a result.
"""

from __future__ import annotations

from collections.abc import Mapping
from importlib.metadata import entry_points
from typing import TYPE_CHECKING, Any

from medlit.core.host import GROUP, Host, load_host, loads
from medlit.core.runtime import Runtime
from medlit.core.settings import Settings, load_settings
from medlit.core.types import OpenWebSpec, ServiceSpec

if TYPE_CHECKING:
    from .fake_upstream import FakeUpstream

TEST_SETTINGS: Mapping[str, str] = {
    "MEDLIT_BACKOFF_BASE": "0.01",
    "MEDLIT_REQUEST_TIMEOUT": "5",
    "MEDLIT_CACHE": "off",
}
"""Under every test host's own variables: retries back off in milliseconds, a stalled attempt
gives up after seconds, and no answer reaches (or comes from) a persistent response cache."""


def named(plugins: tuple[Any, ...]) -> list[tuple[str, Any]]:
    """``(name, plugin)`` pairs: a plugin given alone is named by its ``medlit_plugin_info()``."""
    out: list[tuple[str, Any]] = []
    for plugin in plugins:
        if isinstance(plugin, tuple) and len(plugin) == 2 and isinstance(plugin[0], str):
            out.append(plugin)
            continue
        info = getattr(plugin, "medlit_plugin_info", None)
        try:
            if info is None:
                raise AttributeError("the plugin has none")
            name = info().name
        except Exception as exc:
            raise TypeError(
                f"cannot name plugin {plugin!r} from its medlit_plugin_info() ({exc}); pass ('name', plugin)"
            ) from None
        out.append((name, plugin))
    return out


def declared_services(*plugins: Any, discover: bool = False, load_plugins: str | None = None) -> list[str]:
    """Every service the given plugins (and, with ``discover``, the installed ones that
    ``load_plugins`` lets load) declare, whatever their status: what a test points at the fake.

    Read from the plugins' ``medlit_services`` hooks directly, not from a host: a host refuses to
    build from an environment that only makes sense once the services point at the fake (a rate
    above the real limit)."""
    objects = [obj for _, obj in named(plugins)]
    if discover:
        allow = load_settings(
            {} if load_plugins is None else {"MEDLIT_LOAD_PLUGINS": load_plugins}
        ).load_plugins
        for ep in entry_points(group=GROUP):
            if loads(ep, allow):
                try:
                    objects.append(ep.load())
                except Exception:  # the host lists a broken plugin; it has no service to point
                    continue
    names: list[str] = []
    for obj in objects:
        hook = getattr(obj, "medlit_services", None)
        try:
            specs = list(hook() or ()) if callable(hook) else []
        except Exception:
            continue
        names += [s.name for s in specs if isinstance(s, ServiceSpec | OpenWebSpec)]
    return list(dict.fromkeys(names))


def make_host(
    *plugins: Any,
    env: Mapping[str, str] | None = None,
    discover: bool = False,
    fake: FakeUpstream | None = None,
) -> Host:
    """A host with ``plugins`` registered inline (a module or object with hook functions, or a
    ``("name", plugin)`` pair), plus the installed ones when ``discover``.

    The environment is :data:`TEST_SETTINGS`, then (with ``fake``) ``MEDLIT_BASE_URL_<SERVICE>``
    for every service those plugins declare, then ``env``."""
    full: dict[str, str] = dict(TEST_SETTINGS)
    if fake is not None:
        declared = declared_services(
            *plugins, discover=discover, load_plugins=(env or {}).get("MEDLIT_LOAD_PLUGINS")
        )
        fake.services.extend(s for s in declared if s not in fake.services)  # fake.env() names them too
        full.update(fake.env())
    full.update(env or {})
    return load_host(load_settings(full), discover=discover, inline=named(plugins))


def settings_for(env: Mapping[str, str] | None = None) -> Settings:
    """The settings ``env`` gives, exactly: nothing from :data:`TEST_SETTINGS`, nothing from
    ``os.environ`` (``{}`` is a configuration with nothing set). Raises the
    ``SettingsError`` a malformed value would stop the server with."""
    return load_settings(dict(env or {}))


def host_for(*plugins: Any, env: Mapping[str, str] | None = None, discover: bool = True) -> Host:
    """The host a user's configuration ``env`` gives (:func:`settings_for`): the installed
    plugins (``discover``) and ``plugins`` registered inline. For what a configuration means
    (which tools are served, what the catalog holds, a refusal to start: ``HostError``); a host
    whose services answer from the fake is :func:`make_host`'s."""
    return load_host(settings_for(env), discover=discover, inline=named(plugins))


def make_runtime(
    *plugins: Any,
    env: Mapping[str, str] | None = None,
    discover: bool = False,
    fake: FakeUpstream | None = None,
) -> Runtime:
    """A runtime over :func:`make_host`: ``async with make_runtime(plugin, fake=fake) as rt``,
    then ``await rt.call(tool, arguments)`` or ``rt.context(plugin_name)`` for a tier's context."""
    return Runtime(make_host(*plugins, env=env, discover=discover, fake=fake))


class InlinePlugin:
    """A plugin made of hook functions, for tests: ``InlinePlugin(medlit_plugin_info=hookimpl(f),
    ...)``. Hashable (pluggy registers plugins by identity), unlike a ``SimpleNamespace``."""

    def __init__(self, **hooks: Any) -> None:
        self.__dict__.update(hooks)

    def __repr__(self) -> str:
        return f"InlinePlugin({', '.join(sorted(self.__dict__))})"
