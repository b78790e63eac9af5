"""OpenCode: an in-process plugin in ``$XDG_CONFIG_HOME/opencode/plugins/`` (default ``~/.config/opencode``).

OpenCode loads every ``{plugin,plugins}/*.{ts,js}`` file of its global config folder (and of the project's
``.opencode/`` folders, which we never write). The plugin shape, its ownership and the cross-loading rule
with Kilo Code live in :mod:`elydora_cli.plug.plugin`.
"""

from __future__ import annotations

from pathlib import Path

from .. import catalog
from ..plug import defaults, plugin
from ..plug.context import Context

FACTS = catalog.provider("opencode")


def config_dir(ctx: Context) -> Path:
    """``$XDG_CONFIG_HOME/opencode`` when set and non-empty, else ``~/.config/opencode``. (OpenCode's
    ``OPENCODE_CONFIG_DIR`` adds a folder; the global one is loaded in any case.)"""
    return (ctx.env_dir(str(FACTS.config.env)) or ctx.home / ".config") / "opencode"


_AGENT = plugin.PluginAgent(FACTS, config_dir)
ROLES, HOOK_COMMAND_REFUSED, agent_argv, extra_runtime = _AGENT.constants()
ENV_SWITCHES = defaults.NO_ENV_SWITCHES
sources, install, uninstall, check, installed_entries = _AGENT.plugs()
PLUGIN_PACKAGE = "@opencode-ai/plugin"
"""The npm package OpenCode installs into its config folder when a plugin is there."""
NOTES = plugin.install_notes("OpenCode", PLUGIN_PACKAGE)
