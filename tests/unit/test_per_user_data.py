"""A plugin that keeps data per user says so (``PluginInfo(per_user_data=True)``), and the HTTP
transport refuses to serve its tools on a public address without authentication: core names no
plugin for it, a third-party plugin is held to the same rule as the review plugin."""

from __future__ import annotations

import argparse

from pydantic import BaseModel

from medlit.core import cli
from medlit.core.plugin import PluginInfo, ToolSpec, hookimpl
from medlit.testing import InlinePlugin, make_host


class Empty(BaseModel):
    pass


async def _noop(args, ctx):
    return Empty()


def plugin(name: str, tools: tuple[str, ...], per_user: bool) -> InlinePlugin:
    return InlinePlugin(
        medlit_plugin_info=hookimpl(lambda: PluginInfo(name=name, title=name, per_user_data=per_user)),
        medlit_tools=hookimpl(
            lambda: [ToolSpec(t, t, t, input_model=Empty, output_model=Empty, handler=_noop) for t in tools]
        ),
    )


def serve_args(host: str) -> argparse.Namespace:
    return argparse.Namespace(host=host, port=8000)


def test_a_plugin_declaring_per_user_data_is_refused_on_a_public_address(capsys):
    host = make_host(
        plugin("acme", ("acme_save", "acme_list"), per_user=True),
        plugin("other", ("other_lookup",), per_user=False),
        plugin("notes", ("keep_note", "list_notes"), per_user=True),
    )
    assert cli._http_auth(host, serve_args("0.0.0.0")) is None
    err = capsys.readouterr().err
    assert "refusing to serve acme_list, acme_save, keep_note, list_notes on 0.0.0.0" in err
    assert "other_lookup" not in err.split("MEDLIT_TOOLS")[0]
    assert "(acme, notes keep data per user)" in err
    assert "MEDLIT_TOOLS=-acme_*,-keep_note,-list_notes." in err


def test_loopback_and_plugins_without_the_flag_serve(capsys):
    keeps = make_host(plugin("acme", ("acme_save",), per_user=True))
    assert cli._http_auth(keeps, serve_args("127.0.0.1")) is not None
    shares = make_host(plugin("other", ("other_lookup",), per_user=False))
    assert cli._http_auth(shares, serve_args("0.0.0.0")) is not None
    assert capsys.readouterr().err == ""
