"""The hook entries of ours an agent's config holds, read back, and how the agent runs each one.

``elydora verify`` (and the tests) run what is installed exactly as the agent would. By default an agent's
entries are the handlers of its :class:`~.hookmap.HookMap` in its first target file, run as the exec form
(``command`` + ``args``) when the handler has ``args``, else as ``/bin/sh -c <command>``. A provider module
overrides what differs:

* ``installed_entries(docs, ctx) -> [(file, event, ref, handler)]`` when its entries are not a hook map
  (Kimi's ``[[hooks]]`` tables, Cline's hook files);
* ``hook_maps(docs) -> [(file, HookMap)]`` when the agent loads its map from another file (Droid's active
  source);
* ``agent_argv(handler) -> argv`` when the agent runs a handler another way (Copilot's ``bash`` field, Qwen's
  ``shell``, Cline's ``node`` file).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from ..plug import hookmap
from ..plug.context import Context
from ..plug.documents import Documents
from ..plug.hookfile import handlers
from ..plug.hookmap import HookMap
from ..plug.ownership import Ref

Found = tuple[Path, str, Ref, Any]
"""``(file, event, ref, handler)`` of one entry of ours."""


@dataclass(frozen=True)
class Entry:
    source: Path
    """The config file (or hook file) the entry is in."""
    event: str
    role: str
    """``guard`` or ``audit``, from the event (the catalog's pre-tool event guards)."""
    ref: Ref
    handler: Any
    argv: list[str]
    """What the agent executes for it."""
    timeout: float | None
    """The agent's timeout for it in seconds (``None``: the agent sets none)."""


def default_argv(handler: Any) -> list[str]:
    """The exec form when the handler has ``args`` (Claude Code), else the POSIX shell."""
    if isinstance(handler.get("args"), list):
        return [handler["command"], *handler["args"]]
    return ["/bin/sh", "-c", handler["command"]]


def _hook_maps(module: ModuleType, docs: Documents) -> list[tuple[Path, HookMap]]:
    own: Callable[[Documents], list[tuple[Path, HookMap]]] | None = getattr(module, "hook_maps", None)
    return own(docs) if own is not None else [(next(iter(docs.targets)), module.HOOKS)]


def _in_maps(module: ModuleType, docs: Documents, ctx: Context) -> list[tuple[Found, float | None]]:
    found: list[tuple[Found, float | None]] = []
    for path, hm in _hook_maps(module, docs):
        doc = docs.doc(path)
        for _, event, handler in handlers(doc.value if doc is not None else None, hm):
            ref = hookmap.ours(hm, handler, ctx, docs.recorded)
            if ref is not None and event in hm.events:  # a map may serve some events only (Droid's per event)
                found.append(((path, event, ref, handler), _seconds(handler.get(hm.timeout_key), hm.unit)))
    return found


def _seconds(value: Any, unit: str) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(hookmap.seconds(value, unit))


def installed(module: ModuleType, docs: Documents, ctx: Context, agent_id: str | None = None) -> list[Entry]:
    """Every entry of ours (of ``agent_id`` only, when given) with the argv and timeout the agent uses."""
    own: Callable[[Documents, Context], list[Found]] | None = getattr(module, "installed_entries", None)
    if own is not None:
        found = [(f, _seconds(f[3].get("timeout"), "s") if isinstance(f[3], dict) else None) for f in own(docs, ctx)]
    else:
        found = _in_maps(module, docs, ctx)
    roles = module.HOOKS.events if hasattr(module, "HOOKS") else module.EVENTS
    argv_of: Callable[[Any], list[str]] = getattr(module, "agent_argv", default_argv)
    return [
        Entry(path, event, roles[event], ref, handler, argv_of(handler), timeout)
        for (path, event, ref, handler), timeout in found
        if event in roles and (agent_id is None or ref.agent_id == agent_id)
    ]
