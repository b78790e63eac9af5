"""Cline CLI 3: one executable Node ES-module file per event in ``$CLINE_DIR/hooks`` (or ``~/.cline/hooks``).

Cline has no hook config to edit: it runs ``PreToolUse.mjs`` (its ``tool_call`` hook) and ``PostToolUse.mjs``
(``tool_result``) from its hooks directory. We write both files whole. Each file spawns our runtime with
``-I -S`` and speaks Cline's protocol for it: the guard's exit 2 (message on stderr) becomes
``{"cancel":true,"errorMessage":...}`` on stdout and exit 0; any other failure is a message on stderr and
exit 1, which Cline ignores (fail-open). The guard itself therefore follows the catalog's
``guard.runtime_deny`` (exit 2 + stderr), and the catalog's ``guard.deny`` describes what Cline reads.

Ownership is the marker on line 2 (``// @elydora-cline-hook <base64url JSON>``); a file without it belongs to
someone else and is never touched.
"""

from __future__ import annotations

import functools
import json
import os
from pathlib import Path
from typing import TYPE_CHECKING

from elydora_config.errors import ConfigError, MalformedConfigError
from elydora_config.records import record

from .. import catalog, identity, packagedata
from ..plug import defaults, markerline
from ..plug.common import RefusedError, catalog_events, module_path_problem, refuse_if
from ..plug.context import RUNTIME_FLAGS, Context
from ..plug.contract import Finding, Format, Sources, Target
from ..plug.documents import Documents
from ..plug.ownership import Ref, script_path
from ..runtime.templateparams import cut_javascript, joined

if TYPE_CHECKING:
    from typing import Any

FACTS = catalog.provider("cline")
EVENTS = catalog_events(FACTS)
"""``PreToolUse`` -> guard, ``PostToolUse`` -> audit."""
HOOK_MODE = 0o700
MAX_BYTES = 256 * 1024
MARKER = "// @elydora-cline-hook "
VERSION = 2
"""Our marker: the Python SDK installer's four keys (version 1) plus ``python``, the interpreter we spawn."""
REFERENCE_VERSION = 1
HOOK_COMMAND_REFUSED = "Cline runs the hook files Elydora generates, not a command from its settings"
ENV_SWITCHES = defaults.NO_ENV_SWITCHES
"""Why ``--hook-command`` does not apply: the hook-command contract is about a command stored in an agent's
settings, and Cline has none (its hook files run the Elydora runtime)."""
TEMPLATE = "cline_hook.mjs"
"""The hook program, a standalone file in ``runtime/templates/``: :func:`render` replaces its marker line, the
word ``KIND`` of its heading and each ``// @param`` line with the agent's values (JSON literals)."""


@record(frozen=True)
class Marker:
    """What a hook file says about itself: its kind, agent, runtime and (ours only) interpreter."""

    kind: str
    agent_id: str
    runtime_path: str
    python: str | None = None
    """``None``: a file of the Python SDK installer (version 1), which read the interpreter from the runtime."""

    def line(self) -> str:
        data: dict[str, Any] = {"version": VERSION if self.python else REFERENCE_VERSION, "kind": self.kind}
        data.update(agentId=self.agent_id, runtimePath=self.runtime_path)
        if self.python:
            data["python"] = self.python
        return MARKER + markerline.encode(data)


def _decode(encoded: str, path: Path) -> Marker:
    def broken(reason: str) -> MalformedConfigError:
        return markerline.broken(path, reason)

    data = markerline.decode(encoded, path)
    keys = {"version", "kind", "agentId", "runtimePath"}
    if not isinstance(data, dict) or data.get("version") not in (REFERENCE_VERSION, VERSION):
        raise broken("unknown version")
    if set(data) != (keys | {"python"} if data["version"] == VERSION else keys):
        raise broken("unexpected keys")
    python = data.get("python")
    if data["kind"] not in EVENTS.values():
        raise broken(f"kind {data['kind']!r}")
    for name, value in (("runtimePath", data["runtimePath"]), ("python", python)):
        if value is not None and not (isinstance(value, str) and os.path.isabs(value)):
            raise broken(f"{name} is not an absolute path")
    if not isinstance(data["agentId"], str):
        raise broken("agentId is not a string")
    try:
        agent_id = identity.check_agent_id(data["agentId"])
    except ConfigError as exc:
        raise broken(f"agentId: {exc.reason}") from None
    return Marker(data["kind"], agent_id, data["runtimePath"], python)


def marker_of(text: str, path: Path) -> Marker | None:
    """The marker on line 2, ``None`` when there is none (not our file); a broken marker raises."""
    lines = text.split("\n", 2)
    second = lines[1].rstrip("\r") if len(lines) > 1 else ""
    return _decode(second[len(MARKER) :], path) if second.startswith(MARKER) else None


def render(marker: Marker) -> str:
    """The whole hook file for ``marker`` (ours: ``python`` set)."""
    assert marker.python is not None, "only our own markers are rendered"
    params = {  # a JSON string, number or array is also a JavaScript literal
        "KIND": marker.kind,
        "PYTHON": marker.python,
        "RUNTIME": marker.runtime_path,
        "FLAGS": list(RUNTIME_FLAGS),
        "DENY_EXIT": FACTS.guard_runtime.deny_exit_code,
    }
    texts, names = _template()
    body = joined(texts, [f"const {name} = {json.dumps(params[name])};" for name in names])
    lines = body.split("\n", 3)
    lines[1] = marker.line()
    lines[2] = lines[2].replace("Elydora KIND hook", f"Elydora {marker.kind} hook", 1)
    return "\n".join(lines)


