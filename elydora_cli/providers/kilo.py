"""Kilo Code CLI: an in-process plugin in ``$KILO_CONFIG_DIR/plugins/`` (default ``~/.config/kilo``).

Kilo is an OpenCode fork with the same plugin API; it also loads OpenCode's project plugin folders, so its
module and OpenCode's must never both record one tool call: see :mod:`elydora_cli.plug.plugin`.
"""

from __future__ import annotations

from pathlib import Path

from .. import catalog
from ..plug import defaults, plugin
from ..plug.context import Context

FACTS = catalog.provider("kilo")
XDG = "XDG_CONFIG_HOME"


def config_dir(ctx: Context) -> Path:
    """``$KILO_CONFIG_DIR`` (it replaces the global folder), else ``$XDG_CONFIG_HOME/kilo``, else
    ``~/.config/kilo``."""
    return ctx.env_dir(str(FACTS.config.env)) or (ctx.env_dir(XDG) or ctx.home / ".config") / "kilo"


_AGENT = plugin.PluginAgent(FACTS, config_dir)
ROLES, HOOK_COMMAND_REFUSED, agent_argv, extra_runtime = _AGENT.constants()
ENV_SWITCHES = defaults.NO_ENV_SWITCHES
sources, install, uninstall, check, installed_entries = _AGENT.plugs()
PLUGIN_PACKAGE = "@kilocode/plugin"
"""The npm package Kilo installs into its config folder when a plugin is there."""
NOTES = plugin.install_notes("Kilo", PLUGIN_PACKAGE)
