"""OpenAI Codex: strict JSON hooks.json under CODEX_HOME, "*" groups, POSIX and encoded-PowerShell commands."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from elydora_config.errors import UnsafePathError

from .. import catalog
from .base import Finding, Format, Sources, Target
from .cmdforms import encoded_powershell
from .common import STATUS_MESSAGES, add_hooks, catalog_events, check_hooks, remove_hooks, shell_command, validated
from .context import Context
from .documents import Documents
from .hookmap import HookMap
from .ownership import Ref, refs_in, runtime_argv
from .schema import ANY, ANY_HANDLER, MapSchema

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
    return Sources([Target(home / "hooks.json", Format.JSON, new_text=new_text)])


def _path(docs: Documents) -> Path:
    path = next(iter(docs.targets))
    validated(docs, path, SCHEMA)
    return path


def install(docs: Documents, ctx: Context) -> None:
    add_hooks(docs, _path(docs), HOOKS, ctx, ctx.agent_id_for(FACTS.id))


def uninstall(docs: Documents, ctx: Context, agent_ids: set[str] | None) -> None:
    remove_hooks(docs, _path(docs), HOOKS, ctx, agent_ids)


def check(docs: Documents, ctx: Context, agent_id: str) -> list[Finding]:
    return check_hooks(docs, _path(docs), HOOKS, ctx, agent_id)


NOTES = ("Codex runs new or changed hooks only after you approve them: open /hooks in Codex and trust both.",)
