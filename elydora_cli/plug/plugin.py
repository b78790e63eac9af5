"""In-process plugins of the OpenCode family (OpenCode, Kilo Code): one generated ES module per agent.

The agent loads every ``{plugin,plugins}/*.{ts,js}`` file of its global config folder in its own process and
calls each export with the plugin input; the returned ``tool.execute.before`` hook blocks a tool call by
throwing, ``tool.execute.after`` sees its result. Our module (``runtime/templates/agent_plugin.mjs``, rendered
into ``<config>/plugins/elydora-audit.js``) runs the guard as a bounded child process and throws with its
reason on exit 2; on our own failures the catalog's ``guard.failure_mode`` decides (closed: throw, open:
allow). The after hook hands the native input and output to the audit hook as one JSON line, without waiting.

Cross-loading: Kilo (an OpenCode fork) also loads OpenCode's project plugin folders. Each module knows the
agent it was written for (``HOST``) and returns no hooks in a process that another agent of the family runs
(each agent puts its own PID in its variable: OpenCode ``OPENCODE_PID``, Kilo ``KILO_PID``); and only the
first Elydora module loaded in a process registers hooks (a ``globalThis`` claim). One tool call is recorded
once on a machine with both agents.

Ownership is exact content: line 2 carries our marker (agent id and interpreter); a file at our path is ours
only when it equals what that marker renders; without the marker it belongs to someone else and stays.

The Pi coding agent loads extensions the same way (``extensions/*.{ts,js}`` of its agent folder, in its own
process) with another API: a default export called with ``pi``, whose ``tool_call`` handler blocks by returning
``{block, reason}`` and whose ``tool_result`` handler sees every call that ran. Its module (:data:`PI_FORM`) is
the same template with the export section (from :data:`EXPORT_CUT` on) replaced by ``pi_extension.mjs``: the
guard child, the fail mode and the audit hand-off are one code for every agent that loads us in-process.
"""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from elydora_config.errors import ConfigError, MalformedConfigError
from elydora_config.records import record

from .. import catalog, identity, packagedata
from ..runtime.templateparams import JAVASCRIPT_TRAIL, cut_javascript, joined
from . import defaults, markerline
from .common import RefusedError, catalog_events, module_path_problem, refuse_if
from .context import RUNTIME_FLAGS, Context
from .contract import Finding, Format, Sources, Target
from .documents import Documents
from .ownership import AUDIT, GUARD, Ref, script_path

if TYPE_CHECKING:
    from typing import Any

TEMPLATE = "agent_plugin.mjs"
HOST_TEMPLATE = "plugin_host.mjs"
"""The stub of the plugin API that runs an installed module under node the way the agent does (verify)."""
FOLDER = "plugins"
FILE_NAME = "elydora-audit.js"
"""``.js``, not ``.mjs``: the agents' loaders glob ``{plugin,plugins}/*.{ts,js}`` only (Pi: ``*.{ts,js}``)."""
EXPORT_CUT = "export const ElydoraPlugin"
"""Where the export section of :data:`TEMPLATE` starts (a form with its own export replaces it from here on)."""
MARKER = "// @elydora-plugin "
VERSION = 1
MAX_BYTES = 256 * 1024
GUARD_TIMEOUT_MS = 5000
"""The guard child's bound: the agents set no hook timeout of their own; the guard answers in tens of ms."""
HOST_PIDS = {"opencode": "OPENCODE_PID", "kilo": "KILO_PID"}
"""The variable each agent of the family sets to its own PID at start (read from their binaries)."""
HOOK_COMMAND_REFUSED = "loads the plugin module Elydora generates, not a command from its settings"
_PARAMS = ["DENY_EXIT", "FAIL_CLOSED", "FLAGS", "GUARD", "GUARD_TIMEOUT_MS", "HOOK", "HOST", "HOST_PIDS", "PYTHON"]


@record(frozen=True)
class ModuleForm:
    """How an agent loads our module: the template's export section, the folder, and the agent's word for it."""

    export: str | None
    """A template file replacing :data:`TEMPLATE` from :data:`EXPORT_CUT` on (``None``: the OpenCode export)."""
    folder: str
    noun: str


OPENCODE_FORM = ModuleForm(None, FOLDER, "plugin")
PI_FORM = ModuleForm("pi_extension.mjs", "extensions", "extension")


@record(frozen=True)
class Marker:
    """What our plugin file says about itself."""

    agent_id: str
    python: str

    def line(self) -> str:
        return MARKER + markerline.encode({"version": VERSION, "agentId": self.agent_id, "python": self.python})


