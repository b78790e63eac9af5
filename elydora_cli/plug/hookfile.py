"""A strict-JSON file that holds an agent's hooks and little else, written once for the agents that have one.

Copilot and Cursor share the versioned flat hook file ``{"version": 1, "hooks": {"preToolUse": [handler]}}``;
Grok loads every ``*.json`` of its hook folder (``{"hooks": {"PreToolUse": [{"hooks": [handler]}]}}``). A
provider describes its file as a :class:`HookFile` (the hook map, the schema, the keys the agent requires such
as ``version``, its switches and extra rules) and takes ``install``, ``uninstall`` and ``check`` from
:func:`plug`.

The provider's first target is the agent's file; any further target is a legacy location an older Elydora
installer wrote to: install moves our entries out of it, uninstall removes them, status reports leftovers.

Removing our entries may leave a file with nothing of the user's in it (only the required keys and an empty
hook map). :func:`prune` deletes it then, when it is ours to delete: an install of ours created it (manifest),
or the entries just removed came from an older installer that recorded nothing (that installer created it).
A user's file that only ends up empty after an install and uninstall keeps its original bytes.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from elydora_config.errors import MalformedConfigError
from elydora_config.records import field, record

from . import hookmap
from .common import check_hooks, refuse_if, validated
from .context import Context
from .contract import Finding, Format, Target
from .documents import Documents
from .hookmap import HookMap
from .layers import OFF
from .ownership import Ref
from .schema import Check, MapSchema, require_type

if TYPE_CHECKING:
    from typing import Any

Rules = Callable[[Path, dict[str, "Any"], Context], None]
"""Agent rules beyond the schema; raise :class:`MalformedConfigError` naming the place."""
Disabled = Callable[[Documents, Context, Path, dict[str, "Any"]], str | None]
"""Why the agent would not run the hooks of the file (``None``: it would)."""


@record(frozen=True)
class HookFile:
    """One agent's hook file.

    ``stamp``: top-level keys the agent requires with exactly these values (``{"version": 1}``); a file we
    create starts with them, an older Elydora file that lacks them gets them as its last keys.
    ``unstamped_legacy``: a file without the stamp is accepted only when it holds entries of an older Elydora
    install (Cursor). ``switches``: typed top-level settings (Copilot's ``disableAllHooks``).
    """

    provider: str
    hooks: HookMap
    schema: MapSchema
    stamp: Mapping[str, Any] = field(default_factory=dict)
    unstamped_legacy: bool = False
    switches: Mapping[str, Check] = field(default_factory=dict)
    rules: Rules | None = None
    disabled: Disabled | None = None

    def target(self, path: Path) -> Target:
        text = json.dumps(dict(self.stamp), indent=2) if self.stamp else "{\n}"  # a multi-line start: pretty edits
        return Target(path, Format.JSON, new_text=text + "\n")


def handlers(value: Any, hm: HookMap) -> Iterator[tuple[str, str, Any]]:
    """``(where, event, handler)`` for every handler of the map, grouped or flat."""
    container: Any = value
    for key in hm.container:
        container = container.get(key) if isinstance(container, dict) else None
    where = ".".join(str(k) for k in hm.container)
    for event, entries in (container if isinstance(container, dict) else {}).items():
        for index, entry in enumerate(entries if isinstance(entries, list) else []):
            if not hm.grouped:
                yield f"{where}.{event}[{index}]", event, entry
                continue
            inner = entry.get("hooks") if isinstance(entry, dict) else None
            for position, handler in enumerate(inner if isinstance(inner, list) else []):
                yield f"{where}.{event}[{index}].hooks[{position}]", event, handler


def _owned(value: Any, hf: HookFile, ctx: Context, recorded: list[Any]) -> list[Ref]:
    return [ref for _, _, h in handlers(value, hf.hooks) if (ref := hookmap.ours(hf.hooks, h, ctx, recorded))]


def validate(docs: Documents, path: Path, hf: HookFile, ctx: Context) -> dict[str, Any] | None:
    """The whole file checked (``None`` when absent): schema, switches, stamp, agent rules."""
    value: dict[str, Any] | None = validated(docs, path, hf.schema)
    if value is None:
        return None
    for key, check in hf.switches.items():
        require_type(path, value, key, check)
    for key, expected in hf.stamp.items():
        if key not in value:
            if hf.unstamped_legacy and _owned(value, hf, ctx, docs.recorded):
                continue
            required = f"{json.dumps(key)}: {json.dumps(expected)}"
            raise MalformedConfigError(path, f"has no {required}; the agent requires it")
        if type(value[key]) is not type(expected) or value[key] != expected:
            raise MalformedConfigError(path, f"{key} must be {json.dumps(expected)}, not {json.dumps(value[key])}")
    if hf.rules is not None:
        hf.rules(path, value, ctx)
    return value


def _validate_all(docs: Documents, hf: HookFile, ctx: Context) -> list[tuple[Path, dict[str, Any] | None]]:
    return [(path, validate(docs, path, hf, ctx)) for path in docs.targets]


def _stamp(docs: Documents, path: Path, hf: HookFile) -> None:
    doc = docs.doc(path)
    for key, expected in hf.stamp.items():
        if doc is not None and not doc.has((key,)):
            doc.set((key,), expected)


def bare(value: Any, hm: HookMap, keys: Mapping[str, Any]) -> bool:
    """Nothing of the user's remains: no top-level key besides ``keys`` and the map, and no hook entry."""
    if not isinstance(value, dict) or not set(value) <= {*keys, hm.container[0]}:
        return False
    container: Any = value
    for key in hm.container:
        container = container.get(key, {}) if isinstance(container, dict) else None
    return isinstance(container, dict) and all(entries == [] for entries in container.values())


def prune(
    docs: Documents, path: Path, hf: HookFile, ctx: Context, agent_ids: set[str] | None, *, adopt: bool = False
) -> bool:
    """Remove our entries (of ``agent_ids``, or every agent); True when something was removed and the file stays.

    A file left bare is deleted when it is ours (see the module docstring); with ``adopt`` (install, which
    adds our entries next) it is kept and recorded as created by us instead, so uninstall deletes it.
    """
    doc = docs.doc(path)
    if doc is None:
        return False
    log = docs.log(path)
    already = len(log.removed)
    hookmap.remove(docs.edit(path, doc), hf.hooks, ctx, agent_ids)
    removed = log.removed[already:]
    if adopt and docs.was_created_by_us(path):  # already ours to delete later: nothing to decide
        return bool(removed)
    unrecorded = any(item["value"] not in docs.recorded for item in removed)
    if (docs.was_created_by_us(path) or unrecorded) and bare(doc.value, hf.hooks, hf.stamp):
        if adopt:
            docs.created_files.add(path)
            return bool(removed)
        docs.delete(path)
        return False
    return bool(removed)


def install(docs: Documents, ctx: Context, hf: HookFile, agent_id: str) -> None:
    files = _validate_all(docs, hf, ctx)
    main, value = files[0]
    reason = hf.disabled(docs, ctx, main, value or {}) if hf.disabled else None
    refuse_if(reason is not None, main, f"{reason}; enable hooks to install")
    for path, _ in files[1:]:
        if prune(docs, path, hf, ctx, None):
            _stamp(docs, path, hf)
    doc = docs.ensure(main)
    prune(docs, main, hf, ctx, None, adopt=True)
    hookmap.add(docs.edit(main, doc), hf.hooks, ctx, agent_id)
    _stamp(docs, main, hf)


def uninstall(docs: Documents, ctx: Context, hf: HookFile, agent_ids: set[str] | None) -> None:
    for path, _ in _validate_all(docs, hf, ctx):
        if prune(docs, path, hf, ctx, agent_ids):
            _stamp(docs, path, hf)


def check(docs: Documents, ctx: Context, hf: HookFile, agent_id: str) -> list[Finding]:
    files = _validate_all(docs, hf, ctx)
    main, value = files[0]
    reason = hf.disabled(docs, ctx, main, value or {}) if hf.disabled else None
    findings = [Finding(reason, main, severity=OFF)] if reason else []
    findings += check_hooks(docs, main, hf.hooks, ctx, agent_id)
    for path, old in files[1:]:
        if any(ref.agent_id == agent_id for ref in _owned(old, hf, ctx, docs.recorded)):
            findings.append(Finding("holds Elydora entries of an older install; run install to move them", path))
    return findings


Install = Callable[[Documents, Context, str], None]
Uninstall = Callable[[Documents, Context, set[str] | None], None]
Checker = Callable[[Documents, Context, str], list[Finding]]


def plug(hf: HookFile) -> tuple[Install, Uninstall, Checker]:
    """The provider functions ``install``, ``uninstall`` and ``check`` of an agent whose hooks live in ``hf``."""

    def install_(docs: Documents, ctx: Context, agent_id: str) -> None:
        install(docs, ctx, hf, agent_id)

    def uninstall_(docs: Documents, ctx: Context, agent_ids: set[str] | None) -> None:
        uninstall(docs, ctx, hf, agent_ids)

    def check_(docs: Documents, ctx: Context, agent_id: str) -> list[Finding]:
        return check(docs, ctx, hf, agent_id)

    return install_, uninstall_, check_
