"""The optional names of the :class:`~.contract.Provider` contract, for the agents that need nothing special.

An agent module binds each of them explicitly (``extra_runtime = defaults.no_extra_runtime``), so that the
module lists every name of the contract and the installer reads them without defaults of its own.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from elydora_config.records import record

from . import hookmap, runners
from .context import Context
from .documents import Documents
from .hookfile import handlers
from .hookmap import HookMap
from .layers import EnvSwitch
from .ownership import Ref

if TYPE_CHECKING:
    from typing import Any

NOTES: tuple[str, ...] = ()
NO_ENV_SWITCHES: tuple[EnvSwitch, ...] = ()
"""``ENV_SWITCHES`` of an agent that reads no variable switching its hooks off."""
HOOK_COMMAND_ACCEPTED: str | None = None
"""``HOOK_COMMAND_REFUSED`` of every agent whose entries may run a ``--hook-command`` supervisor."""


@record(frozen=True)
class Found:
    """One entry of ours in an agent's file (a record: a ``NamedTuple`` class compiles each field's annotation
    when the module is imported)."""

    source: Path
    event: str
    ref: Ref
    handler: Any
    timeout: float | None
    """The agent's timeout for it in seconds (``None``: the agent sets none)."""


HookMaps = Callable[[Documents], list[tuple[Path, HookMap]]]
EntryReader = Callable[[Documents, Context], list[Found]]


def no_extra_runtime(ctx: Context, agent_id: str) -> dict[str, tuple[bytes, int]]:
    """The agent runs the generated runtime directly and needs no other file."""
    return {}


def default_argv(handler: Any, ctx: Context) -> list[str]:
    """The exec form when the handler has ``args`` (Claude Code, no shell on any system), else the agent's
    shell running ``command`` (:func:`.runners.shell_argv`)."""
    if isinstance(handler.get("args"), list):
        return [handler["command"], *handler["args"]]
    return runners.shell_argv(handler["command"], ctx)


def seconds(value: Any, unit: str) -> float | None:
    """A timeout as the agent reads it, in seconds (``None``: not a number, the agent sets none)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(hookmap.seconds(value, unit))


def first_target(hooks: HookMap) -> HookMaps:
    """The agent keeps ``hooks`` in its first target file."""

    def maps(docs: Documents) -> list[tuple[Path, HookMap]]:
        return [(next(iter(docs.targets)), hooks)]

    return maps


def entries_in(maps: HookMaps) -> EntryReader:
    """``installed_entries`` of an agent whose entries are the handlers of hook maps (``maps`` says which)."""

    def installed_entries(docs: Documents, ctx: Context) -> list[Found]:
        found: list[Found] = []
        for path, hm in maps(docs):
            doc = docs.doc(path)
            for _, event, handler in handlers(doc.value if doc is not None else None, hm):
                ref = hookmap.ours(hm, handler, ctx, docs.recorded)
                if ref is not None and event in hm.events:  # a map may serve some events only (Droid's per event)
                    found.append(Found(path, event, ref, handler, seconds(handler.get(hm.timeout_key), hm.unit)))
        return found

    return installed_entries


ExtraRuntime = Callable[[Context, str], dict[str, tuple[bytes, int]]]


AgentArgv = Callable[["Any", Context], list[str]]


def hook_map_agent(hooks: HookMap) -> tuple[ExtraRuntime, EntryReader, AgentArgv]:
    """``extra_runtime``, ``installed_entries`` and ``agent_argv`` of an agent that keeps ``hooks`` in its first
    target file and runs the generated runtime directly (the most common shape)."""
    return no_extra_runtime, entries_in(first_target(hooks)), default_argv