def _decode(encoded: str, path: Path) -> Marker:
    def broken(reason: str) -> MalformedConfigError:
        return markerline.broken(path, reason)

    data = markerline.decode(encoded, path)
    if not isinstance(data, dict) or set(data) != {"version", "agentId", "python"} or data["version"] != VERSION:
        raise broken("unknown version or keys")
    python, agent = data["python"], data["agentId"]
    if not (isinstance(python, str) and os.path.isabs(python)) or not isinstance(agent, str):
        raise broken("python is not an absolute path, or agentId is not a string")
    try:
        return Marker(identity.check_agent_id(agent), python)
    except ConfigError as exc:
        raise broken(f"agentId: {exc.reason}") from None


def marker_of(text: str, path: Path) -> Marker | None:
    """The marker on line 2, ``None`` when there is none (not our file); a broken marker raises."""
    lines = text.split("\n", 2)
    second = lines[1].rstrip("\r") if len(lines) > 1 else ""
    return _decode(second[len(MARKER) :], path) if second.startswith(MARKER) else None


def source(form: ModuleForm = OPENCODE_FORM) -> str:
    """The template text of ``form``'s module (parameters not yet filled)."""
    text = packagedata.read_template(TEMPLATE)
    if form.export is None:
        return text
    return text[: text.index(EXPORT_CUT)] + packagedata.read_template(form.export)


@functools.cache
def _template(form: ModuleForm) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The template cut at its parameter lines (texts, names)."""
    texts, names = cut_javascript(source(form))
    if sorted(names) != _PARAMS:
        raise ValueError(f"{TEMPLATE}: unexpected parameters {list(names)}")
    return texts, names


def parameters(facts: catalog.Provider, marker: Marker, ctx: Context) -> dict[str, Any]:
    """The value of each ``// @param`` line of the template for ``marker`` (JSON values are JS literals)."""
    return {
        "HOST": facts.id,
        "PYTHON": marker.python,
        "GUARD": str(script_path(ctx, marker.agent_id, GUARD)),
        "HOOK": str(script_path(ctx, marker.agent_id, AUDIT)),
        "FLAGS": list(RUNTIME_FLAGS),
        "DENY_EXIT": facts.guard_runtime.deny_exit_code,
        "GUARD_TIMEOUT_MS": GUARD_TIMEOUT_MS,
        "FAIL_CLOSED": facts.guard.failure_mode == "closed",
        "HOST_PIDS": HOST_PIDS,
    }


def _line(name: str, value: Any) -> str:
    """The ``// @param`` line of one parameter (a JSON value is a JavaScript literal)."""
    return f"const {name} = {json.dumps(value)}{JAVASCRIPT_TRAIL}"


def _guard_line(marker: Marker, ctx: Context) -> str:
    """The line naming the guard script of ``ctx``'s state root, which a module written for that root holds."""
    return _line("GUARD", str(script_path(ctx, marker.agent_id, GUARD)))


def render(facts: catalog.Provider, marker: Marker, ctx: Context, form: ModuleForm = OPENCODE_FORM) -> str:
    """The whole plugin file of ``facts``' agent for ``marker``."""
    params = parameters(facts, marker, ctx)

    texts, names = _template(form)
    body = joined(texts, [_line(name, params[name]) for name in names])
    lines = body.split("\n", 2)
    lines[0] = lines[0].replace("for HOST,", f"for {facts.display_name},", 1)
    lines[1] = marker.line()
    return "\n".join(lines)


def host_program() -> Path:
    """The plugin-host stub shipped in the package (``node`` runs it)."""
    return Path(packagedata.template_path(HOST_TEMPLATE))


def agent_argv(handler: Any, ctx: Context) -> list[str]:
    """A plugin hook run the way the agent runs it: the module loaded by the plugin-host stub under node (the
    agent's own Node, ``node.exe`` on Windows: the plugin spawns our runtime through ``process.execPath``'s
    child-process API, no shell, on every system)."""
    return ["node", str(host_program()), handler["hook"], handler["module"]]


def install_notes(agent: str, package: str) -> tuple[str, ...]:
    """What ``install`` tells the user of an agent of the family (``agent``: its short name, ``package``: the
    npm package it adds to a config folder that holds a plugin, seen in its 1.18/7.7 binaries)."""
    return (
        f"{agent} loads plugins at start: restart running {agent} sessions.",
        f"On its next start {agent} installs {package} with npm into its config folder (it does so for any "
        "plugin there) and waits for it; without network every start waits until npm gives up (about 90 s).",
    )


