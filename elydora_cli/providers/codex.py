"""OpenAI Codex: strict JSON hooks.json under CODEX_HOME, "*" groups, POSIX and encoded-PowerShell commands."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from elydora_config.errors import UnsafePathError

from .. import catalog
from ..plug import defaults, hookmap
from ..plug.cmdforms import encoded_powershell
from ..plug.common import (
    STATUS_MESSAGES,
    add_hooks,
    catalog_events,
    check_hooks,
    remove_hooks,
    shell_command,
    validated,
)
from ..plug.context import Context
from ..plug.contract import Finding, Format, Sources, Target
from ..plug.documents import Documents
from ..plug.hookmap import HookMap
from ..plug.ownership import Ref, refs_in, runtime_argv
from ..plug.schema import ANY, ANY_HANDLER, MapSchema

FACTS = catalog.provider("codex")
DESCRIPTION = "Elydora audit and freeze enforcement"
SCHEMA = MapSchema(ANY_HANDLER, group={"matcher": ANY}, open_group_keys=True)
_KEYS = frozenset({"type", "command", "commandWindows", "timeout", "statusMessage"})


def make_handler(ref: Ref, ctx: Context) -> dict[str, Any]:
    return {
        "type": "command",
        "command": shell_command(ref, ctx),
        "commandWindows": encoded_powershell(runtime_argv(ref, ctx), ctx.env),
        "timeout": ref.timeout,
        "statusMessage": STATUS_MESSAGES[ref.role],
    }


def _legacy(handler: Any, ctx: Context) -> Ref | None:
    """The older pair: plain shell-joined ``command`` and C-runtime-quoted ``commandWindows``."""
    if set(handler) != _KEYS or handler.get("statusMessage") not in STATUS_MESSAGES.values():
        return None
    refs = list(refs_in({"command": handler.get("command")}, ctx))
    return refs[0] if refs else None


HOOKS = HookMap(events=catalog_events(FACTS), make=make_handler, group={"matcher": "*"}, legacy=_legacy)


def sources(ctx: Context) -> Sources:
    configured = ctx.env_value("CODEX_HOME")
    if configured:
        home = ctx.place(configured)
        if not home.is_dir():
            raise UnsafePathError(home, "CODEX_HOME must name an existing directory")
        home = Path(os.path.realpath(home))
    else:
        home = ctx.home / ".codex"
    new_text = '{\n  "description": "' + DESCRIPTION + '"\n}\n'
    config = home / "config.toml"
    return Sources([Target(home / "hooks.json", Format.JSON, new_text=new_text)], [config], {config: Format.TOML})


def _path(docs: Documents) -> Path:
    path = next(iter(docs.targets))
    validated(docs, path, SCHEMA)
    return path


def install(docs: Documents, ctx: Context, agent_id: str) -> None:
    add_hooks(docs, _path(docs), HOOKS, ctx, agent_id)


def uninstall(docs: Documents, ctx: Context, agent_ids: set[str] | None) -> None:
    remove_hooks(docs, _path(docs), HOOKS, ctx, agent_ids)


def check(docs: Documents, ctx: Context, agent_id: str) -> list[Finding]:
    path = _path(docs)
    return check_hooks(docs, path, HOOKS, ctx, agent_id) or _untrusted(docs, path, ctx, agent_id)


def _snake(event: str) -> str:
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in event).lstrip("_")


def _untrusted(docs: Documents, path: Path, ctx: Context, agent_id: str) -> list[Finding]:
    """Codex silently skips hooks nobody trusted: each of ours needs a ``hooks.state`` entry in config.toml.

    Codex keys the entry ``<hooks.json>:<event in snake case>:<group>:<handler>``; the hash it stores cannot
    be recomputed here, so a trust given to an earlier version of an entry is not detected as stale.
    """
    config_path = next(iter(docs.depends), None)
    config = docs.depends.get(config_path) if config_path else None
    value = config.value if config is not None else {}
    state = value.get("hooks", {}).get("state", {}) if isinstance(value.get("hooks"), dict) else {}
    doc = docs.doc(path)
    groups_by_event = (doc.value.get("hooks") or {}) if doc is not None else {}
    missing = []
    for event in HOOKS.events:
        for gi, group in enumerate(groups_by_event.get(event) or []):
            for hi, handler in enumerate(group.get("hooks") or [] if isinstance(group, dict) else []):
                ref = hookmap.ours(HOOKS, handler, ctx)
                key = f"{path}:{_snake(event)}:{gi}:{hi}"
                if ref and ref.agent_id == agent_id and not isinstance(state.get(key), dict):
                    missing.append(event)
    if not missing:
        return []
    return [Finding(f"awaiting trust: Codex skips hooks nobody trusted ({', '.join(missing)}); "
                    "open /hooks in Codex and choose to trust them", config_path, severity="pending")]


ROLES = HOOKS.events
HOOK_COMMAND_REFUSED = defaults.HOOK_COMMAND_ACCEPTED
extra_runtime, installed_entries, agent_argv = defaults.hook_map_agent(HOOKS)

NOTES = ("Codex runs new or changed hooks only after you approve them: open /hooks in Codex and trust both.",)
