"""Kiro CLI (v3): our own standalone hook file ``~/.kiro/hooks/elydora-audit.json``, which Kiro applies to every
agent, the default one included.

The file is Kiro's versioned trigger list (see :mod:`..plug.triggerfile`), wholly ours: install writes it,
uninstall deletes it, a file of that name holding anything else is refused. Kiro runs a command action through
the shell; exit status 2 of a ``PreToolUse`` command blocks the tool and hands stderr to the model, other
statuses fail open (see the catalog). The v2 form, hooks inside one custom agent, is the separate provider
``kiroagent``, installed only on request. Kiro IDE keeps its hooks in the same folder (provider ``kiroide``):
status notes its Elydora file when it is there, since Kiro CLI then runs both.
"""

from __future__ import annotations

from .. import catalog
from ..plug import defaults, triggerfile
from ..plug.common import catalog_events
from ..plug.triggerfile import TriggerFile

FACTS = catalog.provider("kirocli")
HOOKS = TriggerFile(FACTS.id, catalog_events(FACTS), name="elydora-audit.json", neighbour="elydora-kiroide.json")
sources, install, uninstall, check, installed_entries, extra_runtime, agent_argv = triggerfile.plug(HOOKS)
ROLES = HOOKS.events
HOOK_COMMAND_REFUSED = defaults.HOOK_COMMAND_ACCEPTED
ENV_SWITCHES = defaults.NO_ENV_SWITCHES

NOTES = ("Kiro CLI reads ~/.kiro/hooks/ when a session starts: restart running kiro-cli sessions.",)