Installer = Callable[[Documents, Context, str], None]
Uninstaller = Callable[[Documents, Context, "set[str] | None"], None]
Checker = Callable[[Documents, Context, str], list[Finding]]


@record(frozen=True)
class PluginAgent:
    """The plug functions of one agent of the family: its catalog entry and its global config folder."""

    facts: catalog.Provider
    config_dir: Callable[[Context], Path]
    form: ModuleForm = OPENCODE_FORM

    def plugs(self) -> tuple[Callable[[Context], Sources], Installer, Uninstaller, Checker, defaults.EntryReader]:
        """``sources``, ``install``, ``uninstall``, ``check`` and ``installed_entries`` of the agent module."""
        return self.sources, self.install, self.uninstall, self.check, self.installed_entries

    def constants(self) -> tuple[Mapping[str, str], str, defaults.AgentArgv, defaults.ExtraRuntime]:
        """``ROLES``, ``HOOK_COMMAND_REFUSED``, ``agent_argv`` and ``extra_runtime`` of the agent module."""
        refused = f"{self.facts.display_name} {HOOK_COMMAND_REFUSED}"
        return self.roles, refused, agent_argv, defaults.no_extra_runtime

    @property
    def roles(self) -> Mapping[str, str]:
        return catalog_events(self.facts)

    def path(self, ctx: Context) -> Path:
        return self.config_dir(ctx) / self.form.folder / FILE_NAME

    def sources(self, ctx: Context) -> Sources:
        return Sources([Target(self.path(ctx), Format.TEXT, max_bytes=MAX_BYTES, mode=0o600)])

    def _file(self, docs: Documents) -> tuple[Path, str | None]:
        path = next(iter(docs.targets))
        return path, docs.originals.get(path)

    def install(self, docs: Documents, ctx: Context, agent_id: str) -> None:
        path, text = self._file(docs)
        refuse_if(
            text is not None and marker_of(text, path) is None,
            path,
            "is owned by another integration (it has no Elydora marker); move it away to install",
        )
        unloadable = module_path_problem(path, ctx.windows)
        refuse_if(unloadable is not None, path, str(unloadable))
        docs.set_text(path, render(self.facts, Marker(agent_id, ctx.python), ctx, self.form))

    def uninstall(self, docs: Documents, ctx: Context, agent_ids: set[str] | None) -> None:
        """Delete the file when its marker names one of ``agent_ids`` (any Elydora agent when ``None``)."""
        path, text = self._file(docs)
        marker = marker_of(text, path) if text is not None else None
        if marker is None or (agent_ids is not None and marker.agent_id not in agent_ids):
            return
        if text != render(self.facts, marker, ctx, self.form):
            raise RefusedError(
                path,
                "carries the Elydora marker but was changed after Elydora wrote it; restore it with "
                f"`elydora install {self.facts.id}` or delete it yourself, then uninstall",
            )
        docs.delete(path)

    def _problems(self, path: Path, text: str | None, ctx: Context, agent_id: str) -> list[str]:
        missing = f"is missing: {self.facts.display_name} loads no Elydora {self.form.noun}"
        marker = markerline.read(text, path, marker_of, missing)
        if isinstance(marker, str):
            return [marker]
        if marker.agent_id != agent_id:
            return [f"the agent id is {marker.agent_id!r}, expected {agent_id!r}"]
        if text != render(self.facts, marker, ctx, self.form):
            return [f"differs from what this version generates (edited?); run `elydora install {self.facts.id}`"]
        if not os.access(marker.python, os.X_OK):
            return [f"runs the interpreter {marker.python}, which does not exist or is not executable"]
        unloadable = module_path_problem(path, ctx.windows)
        return [] if unloadable is None else [unloadable]

    def check(self, docs: Documents, ctx: Context, agent_id: str) -> list[Finding]:
        path, text = self._file(docs)
        return [Finding(problem, path) for problem in self._problems(path, text, ctx, agent_id)]

    def installed_entries(self, docs: Documents, ctx: Context) -> list[defaults.Found]:
        """Each hook of our module as this operation read it, when the module runs the runtime of ``ctx``'s
        state root (a broken marker is left to ``check``; a module that runs another state root's runtime is
        that root's entry); the handler names the module and the hook, and the agent sets no timeout."""
        path, text = self._file(docs)
        try:
            marker = marker_of(text, path) if text is not None else None
        except MalformedConfigError:
            return []
        if text is None or marker is None or _guard_line(marker, ctx) not in text:
            return []
        return [
            defaults.Found(
                path, event, Ref(marker.agent_id, role, marker.python), {"module": str(path), "hook": event}, None
            )
            for event, role in self.roles.items()
        ]
