"""Cursor: the versioned flat hook file ``~/.cursor/hooks.json`` (CLI and IDE share it), ``failClosed`` handlers.

Our handlers set ``failClosed: true`` so that Cursor blocks the tool when the guard cannot decide; the guard
answers with ``{"permission": ...}`` JSON (see the catalog). A version-less file written by an older Elydora
installer is migrated and gets ``"version": 1``.
"""

from __future__ import annotations

from .. import catalog, managed
from ..plug import defaults, hookfile
from ..plug.common import catalog_events, command_handler
from ..plug.context import Context
from ..plug.contract import Sources, Target
from ..plug.hookfile import HookFile
from ..plug.hookmap import HookMap
from ..plug.layers import managed_file
from ..plug.pairforms import OldShape, exactly, recogniser
from ..plug.schema import ANY_HANDLER, NONNEG_INT, MapSchema

FACTS = catalog.provider("cursor")


make_handler = command_handler(typed=False, failClosed=True)


HOOKS = HookMap(
    events=catalog_events(FACTS),
    make=make_handler,
    grouped=False,
    legacy=recogniser(
        # the Python SDK installer: our keys, the interpreter and script without flags
        OldShape(
            frozenset({"command", "timeout", "failClosed"}),
            "command",
            ("posix", "call"),
            checks={"timeout": NONNEG_INT, "failClosed": exactly(True)},
        ),
        # the first installer: only a command, `"<python>" <script>` or the script path alone
        OldShape(frozenset({"command"}), "command", ("quoted", "bare")),
    ),
)
FILE = HookFile(
    FACTS.id,
    HOOKS,
    MapSchema(ANY_HANDLER, grouped=False),  # Cursor validates neither event names nor handler fields
    stamp={"version": 1},
    unstamped_legacy=True,
)


def sources(ctx: Context) -> Sources:
    if not ctx.system:
        return Sources([FILE.target(ctx.home / ".cursor" / "hooks.json")])
    new = FILE.target(managed_file(ctx, FACTS.id))  # the enterprise hooks.json: the user file's schema
    return Sources([Target(new.path, new.fmt, new_text=new.new_text, mode=managed.POLICY_MODE)])


install, uninstall, check = hookfile.plug(FILE)

ROLES = HOOKS.events
HOOK_COMMAND_REFUSED = defaults.HOOK_COMMAND_ACCEPTED
ENV_SWITCHES = defaults.NO_ENV_SWITCHES
extra_runtime, installed_entries, agent_argv = defaults.hook_map_agent(HOOKS)

NOTES = ("Restart Cursor and running cursor-agent sessions so they load the new hooks.",)
