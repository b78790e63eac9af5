"""A standalone hook file of Kiro's versioned trigger-list form, wholly ours and owned by exact content.

``{"version": "v1", "hooks": [{"name", "trigger", "action": {"type": "command", "command"}, "timeout",
"enabled"}]}``: the agent loads every ``*.json`` of its hook folder, so our hooks live in a file of their own
that nothing else writes. The file is ours exactly when it equals, key order and types included, what an
install writes for the agent id, interpreter and timeout its own commands name. Install writes it (replacing
our own older file, whatever agent id or interpreter it named) and refuses a file of the same name holding
anything else; uninstall deletes it when it is ours, and leaves a file the user edited in place for status to
report. A provider describes its file as a :class:`TriggerFile` and takes its functions from :func:`plug`.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from elydora_config.errors import MalformedConfigError
from elydora_config.records import record

from . import runners
from .cmdforms import posix_command, powershell_call
from .context import Context
from .contract import Finding, Format, Sources, Target
from .defaults import AgentArgv, ExtraRuntime, Found, no_extra_runtime, seconds
from .documents import Documents
from .hookmap import timeout_finding, timeout_in
from .ownership import Ref, owner, runtime_argv, runtime_context

if TYPE_CHECKING:
    from typing import Any

VERSION = "v1"
ENABLED_KEY = "enabled"


def make_action(ref: Ref, ctx: Context) -> dict[str, Any]:
    """The ``action`` of our entries: the runtime command in the shell form of the platform."""
    argv = runtime_argv(ref, ctx)
    return {"type": "command", "command": powershell_call(argv) if ctx.windows else posix_command(argv)}


@record(frozen=True)
class TriggerFile:
    """One agent's standalone trigger-list file: its triggers (trigger name -> role) in the order written."""

    provider: str
    events: Mapping[str, str]
    name: str
    """The file's name in the agent's hook folder."""
    neighbour: str
    """The other Kiro provider's file in the same folder: a read-only source (status notes it when present)."""
    unit: str = "s"
    timeout_key = "timeout"
    """Of each entry (our handler, the ``action``, carries none)."""

    def make(self, ref: Ref, ctx: Context) -> dict[str, Any]:
        """Our handler for ``ref``: the entry's ``action``."""
        return make_action(ref, ctx)

    def target(self, path: Path) -> Target:
        return Target(path, Format.JSON, new_text="{\n}\n")

    def sources(self, ctx: Context) -> Sources:
        folder = ctx.home / ".kiro" / "hooks"
        return Sources([self.target(folder / self.name)], depends=[folder / self.neighbour])

    def entry(self, trigger: str, ref: Ref, ctx: Context) -> dict[str, Any]:
        action = make_action(ref, ctx)
        return {"name": f"elydora-{ref.role}", "trigger": trigger, "action": action, "timeout": ref.timeout,
                ENABLED_KEY: True}  # fmt: skip

    def value(self, ctx: Context, agent_id: str, python: str, timeout: Any) -> dict[str, Any]:
        """The whole file an install writes."""
        hooks = [self.entry(t, Ref(agent_id, role, python, timeout), ctx) for t, role in self.events.items()]
        return {"version": VERSION, "hooks": hooks}


def _same(a: Any, b: Any) -> bool:
    """Equal data with equal key order and types (``1 == True`` is not the same file)."""
    return json.dumps(a) == json.dumps(b)


def _contexts(ctx: Context) -> list[Context]:
    """Every context our file may have been written in: the runtime's, and each supervisor's (current, recorded)."""
    commands = dict.fromkeys(c for c in (ctx.hook_command, *ctx.known_hook_commands) if c)
    return [runtime_context(ctx), *(ctx.with_options(hook_command=c) for c in commands if ctx.provider)]


def owner_of(value: Any, tf: TriggerFile, ctx: Context) -> Ref | None:
    """The guard :class:`Ref` the file was written for when it is exactly ours, else ``None``."""
    hooks = value.get("hooks") if isinstance(value, dict) else None
    first = hooks[0] if isinstance(hooks, list) and hooks and isinstance(hooks[0], dict) else None
    action = first.get("action") if first is not None else None
    ref = owner(action, ctx, make_action) if isinstance(action, dict) else None
    if ref is None or first is None:
        return None
    timed = Ref(ref.agent_id, ref.role, ref.python, first.get("timeout"))
    written = (tf.value(c, ref.agent_id, ref.python, timed.timeout) for c in _contexts(ctx))
    return timed if any(_same(value, candidate) for candidate in written) else None


def _path(docs: Documents) -> Path:
    return next(iter(docs.targets))


