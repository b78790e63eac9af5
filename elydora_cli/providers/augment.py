"""Auggie (Augment Code CLI): strict JSON ``~/.augment/settings.json``; each handler runs a wrapper script.

Auggie's handler is only the quoted path of a wrapper in the agent's state directory (``augment-guard.sh`` /
``augment-hook.sh``, or ``.cmd`` on Windows) that runs our runtime with ``-I -S``. Matchers exist on the two
tool events only and are JavaScript regular expressions, so install has Node.js compile every user matcher.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .. import catalog
from ..plug import defaults
from ..plug.cmdforms import posix_quote
from ..plug.common import add_hooks, catalog_events, check_hooks, remove_hooks, single_target
from ..plug.context import RUNTIME_FLAGS, Context
from ..plug.contract import Finding, Format, Sources, Target
from ..plug.documents import Documents
from ..plug.hookmap import HookMap
from ..plug.jsregex import Pattern, require_compilable
from ..plug.ownership import AUDIT, GUARD, Ref, runtime_argv
from ..plug.schema import NONEMPTY_STR, POS_NUMBER, STR, STR_LIST, Check, HandlerSchema, MapSchema

FACTS = catalog.provider("augment")
MAX_BYTES = 512 * 1024
TOOL_EVENTS = ("PreToolUse", "PostToolUse")
SIMPLE_EVENTS = ("Stop", "SessionStart", "SessionEnd", "Notification", "PromptSubmit")
METADATA_FLAGS = ("includeConversationData", "includeMCPMetadata", "includeUserContext")
METADATA = Check(
    lambda v: isinstance(v, dict) and all(isinstance(v[k], bool) for k in METADATA_FLAGS if k in v),
    "an object whose " + ", ".join(METADATA_FLAGS) + " are true or false",
)
SCHEMA = MapSchema(
    HandlerSchema(
        by_type={"command": {"command": NONEMPTY_STR, "args": STR_LIST, "timeout": POS_NUMBER}},
        required={"command": ["command"]},
        open_keys=True,
    ),
    events=TOOL_EVENTS + SIMPLE_EVENTS,
    group={"matcher": STR, "metadata": METADATA},
    open_group_keys=True,
    simple_events=SIMPLE_EVENTS,
)
OUR_MATCHER = ".*"
WRAPPERS = {GUARD: "augment-guard", AUDIT: "augment-hook"}
WRAPPER_MODE = 0o700


def wrapper_name(role: str, ctx: Context) -> str:
    return WRAPPERS[role] + (".cmd" if ctx.windows else ".sh")


def make_handler(ref: Ref, ctx: Context) -> dict[str, Any]:
    """The quoted wrapper path: POSIX single quotes, or Windows double quotes (``"`` escaped as ``\\"``)."""
    path = str(ctx.agent_dir(ref.agent_id) / wrapper_name(ref.role, ctx))
    command = '"' + path.replace('"', '\\"') + '"' if ctx.windows else posix_quote(path)
    return {"type": "command", "command": command, "timeout": ref.timeout}


HOOKS = HookMap(
    events=catalog_events(FACTS),
    make=make_handler,
    group={"matcher": OUR_MATCHER},
    unit="ms",
    scripts={f"{name}{ext}": role for role, name in WRAPPERS.items() for ext in (".sh", ".cmd")},
)


def wrapper_text(ctx: Context, agent_id: str, role: str) -> bytes:
    """``#!/bin/sh`` + ``exec`` of the hook command (``'<python>' -I -S '<runtime>'``, or the ``--hook-command``
    supervisor); on Windows a CRLF batch file that passes the exit code on (``%`` doubled inside the quoted
    words). Interpreter flags stay bare words; every other word is quoted."""
    argv = runtime_argv(Ref(agent_id, role, ctx.python), ctx)
    if ctx.windows:
        words = [a if a in RUNTIME_FLAGS else '"' + a.replace("%", "%%") + '"' for a in argv]
        return f"@echo off\r\n{' '.join(words)}\r\nexit /b %errorlevel%\r\n".encode()
    words = [a if a in RUNTIME_FLAGS else posix_quote(a) for a in argv]
    return f"#!/bin/sh\nexec {' '.join(words)}\n".encode()


def extra_runtime(ctx: Context, agent_id: str) -> dict[str, tuple[bytes, int]]:
    """The two wrappers, generated into the agent's state directory (status compares them byte for byte)."""
    return {wrapper_name(role, ctx): (wrapper_text(ctx, agent_id, role), WRAPPER_MODE) for role in WRAPPERS}


def sources(ctx: Context) -> Sources:
    target = ctx.home / ".augment" / "settings.json"
    return Sources([Target(target, Format.JSON, new_text="{\n}\n", max_bytes=MAX_BYTES)])


def user_matchers(path: Path, value: Any) -> list[Pattern]:
    """Every matcher Auggie will compile, except our own ``.*`` (valid in every JavaScript engine)."""
    hooks = value.get("hooks") if isinstance(value, dict) else None
    found = []
    for event in TOOL_EVENTS:
        groups = hooks.get(event, []) if isinstance(hooks, dict) else []
        for index, group in enumerate(groups):
            matcher = group.get("matcher")
            if isinstance(matcher, str) and matcher != OUR_MATCHER:
                found.append(Pattern(path, f"hooks.{event}[{index}].matcher", matcher))
    return found


def install(docs: Documents, ctx: Context, agent_id: str) -> None:
    """Install needs Node.js only when the file holds matchers of the user's (Auggie compiles them)."""
    path = single_target(docs, SCHEMA)
    doc = docs.doc(path)
    require_compilable(user_matchers(path, doc.value if doc is not None else None))
    add_hooks(docs, path, HOOKS, ctx, agent_id)


def check(docs: Documents, ctx: Context, agent_id: str) -> list[Finding]:
    return check_hooks(docs, single_target(docs, SCHEMA), HOOKS, ctx, agent_id)


def uninstall(docs: Documents, ctx: Context, agent_ids: set[str] | None) -> None:
    remove_hooks(docs, single_target(docs, SCHEMA), HOOKS, ctx, agent_ids)


ROLES = HOOKS.events
HOOK_COMMAND_REFUSED = defaults.HOOK_COMMAND_ACCEPTED
installed_entries = defaults.entries_in(defaults.first_target(HOOKS))
agent_argv = defaults.default_argv

NOTES = ("Restart Auggie so it loads the new hooks; check with `auggie tools list`.",)
