"""The "tables" layout of the hook map: one array of tables, each a handler carrying its own event.

``hooks = [{event = "PreToolUse", command = "...", timeout = 10}, ...]`` (in TOML, ``[[hooks]]`` tables; Kimi Code).
It is the flat hook map with the event moved from the map's key into the handler, so a provider describes it
with a :class:`HookTables` (its events, its handler, the check of the file's own schema) and gets ``add``,
``remove``, ``check`` and the entry reader from here. A table is ours when its keys are exactly the event, the
command and the timeout, and its command runs our runtime (or our supervisor) in the role of its event.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from elydora_config.records import record

from .context import Context
from .contract import Finding
from .defaults import Found, seconds
from .documents import Documents
from .hookmap import timeout_finding, timeout_in
from .ownership import HandlerFactory, Ref, refs_in, supervisor_refs

if TYPE_CHECKING:
    from typing import Any


@record(frozen=True)
class HookTables:
    events: Mapping[str, str]
    """Event name -> role (``guard`` or ``audit``), in the order tables are appended."""
    make: HandlerFactory
    """Builds the handler's keys besides the event for a :class:`Ref` (its ``timeout`` in the agent's unit)."""
    validate: Callable[[Path, Any, Context], list[Any]]
    """Checks the whole file against the agent's schema (raising ``MalformedConfigError``); returns the tables."""
    key: str = "hooks"
    """The top-level key of the array."""
    event_key: str = "event"
    command_key: str = "command"
    timeout_key: str = "timeout"
    unit: str = "s"
    """Timeout unit of the agent: ``s`` or ``ms``."""


def table_for(ht: HookTables, ref: Ref, ctx: Context, event: str) -> dict[str, Any]:
    """The table this install writes for ``event``: the event first, then the handler."""
    return {ht.event_key: event, **ht.make(ref, ctx)}


def ours(ht: HookTables, table: Any, ctx: Context) -> Ref | None:
    """Our table: keys exactly event/command/timeout, a runtime command of ours (in any form an installer
    wrote) or exactly our supervisor command, the event of its role."""
    if not isinstance(table, dict) or set(table) != {ht.event_key, ht.command_key, ht.timeout_key}:
        return None
    timeout = table[ht.timeout_key]
    if not isinstance(timeout, int):
        return None
    role = ht.events.get(table[ht.event_key])
    command = {"command": table[ht.command_key]}
    for ref in refs_in(command, ctx):
        if ref.role == role:
            return Ref(ref.agent_id, ref.role, ref.python, timeout)
    for ref, scoped in supervisor_refs(command, ctx):
        timed = Ref(ref.agent_id, ref.role, ref.python, timeout)
        if ref.role == role and table == table_for(ht, timed, scoped, table[ht.event_key]):
            return timed
    return None


def installed(ht: HookTables, value: Any, ctx: Context) -> list[tuple[str, Ref, dict[str, Any]]]:
    """(event, owner, table) of every table of ours in a decoded file."""
    tables = value.get(ht.key, []) if isinstance(value, dict) else []
    return [(t[ht.event_key], ref, t) for t in tables if (ref := ours(ht, t, ctx))]


def remove(docs: Documents, path: Path, ht: HookTables, ctx: Context, agent_ids: set[str] | None) -> None:
    """Remove our tables (of ``agent_ids``, or every agent), the array when we created it and it is now empty,
    and the file when we created it and it is now empty."""
    doc = docs.doc(path)
    if doc is None:
        return
    tables = ht.validate(path, doc.value, ctx)
    log = docs.log(path)
    for index in reversed(range(len(tables))):
        ref = ours(ht, tables[index], ctx)
        if ref and (agent_ids is None or ref.agent_id in agent_ids):
            doc.remove((ht.key, index))
            log.removed.append({"at": [ht.key, index], "value": tables[index]})
    if tables and doc.get((ht.key,), None) == [] and [ht.key] in docs.created.get(path, [[ht.key]]):
        doc.remove((ht.key,))
    if docs.was_created_by_us(path) and doc.value == {}:
        docs.delete(path)


def add(docs: Documents, ht: HookTables, ctx: Context, agent_id: str) -> None:
    """In every target: drop earlier tables of ours, then append one table per event at the end."""
    for path in docs.targets:
        docs.ensure(path)
        remove(docs, path, ht, ctx, None)
        doc = docs.ensure(path)
        log = docs.log(path)
        if not doc.has((ht.key,)):
            log.created.append([ht.key])
        for event, role in ht.events.items():
            table = table_for(ht, Ref(agent_id, role, ctx.python, timeout_in(ctx, ht.unit)), ctx, event)
            log.inserted.append({"at": [ht.key, len(doc.get((ht.key,), []))], "value": table})
            doc.append_table((ht.key,), table)  # type: ignore[attr-defined]


def uninstall(docs: Documents, ht: HookTables, ctx: Context, agent_ids: set[str] | None) -> None:
    for path in docs.targets:
        remove(docs, path, ht, ctx, agent_ids)


def check(docs: Documents, ht: HookTables, ctx: Context, agent_id: str) -> list[Finding]:
    """Healthy when any selected file holds exactly one current table per event for the agent."""
    findings: list[Finding] = []
    for path in docs.targets:
        doc = docs.doc(path)
        value = doc.value if doc is not None else {}
        ht.validate(path, value, ctx)
        mine = [(e, ref, t) for e, ref, t in installed(ht, value, ctx) if ref.agent_id == agent_id]
        problems = []
        for event, role in ht.events.items():
            now = timeout_in(ctx, ht.unit)
            current = [t for e, ref, t in mine if e == event and t == _expected(ht, ctx, ref, event, now)]
            stale = [t for e, ref, t in mine if e == event and t == _expected(ht, ctx, ref, event, t[ht.timeout_key])]
            if not current and stale:
                problems.append(timeout_finding(event, stale[0][ht.timeout_key], ht.unit, ctx))
                problems[-1].path = path
            elif len(current) != 1:
                problems.append(
                    Finding(f"{len(current) or 'no'} Elydora {role} entry for {event} (expected one)", path)
                )
        if not problems:
            return []
        findings += problems
    return findings


def installed_entries(docs: Documents, ht: HookTables, ctx: Context) -> list[Found]:
    """Every table of ours in every selected file (see ``installer/entries``)."""
    return [
        Found(path, event, ref, table, seconds(table.get(ht.timeout_key), ht.unit))
        for path in docs.targets
        if (doc := docs.doc(path)) is not None
        for event, ref, table in installed(ht, doc.value, ctx)
    ]


def _expected(ht: HookTables, ctx: Context, ref: Ref, event: str, timeout: Any) -> dict[str, Any]:
    """The table this install writes for ``event`` with ``timeout``, keeping the entry's agent and interpreter."""
    return table_for(ht, Ref(ref.agent_id, ht.events[event], ref.python, timeout), ctx, event)


__all__ = ["HookTables", "add", "check", "installed", "installed_entries", "ours", "remove", "table_for", "uninstall"]
