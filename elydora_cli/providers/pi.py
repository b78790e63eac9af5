"""Pi (the pi coding agent, npm ``@mariozechner/pi-coding-agent``): an in-process extension in
``$PI_CODING_AGENT_DIR/extensions/`` (default ``~/.pi/agent/extensions``).

Pi loads every ``*.ts``/``*.js`` file (and ``*/index.{ts,js}``) of its agent folder's ``extensions/`` and of the
project's ``.pi/extensions/`` (which we never write) with jiti, in its own process, and calls each default export
with its extension API. Our module's ``tool_call`` handler runs the guard and blocks with ``{block, reason}``;
its ``tool_result`` handler hands every executed call to the audit hook. The module shape and its ownership live
in :mod:`elydora_cli.plug.plugin` (``PI_FORM``).
"""

from __future__ import annotations

from pathlib import Path

from .. import catalog
from ..plug import defaults, plugin
from ..plug.context import Context

FACTS = catalog.provider("pi")


def config_dir(ctx: Context) -> Path:
    """``$PI_CODING_AGENT_DIR`` when set and non-empty (Pi expands a leading ``~``), else ``~/.pi/agent``."""
    named = ctx.env_value(str(FACTS.config.env))
    if not named:
        return ctx.home / ".pi" / "agent"
    return ctx.home / named[2:] if named == "~" or named.startswith("~/") else ctx.place(named)


_AGENT = plugin.PluginAgent(FACTS, config_dir, plugin.PI_FORM)
ROLES, HOOK_COMMAND_REFUSED, agent_argv, extra_runtime = _AGENT.constants()
sources, install, uninstall, check, installed_entries = _AGENT.plugs()
ENV_SWITCHES = defaults.NO_ENV_SWITCHES  # Pi 0.73.1 reads no variable that turns extensions off (only --no-extensions)
NOTES = (
    "Pi loads extensions at start: restart running Pi sessions (or run /reload in them).",
    "`pi --no-extensions` (-ne) starts Pi without discovering extensions, ours included: such a session is "
    "neither guarded nor recorded.",
)
