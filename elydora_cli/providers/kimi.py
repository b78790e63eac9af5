"""Kimi Code: TOML ``config.toml`` with ``[[hooks]]`` tables (or an inline array), seconds (at most 600).

Kimi writes to the stable home (``KIMI_CODE_HOME`` or ``~/.kimi-code``) and, when the legacy kimi-cli home
``~/.kimi`` exists, to its ``config.toml`` too. Each hook is one table carrying its own ``event``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from elydora_config.errors import MalformedConfigError

from .. import catalog
from ..exitcodes import UsageError
from ..plug import defaults
from ..plug.cmdforms import encoded_powershell
from ..plug.common import catalog_events, shell_command
from ..plug.context import Context
from ..plug.contract import Finding, Format, Sources, Target
from ..plug.documents import Documents
from ..plug.hookmap import timeout_finding
from ..plug.ownership import Ref, refs_in, runtime_argv, supervisor_refs

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


def make_handler(ref: Ref, ctx: Context, event: str) -> dict[str, Any]:
    argv = runtime_argv(ref, ctx)
    command = encoded_powershell(argv, ctx.env) if ctx.windows else shell_command(ref, ctx)
    return {"event": event, "command": command, "timeout": ref.timeout}


def sources(ctx: Context) -> Sources:
    stable_home = ctx.env_dir("KIMI_CODE_HOME") or ctx.home / ".kimi-code"
    stable, legacy = stable_home / "config.toml", ctx.home / ".kimi" / "config.toml"
    if stable == legacy:
        return Sources([Target(stable, Format.TOML, new_text="")])
    stable_found = bool(ctx.env_value("KIMI_CODE_HOME")) or (ctx.home / ".kimi-code").exists()
    legacy_found = (ctx.home / ".kimi").exists()
    chosen = [legacy] if legacy_found and not stable_found else [stable, legacy] if legacy_found else [stable]
    return Sources([Target(p, Format.TOML, new_text="") for p in chosen])


def ours(table: Any, ctx: Context) -> Ref | None:
    """Our table: keys exactly event/command/timeout, a runtime command of ours (in any form an installer
    wrote) or exactly our supervisor command, the event of its role."""
    if not isinstance(table, dict) or set(table) != {"event", "command", "timeout"}:
        return None
    if not isinstance(table["timeout"], int):
        return None
    role = EVENTS.get(table["event"])
    for ref in refs_in({"command": table["command"]}, ctx):
        if ref.role == role:
            return Ref(ref.agent_id, ref.role, ref.python, table["timeout"])
    for ref, scoped in supervisor_refs({"command": table["command"]}, ctx):
        timed = Ref(ref.agent_id, ref.role, ref.python, table["timeout"])
        if ref.role == role and table == make_handler(timed, scoped, table["event"]):
            return timed
    return None


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


def _remove(docs: Documents, path: Path, ctx: Context, agent_ids: set[str] | None) -> None:
    doc = docs.doc(path)
    if doc is None:
        return
    hooks = _validate(path, doc.value, _is_legacy(path, ctx))
    log = docs.log(path)
    for index in reversed(range(len(hooks))):
        ref = ours(hooks[index], ctx)
        if ref and (agent_ids is None or ref.agent_id in agent_ids):
            doc.remove(("hooks", index))
            log.removed.append({"at": ["hooks", index], "value": hooks[index]})
    if hooks and doc.get(("hooks",), None) == [] and ["hooks"] in docs.created.get(path, [["hooks"]]):
        doc.remove(("hooks",))
    if docs.was_created_by_us(path) and doc.value == {}:
        docs.delete(path)


def install(docs: Documents, ctx: Context, agent_id: str) -> None:
    if ctx.timeout_seconds > MAX_TIMEOUT:
        raise UsageError(f"Kimi Code accepts hook timeouts up to {MAX_TIMEOUT} s")
    for path in docs.targets:
        doc = docs.ensure(path)
        _remove(docs, path, ctx, None)
        doc = docs.ensure(path)
        log = docs.log(path)
        if not doc.has(("hooks",)):
            log.created.append(["hooks"])
        for event, role in EVENTS.items():
            table = make_handler(Ref(agent_id, role, ctx.python, ctx.timeout_seconds), ctx, event)
            log.inserted.append({"at": ["hooks", len(doc.get(("hooks",), []))], "value": table})
            doc.append_table(("hooks",), table)  # type: ignore[attr-defined]


def uninstall(docs: Documents, ctx: Context, agent_ids: set[str] | None) -> None:
    for path in docs.targets:
        _remove(docs, path, ctx, agent_ids)


def installed(value: Any, ctx: Context) -> list[tuple[str, Ref, dict[str, Any]]]:
    hooks = value.get("hooks", []) if isinstance(value, dict) else []
    return [(t["event"], ref, t) for t in hooks if (ref := ours(t, ctx))]


def check(docs: Documents, ctx: Context, agent_id: str) -> list[Finding]:
    """Healthy when any selected file holds exactly one current entry per event for the agent."""
    findings: list[Finding] = []
    for path in docs.targets:
        doc = docs.doc(path)
        value = doc.value if doc is not None else {}
        _validate(path, value, _is_legacy(path, ctx))
        mine = [(e, ref, t) for e, ref, t in installed(value, ctx) if ref.agent_id == agent_id]
        problems = []
        for event, role in EVENTS.items():
            current = [t for e, ref, t in mine if e == event and t == _expected(ctx, agent_id, ref, e)]
            stale = [t for e, ref, t in mine if e == event and t == _expected(ctx, agent_id, ref, e, t["timeout"])]
            if not current and stale:
                problems.append(timeout_finding(event, stale[0]["timeout"], "s", ctx))
                problems[-1].path = path
            elif len(current) != 1:
                problems.append(
                    Finding(f"{len(current) or 'no'} Elydora {role} entry for {event} (expected one)", path)
                )
        if not problems:
            return []
        findings += problems
    return findings


def _expected(ctx: Context, agent_id: str, ref: Ref, event: str, timeout: int | None = None) -> dict[str, Any]:
    """The table this install writes for ``event`` (with ``timeout``, else the flag's), keeping the entry's
    interpreter."""
    seconds = ctx.timeout_seconds if timeout is None else timeout
    return make_handler(Ref(agent_id, EVENTS[event], ref.python, seconds), ctx, event)


def installed_entries(docs: Documents, ctx: Context) -> list[defaults.Found]:
    """Every table of ours in every selected file (see ``installer/entries``); Kimi's timeouts are seconds."""
    return [
        defaults.Found(path, event, ref, table, defaults.seconds(table.get("timeout"), "s"))
        for path in docs.targets
        if (doc := docs.doc(path)) is not None
        for event, ref, table in installed(doc.value, ctx)
    ]


ROLES = EVENTS
agent_argv = defaults.default_argv
HOOK_COMMAND_REFUSED = defaults.HOOK_COMMAND_ACCEPTED
extra_runtime = defaults.no_extra_runtime

NOTES = ("Restart Kimi Code sessions so they load the new hooks.",)
