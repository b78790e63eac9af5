"""Charm Crush: ``crush.json`` in ``CRUSH_GLOBAL_CONFIG`` (default ``$XDG_CONFIG_HOME/crush``, else ``~/.config/crush``;
on Windows ``%LOCALAPPDATA%\\crush``), strict JSON holding all of Crush's settings; hooks are a flat map
``{"hooks": {"PreToolUse": [handler]}}``.

Crush has one hook event, ``PreToolUse``, and no post-tool event. The guard goes there, and so does the audit,
which therefore records each tool call as it was about to run (its intent), never its result: Crush's own
payload names the event (``"event": "PreToolUse"``) and that payload is what the signed record carries.
``status`` says so in a note. Crush runs every hook command through its embedded POSIX shell, on Windows
too, so our entries are the POSIX form everywhere. A handler answers by exit code (2 denies, with stderr
as the reason; 49 halts the turn) or by JSON on stdout; our guard never prints ``{"decision": "allow"}``,
which would let the call skip Crush's own permission prompt.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

from elydora_config.errors import MalformedConfigError

from .. import catalog
from ..plug import defaults, hookmap, runners
from ..plug.cmdforms import posix_command
from ..plug.common import RefusedError, check_hooks, remove_hooks, single_target
from ..plug.context import Context
from ..plug.contract import Finding, Format, Sources, Target
from ..plug.documents import Documents
from ..plug.hookmap import HookMap
from ..plug.ownership import AUDIT, GUARD, Ref, runtime_argv
from ..plug.schema import NONEMPTY_STR, STR, Check, HandlerSchema, MapSchema

if TYPE_CHECKING:
    from typing import Any

FACTS = catalog.provider("crush")
EVENT = FACTS.events.pre_tool
INT = Check(lambda v: isinstance(v, int) and not isinstance(v, bool), "an integer (seconds)")
SCHEMA = MapSchema(
    HandlerSchema(
        by_type={"command": {"command": NONEMPTY_STR}},
        common={"name": STR, "matcher": STR, "timeout": INT},
        required={"command": ["command"]},
        default_type="command",
        open_keys=True,
    ),
    grouped=False,
)
NAMES = {GUARD: "Elydora guard", AUDIT: "Elydora audit (records the call before it runs)"}
INTENT_NOTE = (
    "Crush has no post-tool event: the Elydora audit runs on PreToolUse and records each tool call before it"
    " runs (its intent), not its result or failure"
)
_RE2_UNSUPPORTED = r"\(\?[=!<]|\\[1-9]"
"""Lookarounds and backreferences: valid for Python, refused by Go's RE2 (Crush would reject the file);
compiled on first use, by :mod:`re`'s cache (only a file with matchers needs it)."""


def make_handler(ref: Ref, ctx: Context) -> dict[str, Any]:
    """POSIX form on every platform: Crush's embedded shell runs it, not cmd.exe or PowerShell."""
    return {"name": NAMES[ref.role], "command": posix_command(runtime_argv(ref, ctx)), "timeout": ref.timeout}


HOOKS = HookMap({EVENT: GUARD}, make_handler, grouped=False)
AUDIT_HOOKS = HookMap({EVENT: AUDIT}, make_handler, grouped=False)
"""Two maps on the one event: ``hookmap.add`` writes one handler per event and map."""


def config_dir(ctx: Context) -> Path:
    configured = ctx.env_value("CRUSH_GLOBAL_CONFIG")
    if configured:
        return ctx.place(configured)
    xdg = ctx.env_value("XDG_CONFIG_HOME")
    if xdg:
        return ctx.place(xdg) / "crush"
    return (ctx.local_app_data() if ctx.windows else ctx.home / ".config") / "crush"


def sources(ctx: Context) -> Sources:
    if ctx.env_value("CRUSH_GLOBAL_CONFIG") == "":
        raise RefusedError(None, "CRUSH_GLOBAL_CONFIG is set but empty: unset it or name a directory")
    return Sources([Target(config_dir(ctx) / "crush.json", Format.JSON, new_text="{\n}\n")])


def _matchers(path: Path, value: Any) -> None:
    """What Crush refuses at load time beyond the schema: a matcher its RE2 engine cannot compile."""
    events = value.get("hooks") if isinstance(value, dict) else None
    for event, entries in (events if isinstance(events, dict) else {}).items():
        for index, handler in enumerate(entries):
            matcher = handler.get("matcher", "")
            try:
                re.compile(matcher)
            except re.error as exc:
                where = f"hooks.{event}[{index}].matcher"
                raise MalformedConfigError(path, f"{where} is not a valid regex: {exc}") from None
            if re.search(_RE2_UNSUPPORTED, matcher):
                raise MalformedConfigError(
                    path, f"hooks.{event}[{index}].matcher uses a lookaround or backreference, which Crush rejects"
                )


def _settings(docs: Documents) -> Path:
    path = single_target(docs, SCHEMA)
    doc = docs.doc(path)
    if doc is not None:
        _matchers(path, doc.value)
    return path


def _maps(ctx: Context) -> tuple[HookMap, ...]:
    """Guard and audit; with a ``--hook-command`` supervisor the guard entry alone, since the supervisor records
    every event it gates and Crush would run two entries of the same command line only once anyway."""
    return (HOOKS,) if ctx.hook_command else (HOOKS, AUDIT_HOOKS)


def install(docs: Documents, ctx: Context, agent_id: str) -> None:
    path = _settings(docs)
    edit = docs.edit(path, docs.ensure(path))
    hookmap.remove(edit, HOOKS, ctx)  # every entry of ours, guard and audit alike
    for hooks in _maps(ctx):
        hookmap.add(edit, hooks, ctx, agent_id)


def uninstall(docs: Documents, ctx: Context, agent_ids: set[str] | None) -> None:
    remove_hooks(docs, _settings(docs), HOOKS, ctx, agent_ids)


def check(docs: Documents, ctx: Context, agent_id: str) -> list[Finding]:
    path = _settings(docs)
    findings = [finding for hooks in _maps(ctx) for finding in check_hooks(docs, path, hooks, ctx, agent_id)]
    return [*findings, Finding(INTENT_NOTE, path, severity="note")]


ROLES = HOOKS.events
"""The one event of our entries (the audit shares it: each entry carries its own role)."""
HOOK_COMMAND_REFUSED = defaults.HOOK_COMMAND_ACCEPTED
ENV_SWITCHES = defaults.NO_ENV_SWITCHES
extra_runtime, installed_entries, _ = defaults.hook_map_agent(HOOKS)


def agent_argv(handler: Any, ctx: Context) -> list[str]:
    """Crush runs a command through its embedded POSIX shell (mvdan.cc/sh), on Windows too: there our
    single-quoted word list becomes the argv that shell spawns (no ``/bin/sh`` to stand in for it)."""
    if ctx.windows:
        return runners.word_list(handler["command"])
    return defaults.default_argv(handler, ctx)


NOTES = (
    "Crush has no post-tool hook: the audit records each tool call before it runs, not its result.",
    "Restart running Crush sessions so they load the new hooks.",
)