@functools.cache
def _template() -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The template cut at its parameter lines (texts, names)."""
    texts, names = cut_javascript(packagedata.read_template(TEMPLATE))
    if sorted(names) != ["DENY_EXIT", "FLAGS", "KIND", "PYTHON", "RUNTIME"]:
        raise ValueError(f"{TEMPLATE}: unexpected parameters {list(names)}")
    return texts, names


def ours(ctx: Context, agent_id: str, role: str) -> Marker:
    return Marker(role, agent_id, str(script_path(ctx, agent_id, role)), ctx.python)


def hooks_dir(ctx: Context) -> Path:
    """``$CLINE_DIR/hooks`` (trimmed; empty or blank means unset), else ``~/.cline/hooks``."""
    value = (ctx.env_value("CLINE_DIR") or "").strip()
    return (ctx.place(value) if value else ctx.home / ".cline") / "hooks"


def sources(ctx: Context) -> Sources:
    directory = hooks_dir(ctx)
    return Sources(
        [Target(directory / f"{event}.mjs", Format.TEXT, max_bytes=MAX_BYTES, mode=HOOK_MODE) for event in EVENTS]
    )


def _files(docs: Documents) -> list[tuple[Path, str, str | None]]:
    """(path, role, original text) of each hook file, in event order."""
    return [(path, EVENTS[path.stem], docs.originals.get(path)) for path in docs.targets]


def install(docs: Documents, ctx: Context, agent_id: str) -> None:
    files = _files(docs)
    for path, _, text in files:
        refuse_if(
            text is not None and marker_of(text, path) is None,
            path,
            "is owned by another integration (it has no Elydora marker); move it away to install",
        )
        unloadable = module_path_problem(path, ctx.windows)
        refuse_if(unloadable is not None, path, str(unloadable))
    for path, role, _ in files:
        docs.set_text(path, render(ours(ctx, agent_id, role)))


def uninstall(docs: Documents, ctx: Context, agent_ids: set[str] | None) -> None:
    """Delete the files whose marker names one of ``agent_ids`` (all Elydora files when ``None``)."""
    for path, _, text in _files(docs):
        marker = marker_of(text, path) if text is not None else None
        if marker is None or (agent_ids is not None and marker.agent_id not in agent_ids):
            continue
        if marker.python is not None and text != render(marker):
            raise RefusedError(
                path,
                "carries the Elydora marker but was changed after Elydora wrote it; "
                "restore it with `elydora install cline` or delete it yourself, then uninstall",
            )
        docs.delete(path)


def _problems(path: Path, role: str, text: str | None, ctx: Context, agent_id: str) -> list[str]:
    marker = markerline.read(text, path, marker_of, f"is missing: Cline runs no Elydora {role} hook")
    if isinstance(marker, str):
        return [marker]
    expected = ours(ctx.with_options(python=marker.python or ctx.python), agent_id, role)
    problems = [
        f"{label} is {actual!r}, expected {wanted!r}"
        for label, actual, wanted in (
            ("the hook kind", marker.kind, role),
            ("the agent id", marker.agent_id, agent_id),
            ("the runtime path", marker.runtime_path, expected.runtime_path),
        )
        if actual != wanted
    ]
    if marker.python is None:
        problems.append("was written by the Python SDK installer; run `elydora install cline` to replace it")
    elif not problems and text != render(marker):
        problems.append("differs from what this version generates (edited?); run `elydora install cline`")
    elif not os.access(marker.python, os.X_OK):
        problems.append(f"runs the interpreter {marker.python}, which does not exist or is not executable")
    if os.name != "nt" and not os.access(path, os.X_OK):
        problems.append("is not executable, so Cline does not run it")
    unloadable = module_path_problem(path, ctx.windows)
    return problems if unloadable is None else [*problems, unloadable]


def check(docs: Documents, ctx: Context, agent_id: str) -> list[Finding]:
    return [
        Finding(problem, path)
        for path, role, text in _files(docs)
        for problem in _problems(path, role, text, ctx, agent_id)
    ]


def installed_entries(docs: Documents, ctx: Context) -> list[defaults.Found]:
    """Every hook file of ours that runs the runtime of ``ctx``'s state root, as this operation read it, the
    file's path as the handler (a file whose marker is broken is left to ``check``, which reports it; one that
    runs another state root's runtime is that root's entry); Cline sets no timeout."""
    found: list[defaults.Found] = []
    for path, _, text in _files(docs):
        try:
            marker = marker_of(text, path) if text is not None else None
        except MalformedConfigError:
            continue
        if (
            marker is not None
            and marker.python is not None
            and marker.runtime_path == str(script_path(ctx, marker.agent_id, marker.kind))
        ):
            ref = Ref(marker.agent_id, marker.kind, marker.python)
            found.append(defaults.Found(path, path.stem, ref, str(path), None))
    return found


def agent_argv(hook_file: str, ctx: Context) -> list[str]:
    """Cline runs the hook file as a program; ``node <file>`` is what its ``#!/usr/bin/env node`` line runs."""
    return ["node", hook_file]


ROLES = EVENTS
extra_runtime = defaults.no_extra_runtime

NOTES = ("While the agent is frozen, Cline cancels the whole task, not just the tool call.",)
