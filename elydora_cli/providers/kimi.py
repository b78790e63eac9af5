"""Kimi Code: TOML ``config.toml`` with ``[[hooks]]`` tables (or an inline array), seconds (at most 600).

Kimi writes to the stable home (``KIMI_CODE_HOME`` or ``~/.kimi-code``) and, when the legacy kimi-cli home
``~/.kimi`` exists, to its ``config.toml`` too. Each hook is one table carrying its own ``event``: the
"tables" layout of ``plug/hooktables.py``; this module keeps Kimi's events, handler and schema check.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from elydora_config.errors import MalformedConfigError

from .. import catalog
from ..exitcodes import UsageError
from ..plug import defaults, hooktables
from ..plug.cmdforms import encoded_powershell
from ..plug.common import catalog_events, shell_command
from ..plug.context import Context
from ..plug.contract import Finding, Format, Sources, Target
from ..plug.documents import Documents
from ..plug.hooktables import HookTables
from ..plug.ownership import Ref, runtime_argv

if TYPE_CHECKING:
    from typing import Any

FACTS = catalog.provider("kimi")
EVENTS = catalog_events(FACTS)
MAX_TIMEOUT = 600
STABLE_EVENTS = frozenset(
    [
        "PreToolUse",
        "PostToolUse",
        "PostToolUseFailure",
        "UserPromptSubmit",
        "Stop",
        "StopFailure",
        "SessionStart",
        "SessionEnd",
        "SubagentStart",
        "SubagentStop",
        "PreCompact",
        "PostCompact",
        "Notification",
        "PermissionRequest",
        "PermissionResult",
        "Interrupt",
    ]
)
LEGACY_EVENTS = STABLE_EVENTS - {"PermissionRequest", "PermissionResult", "Interrupt"}


def make_handler(ref: Ref, ctx: Context) -> dict[str, Any]:
    """The keys of our table besides its ``event`` (the tables layout puts the event first)."""
    argv = runtime_argv(ref, ctx)
    command = encoded_powershell(argv, ctx.env) if ctx.windows else shell_command(ref, ctx)
    return {"command": command, "timeout": ref.timeout}


def sources(ctx: Context) -> Sources:
    stable_home = ctx.env_dir("KIMI_CODE_HOME") or ctx.home / ".kimi-code"
    stable, legacy = stable_home / "config.toml", ctx.home / ".kimi" / "config.toml"
    if stable == legacy:
        return Sources([Target(stable, Format.TOML, new_text="")])
    stable_found = bool(ctx.env_value("KIMI_CODE_HOME")) or (ctx.home / ".kimi-code").exists()
    legacy_found = (ctx.home / ".kimi").exists()
    chosen = [legacy] if legacy_found and not stable_found else [stable, legacy] if legacy_found else [stable]
    return Sources([Target(p, Format.TOML, new_text="") for p in chosen])


def _validate(path: Path, value: dict[str, Any], legacy: bool) -> list[Any]:
    hooks = value.get("hooks", [])
    if not isinstance(hooks, list):
        raise MalformedConfigError(path, "hooks must be an array of tables")
    known = LEGACY_EVENTS if legacy else STABLE_EVENTS
    for index, table in enumerate(hooks):
        where = f"hooks[{index}]"
        if not isinstance(table, dict):
            raise MalformedConfigError(path, f"{where} must be a table")
        extra = set(table) - {"event", "matcher", "command", "timeout"}
        if extra:
            raise MalformedConfigError(path, f"{where} has unknown keys: {', '.join(sorted(extra))}")
        if table.get("event") not in known:
            raise MalformedConfigError(path, f"{where}.event {table.get('event')!r} is not a Kimi hook event")
        if not isinstance(table.get("command"), str) or not table["command"].strip():
            raise MalformedConfigError(path, f"{where}.command must be a non-empty string")
        if "matcher" in table and not isinstance(table["matcher"], str):
            raise MalformedConfigError(path, f"{where}.matcher must be a string")
        timeout = table.get("timeout", 1)
        if isinstance(timeout, bool) or not isinstance(timeout, int) or not 1 <= timeout <= MAX_TIMEOUT:
            raise MalformedConfigError(path, f"{where}.timeout must be an integer from 1 to {MAX_TIMEOUT}")
    return hooks


def _is_legacy(path: Path, ctx: Context) -> bool:
    return path == ctx.home / ".kimi" / "config.toml"


def _validate_file(path: Path, value: dict[str, Any], ctx: Context) -> list[Any]:
    return _validate(path, value, path == ctx.home / ".kimi" / "config.toml")


TABLES = HookTables(EVENTS, make_handler, _validate_file)


def install(docs: Documents, ctx: Context, agent_id: str) -> None:
    if ctx.timeout_seconds > MAX_TIMEOUT:
        raise UsageError(f"Kimi Code accepts hook timeouts up to {MAX_TIMEOUT} s")
    hooktables.add(docs, TABLES, ctx, agent_id)


def uninstall(docs: Documents, ctx: Context, agent_ids: set[str] | None) -> None:
    hooktables.uninstall(docs, TABLES, ctx, agent_ids)


def check(docs: Documents, ctx: Context, agent_id: str) -> list[Finding]:
    """Healthy when any selected file holds exactly one current entry per event for the agent."""
    return hooktables.check(docs, TABLES, ctx, agent_id)


def installed_entries(docs: Documents, ctx: Context) -> list[defaults.Found]:
    """Every table of ours in every selected file (see ``installer/entries``); Kimi's timeouts are seconds."""
    return hooktables.installed_entries(docs, TABLES, ctx)


ROLES = EVENTS
agent_argv = defaults.default_argv
HOOK_COMMAND_REFUSED = defaults.HOOK_COMMAND_ACCEPTED
ENV_SWITCHES = defaults.NO_ENV_SWITCHES
extra_runtime = defaults.no_extra_runtime

NOTES = ("Restart Kimi Code sessions so they load the new hooks.",)
