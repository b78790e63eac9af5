"""The event -> groups -> handlers map most agents use, written once.

``{"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [{...handler...}]}]}}`` (grouped), or the flat
``{"hooks": {"preToolUse": [{...handler...}]}}`` of Copilot and Cursor (``grouped=False``). A provider describes
its map with a :class:`HookMap` and gets ``add``, ``remove`` and ``check`` from here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from elydora_config.records import field, record

from .context import Context
from .contract import Document, Finding
from .ownership import AUDIT, DEFAULT_SCRIPTS, GUARD, HandlerFactory, Ref, owner

if TYPE_CHECKING:
    from typing import Any

Path_ = tuple[str | int, ...]
MAX_TIMEOUT_SECONDS = 3600


@record(frozen=True)
class HookMap:
    events: Mapping[str, str]
    """Event name -> role (``guard`` or ``audit``), in the order entries are added."""
    make: HandlerFactory
    """Builds our handler for a :class:`Ref` (its ``timeout`` in the agent's unit)."""
    group: Mapping[str, Any] = field(default_factory=dict)
    """Keys of our group besides ``hooks`` (e.g. ``{"matcher": "*"}``)."""
    container: Path_ = ("hooks",)
    grouped: bool = True
    timeout_key: str = "timeout"
    unit: str = "s"
    """Timeout unit of the agent: ``s`` or ``ms``."""
    scripts: Mapping[str, str] = field(default_factory=lambda: dict(DEFAULT_SCRIPTS))
    legacy: Callable[[Mapping[str, Any], Context], Ref | None] | None = None
    keep_emptied_groups: bool = False
    """Claude keeps a user group that lost all its handlers as ``"hooks": []``; others drop it."""
    own_groups_only: bool = False
    """Grok: handlers inside groups of another shape (a matcher, extra keys) are the user's, never touched."""
    whole_container: bool = False
    """A missing container is written at once with every entry (TOML: ``[[hooks.<event>]]`` table blocks, not
    one inline table); Codex's requirements.toml."""


@record
class EditLog:
    """What an install or uninstall did to one document (feeds the install manifest)."""

    inserted: list[dict[str, Any]] = field(default_factory=list)
    created: list[list[str | int]] = field(default_factory=list)
    removed: list[dict[str, Any]] = field(default_factory=list)


@record
class FileEdit:
    """One file an operation edits: its document, the log of this operation, and what earlier installs recorded
    (handler values, and the containers they created, which are removed again when they end up empty)."""

    doc: Document
    log: EditLog = field(default_factory=EditLog)
    recorded: list[Any] = field(default_factory=list)
    created: list[list[str | int]] | None = None


def _get(doc: Document, path: Path_) -> Any:
    """The part at ``path`` (``None`` when absent or the path does not fit), decoding only that part."""
    if any(isinstance(key, int) and key < 0 for key in path):
        return None
    return doc.get(path, None)


def ours(hm: HookMap, handler: Any, ctx: Context, recorded: list[Any] | None = None) -> Ref | None:
    return owner(
        handler, ctx, hm.make, timeout_key=hm.timeout_key, recorded=recorded, scripts=hm.scripts, legacy=hm.legacy
    )


def timeout_in(ctx: Context, unit: str) -> int:
    return ctx.timeout_seconds * 1000 if unit == "ms" else ctx.timeout_seconds


def remove(edit: FileEdit, hm: HookMap, ctx: Context, agent_ids: set[str] | None = None) -> None:
    """Remove our handlers (of ``agent_ids``, or every agent) and the containers that only held them."""
    doc = edit.doc
    container = _get(doc, hm.container)
    if not isinstance(container, dict):
        return
    made = [tuple(p) for p in edit.created or []]
    for event in list(container):
        _remove_from_event(edit, hm, ctx, (*hm.container, event), agent_ids)
        groups = _get(doc, (*hm.container, event))
        if groups == [] and (not made or (*hm.container, event) in made) and container.get(event) != []:
            doc.remove((*hm.container, event))
    if _get(doc, hm.container) == {} and hm.container in made:
        doc.remove(hm.container)


def _remove_from_event(edit: FileEdit, hm: HookMap, ctx: Context, at: Path_, agent_ids: set[str] | None) -> None:
    doc = edit.doc
    groups = _get(doc, at)
    if not isinstance(groups, list):
        return
    for gi in reversed(range(len(groups))):
        if not hm.grouped:
            _remove_if_ours(edit, hm, ctx, (*at, gi), groups[gi], agent_ids)
            continue
        group = groups[gi]
        handlers = group.get("hooks") if isinstance(group, dict) else None
        if not isinstance(handlers, list) or (hm.own_groups_only and not _our_shape(hm, group)):
            continue
        removed_any = False
        for hi in reversed(range(len(handlers))):
            removed_any |= _remove_if_ours(edit, hm, ctx, (*at, gi, "hooks", hi), handlers[hi], agent_ids)
        emptied = _get(doc, (*at, gi, "hooks")) in ([], None)  # TOML drops an emptied array of tables
        if removed_any and emptied and _droppable(hm, group):
            doc.remove((*at, gi))


def _our_shape(hm: HookMap, group: dict[str, Any]) -> bool:
    return {k: v for k, v in group.items() if k != "hooks"} == dict(hm.group)


def _droppable(hm: HookMap, group: dict[str, Any]) -> bool:
    return _our_shape(hm, group) or (not hm.keep_emptied_groups and not hm.group)


def _remove_if_ours(
    edit: FileEdit, hm: HookMap, ctx: Context, at: Path_, handler: Any, agent_ids: set[str] | None
) -> bool:
    ref = ours(hm, handler, ctx, edit.recorded)
    if ref is None or (agent_ids is not None and ref.agent_id not in agent_ids):
        return False
    edit.doc.remove(at)
    edit.log.removed.append({"at": list(at), "value": handler})
    return True


def add(edit: FileEdit, hm: HookMap, ctx: Context, agent_id: str) -> None:
    """Append our handler for every event (new groups at the end, new event keys after existing ones)."""
    doc, log = edit.doc, edit.log
    entries = {}
    for event, role in hm.events.items():
        handler = hm.make(Ref(agent_id, role, ctx.python, timeout_in(ctx, hm.unit)), ctx)
        entries[event] = {**hm.group, "hooks": [handler]} if hm.grouped else handler
    if not isinstance(_get(doc, hm.container), dict):
        doc.set(hm.container, {event: [entry] for event, entry in entries.items()} if hm.whole_container else {})
        log.created.append(list(hm.container))
        if hm.whole_container:
            for event, entry in entries.items():
                log.created.append([*hm.container, event])
                log.inserted.append({"at": [*hm.container, event, 0], "value": entry})
            return
    for event, entry in entries.items():
        at = (*hm.container, event)
        existing = _get(doc, at)
        if isinstance(existing, list):
            doc.insert(at, len(existing), entry)
            log.inserted.append({"at": [*at, len(existing)], "value": entry})
        else:
            doc.set(at, [entry])
            log.created.append(list(at))
            log.inserted.append({"at": [*at, 0], "value": entry})


def check(doc: Document | None, hm: HookMap, ctx: Context, agent_id: str) -> list[Finding]:
    """Exactly one current-form handler of ``agent_id`` per event, each in a group of our shape."""
    findings: list[Finding] = []
    for event, role in hm.events.items():
        groups = _get(doc, (*hm.container, event)) if doc is not None else None
        handlers = _handlers_of(hm, groups if isinstance(groups, list) else [])
        found = [h for h in handlers if _is_current(hm, ctx, agent_id, role, h, timeout_in(ctx, hm.unit))]
        if len(found) == 1:
            continue
        stale = [h for h in handlers if _is_current(hm, ctx, agent_id, role, h, h.get(hm.timeout_key))]
        if not found and stale:
            findings.append(timeout_finding(event, stale[0].get(hm.timeout_key), hm.unit, ctx))
            continue
        what = "no" if not found else f"{len(found)}"
        findings.append(Finding(f"{what} Elydora {role} handler for {event} (expected exactly one)"))
    return findings


def _handlers_of(hm: HookMap, groups: list[Any]) -> list[dict[str, Any]]:
    """The handlers of an event's entries, only from groups of our shape."""
    found: list[dict[str, Any]] = []
    for group in groups:
        handlers = [group] if not hm.grouped else (group.get("hooks") if isinstance(group, dict) else None)
        if not isinstance(handlers, list):
            continue
        if hm.grouped and not _our_shape(hm, group):
            continue
        found += [h for h in handlers if isinstance(h, dict)]
    return found


def _is_current(hm: HookMap, ctx: Context, agent_id: str, role: str, handler: dict[str, Any], timeout: Any) -> bool:
    """``handler`` is ours for ``agent_id`` and exactly what this install writes for ``role`` with ``timeout``
    (keeping the interpreter the entry names)."""
    ref = ours(hm, handler, ctx)
    return ref is not None and ref.agent_id == agent_id and handler == hm.make(
        Ref(agent_id, role, ref.python, timeout), ctx
    )


def seconds(value: Any, unit: str) -> int | float:
    """A timeout in the agent's unit as seconds (a whole number when it is one)."""
    amount = value / 1000 if unit == "ms" else value
    return int(amount) if float(amount).is_integer() else float(amount)


def timeout_finding(event: str, installed: Any, unit: str, ctx: Context) -> Finding:
    """The entry of ``event`` is current but for its timeout: say so and how to match it."""
    if isinstance(installed, bool) or not isinstance(installed, (int, float)):
        return Finding(f"{event}: the Elydora handler's timeout is {installed!r}, expected {ctx.timeout_seconds} s")
    value = seconds(installed, unit)
    flag = isinstance(value, int) and 1 <= value <= MAX_TIMEOUT_SECONDS
    advice = f"pass --hook-timeout-seconds {value} or reinstall" if flag else "reinstall"
    return Finding(f"{event}: installed with a timeout of {value} s, expected {ctx.timeout_seconds} s; {advice}")


__all__ = [
    "AUDIT", "GUARD", "EditLog", "FileEdit", "HookMap", "add", "check", "remove", "seconds", "timeout_finding",
    "timeout_in",
]  # fmt: skip
