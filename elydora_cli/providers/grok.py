"""Grok Build: our own file in the hook folder ``<GROK_HOME>/hooks/`` (Grok loads every ``*.json`` there).

Claude-style groups without a matcher, timeouts in whole seconds. Grok reads the guard's
``{"decision": "deny", ...}`` answer with exit status 2 (see the catalog). Groups of another shape (a matcher,
extra keys) are the user's and never touched.
"""

from __future__ import annotations

from .. import catalog
from ..plug import defaults, hookfile
from ..plug.common import RefusedError, catalog_events, command_handler, encoded_command
from ..plug.context import Context
from ..plug.contract import Sources
from ..plug.hookfile import HookFile
from ..plug.hookmap import HookMap
from ..plug.pairforms import OldShape, exactly, recogniser
from ..plug.schema import NONEMPTY_STR, NONNEG_INT, STR, STR_MAP, HandlerSchema, MapSchema, nullable

FACTS = catalog.provider("grok")
SCHEMA = MapSchema(
    HandlerSchema(
        by_type={"command": {"command": NONEMPTY_STR}, "http": {"url": NONEMPTY_STR}},
        common={"timeout": NONNEG_INT, "env": nullable(STR_MAP)},
        required={"command": ["command"], "http": ["url"]},
        open_keys=True,
    ),
    group={"matcher": STR},
    open_group_keys=True,
    simple_events=("SessionStart", "SessionEnd", "Stop", "UserPromptSubmit"),  # Grok drops their matcher groups
)


make_handler = command_handler(encoded_command)


OLDER_SHAPE = OldShape(  # earlier installers: no interpreter flags, in each quoting they used
    frozenset({"type", "command", "timeout"}),
    "command",
    ("posix", "joined", "msvc", "encoded"),
    checks={"type": exactly("command"), "timeout": NONNEG_INT},
)
HOOKS = HookMap(catalog_events(FACTS), make_handler, own_groups_only=True, legacy=recogniser(OLDER_SHAPE))
FILE = HookFile(FACTS.id, HOOKS, SCHEMA)


def sources(ctx: Context) -> Sources:
    configured = ctx.env_value("GROK_HOME")
    if configured == "":
        raise RefusedError(None, "GROK_HOME is set but empty: unset it (Grok then uses ~/.grok) or name a directory")
    home = ctx.place(configured) if configured else ctx.home / ".grok"
    return Sources([FILE.target(home / "hooks" / "elydora-audit.json")])


install, uninstall, check = hookfile.plug(FILE)

ROLES = HOOKS.events
HOOK_COMMAND_REFUSED = defaults.HOOK_COMMAND_ACCEPTED
ENV_SWITCHES = defaults.NO_ENV_SWITCHES
extra_runtime, installed_entries, agent_argv = defaults.hook_map_agent(HOOKS)

NOTES = ("Check the hooks with `grok inspect --json` or /hooks inside Grok Build.",)