def _value(docs: Documents, path: Path) -> Any:
    """The file's data (``None``: absent); the JSON parser already refused a top level other than an object."""
    doc = docs.doc(path)
    return doc.value if doc is not None else None


def _foreign(path: Path) -> str:
    return (f"holds content Elydora did not write; move your own hooks to another file of {path.parent.name}/ "
            "(the agent loads every *.json there) and run the command again")  # fmt: skip


def install(tf: TriggerFile, docs: Documents, ctx: Context, agent_id: str) -> None:
    path = _path(docs)
    value = _value(docs, path)
    if value is not None and owner_of(value, tf, ctx) is None:
        raise MalformedConfigError(path, _foreign(path))
    doc = docs.ensure(path)  # the empty start, or our own file: its keys are exactly ours
    wanted = tf.value(ctx, agent_id, ctx.python, timeout_in(ctx, tf.unit))
    for key, part in wanted.items():
        doc.set((key,), part)
    docs.log(path).inserted.append({"at": ["hooks"], "value": wanted["hooks"]})


def uninstall(tf: TriggerFile, docs: Documents, ctx: Context, agent_ids: set[str] | None) -> None:
    path = _path(docs)
    ref = owner_of(_value(docs, path), tf, ctx)
    if ref is not None and (agent_ids is None or ref.agent_id in agent_ids):
        docs.delete(path)


SHARED_FOLDER = (
    "is another Elydora hook file in the same folder: Kiro CLI loads every *.json there and runs both files, so"
    " each of its tool calls is checked and recorded twice (uninstall the Kiro provider you do not use)"
)


def neighbours(docs: Documents) -> list[Finding]:
    """A note for each read-only neighbour (the other Kiro provider's file) that exists."""
    return [Finding(SHARED_FOLDER, path, severity="note") for path, text in docs.depends.items() if text is not None]


def check(tf: TriggerFile, docs: Documents, ctx: Context, agent_id: str) -> list[Finding]:
    return _check(docs, ctx, tf, agent_id) + neighbours(docs)


def _check(docs: Documents, ctx: Context, tf: TriggerFile, agent_id: str) -> list[Finding]:
    path = _path(docs)
    value = _value(docs, path)
    if value is None:
        return [Finding("is missing: the agent runs no Elydora hook", path)]
    ref = owner_of(value, tf, ctx)
    if ref is None:
        return [Finding(_foreign(path), path)]
    if ref.agent_id != agent_id:
        return [Finding(f"runs the hooks of agent {ref.agent_id!r}, not {agent_id!r}; run install", path)]
    expected = timeout_in(ctx, tf.unit)
    if ref.timeout != expected or type(ref.timeout) is not type(expected):
        finding = timeout_finding(next(iter(tf.events)), ref.timeout, tf.unit, ctx)
        finding.path = path
        return [finding]
    return []


def installed_entries(tf: TriggerFile, docs: Documents, ctx: Context) -> list[Found]:
    path = _path(docs)
    value = _value(docs, path)
    ref = owner_of(value, tf, ctx)
    if ref is None:
        return []
    found = []
    for entry in value["hooks"]:
        role = tf.events[entry["trigger"]]
        action = entry["action"]
        found.append(Found(path, entry["trigger"], Ref(ref.agent_id, role, ref.python, entry["timeout"]), action,
                           seconds(entry["timeout"], tf.unit)))  # fmt: skip
    return found


def agent_argv(action: Any, ctx: Context) -> list[str]:
    """Kiro runs a command action through the shell (on Windows, PowerShell for the call-operator form)."""
    return runners.shell_argv(action["command"], ctx)


Install = Callable[[Documents, Context, str], None]
Uninstall = Callable[[Documents, Context, set[str] | None], None]
Checker = Callable[[Documents, Context, str], list[Finding]]
Entries = Callable[[Documents, Context], list[Found]]


Bound = tuple[
    Callable[[Context], Sources], Install, Uninstall, Checker, Entries, ExtraRuntime, AgentArgv
]
"""The provider contract's functions, in the order an agent module unpacks them: ``sources``, ``install``,
``uninstall``, ``check``, ``installed_entries``, ``extra_runtime``, ``agent_argv`` (a plain tuple: a
``NamedTuple`` class costs a compile of each field's annotation when the module is imported)."""


def plug(tf: TriggerFile) -> Bound:
    """Every function of the provider contract for an agent whose hooks live in ``tf``."""
    bind = functools.partial
    return (
        tf.sources, bind(install, tf), bind(uninstall, tf), bind(check, tf), bind(installed_entries, tf),
        no_extra_runtime, agent_argv,
    )  # fmt: skip
