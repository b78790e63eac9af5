"""Kiro IDE: our own standalone hook file ``~/.kiro/hooks/elydora-kiroide.json``, in Kiro's versioned trigger list
form (the IDE 1.x and Kiro CLI v3 share it; see :mod:`..plug.triggerfile`).

Wholly ours: install writes it, uninstall deletes it, a file of that name holding anything else is refused.
Exit status 2 of a ``PreToolUse`` command blocks the tool; other statuses fail open (see the catalog). That
the IDE reads the user-level folder, not only a workspace's ``.kiro/hooks/``, is reported, not verified: the
install note asks the user to look for the hooks in the IDE's Agent Hooks panel. Kiro CLI loads the same
folder, so status notes the CLI provider's file when it is there too.
"""

from __future__ import annotations

from .. import catalog
from ..plug import defaults, triggerfile
from ..plug.common import catalog_events
from ..plug.triggerfile import TriggerFile

FACTS = catalog.provider("kiroide")
HOOKS = TriggerFile(FACTS.id, catalog_events(FACTS), name="elydora-kiroide.json", neighbour="elydora-audit.json")
sources, install, uninstall, check, installed_entries, extra_runtime, agent_argv = triggerfile.plug(HOOKS)
ROLES = HOOKS.events
HOOK_COMMAND_REFUSED = defaults.HOOK_COMMAND_ACCEPTED
ENV_SWITCHES = defaults.NO_ENV_SWITCHES

NOTES = (
    "Open the Agent Hooks panel of the Kiro IDE and check that elydora-guard and elydora-audit are listed"
    " (that the IDE reads ~/.kiro/hooks/ is documented by third parties only).",
)
