"""Hermes Agent: shell hooks in the ``hooks:`` block of ``$HERMES_HOME/config.yaml`` and their consent allowlist.

Hermes (PyPI ``hermes-agent``) reads ``config.yaml`` with PyYAML; each hook is a flat entry
``{command, matcher?, timeout?}`` under its event (``pre_tool_call``, ``post_tool_call``...). It splits the
command with :func:`shlex.split` and runs it without a shell (the same quoted form on every system), feeds it one
JSON line in the Claude-like shape (``hook_event_name, tool_name, tool_input, session_id, cwd, extra``), and blocks
a ``pre_tool_call`` only on a JSON answer ``{"decision": "block", "reason": ...}`` on stdout: the exit status alone
never blocks, a hook that fails or times out allows. Timeouts are whole seconds, at most 300 (Hermes clamps).

Hermes registers a hook only when its ``(event, command)`` pair is in ``shell-hooks-allowlist.json`` beside the
config (first-use consent: asked at a terminal, silently skipped elsewhere), unless ``--accept-hooks``,
``HERMES_ACCEPT_HOOKS`` or ``hooks_auto_accept`` says yes for every hook. Installing is the user's consent to ours:
install adds our two pairs to the allowlist (its second target) and uninstall takes them out again. The YAML is
edited by :mod:`elydora_config.yaml` (whole lines spliced, comments kept). A managed ``config.yaml``
(``$HERMES_MANAGED_DIR``, else ``/etc/hermes``) is merged over the user's at the leaves: its own
``hooks.pre_tool_call`` or ``hooks.post_tool_call`` list replaces ours, which ``status`` reports.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING

from elydora_config.errors import MalformedConfigError

from .. import catalog
from ..exitcodes import UsageError
from ..plug import defaults, hookfile, hookmap, runners
from ..plug.common import catalog_events, check_hooks, shell_command
from ..plug.context import Context
from ..plug.contract import Finding, Format, Sources, Target
from ..plug.documents import Documents
from ..plug.hookfile import HookFile
from ..plug.hookmap import HookMap
from ..plug.layers import EnvSwitch
from ..plug.ownership import Ref, owner
from ..plug.schema import NONEMPTY_STR, OBJECT, STR, Check, HandlerSchema, MapSchema

if TYPE_CHECKING:
    from typing import Any

FACTS = catalog.provider("hermes")
EVENTS = catalog_events(FACTS)
MAX_TIMEOUT = 300
CONFIG = "config.yaml"
ALLOWLIST = "shell-hooks-allowlist.json"
MANAGED_VARIABLE = "HERMES_MANAGED_DIR"
MANAGED_DIR = "/etc/hermes"
ENV_SWITCHES = (EnvSwitch("HERMES_SAFE_MODE", "safe mode"),)
"""Hermes 0.19.0 ``agent/shell_hooks.py``: shell hooks are not registered while HERMES_SAFE_MODE is truthy."""
HERMES_EVENTS = (
    "pre_tool_call", "post_tool_call", "transform_terminal_output", "transform_tool_result", "transform_llm_output",
    "pre_llm_call", "post_llm_call", "pre_verify", "pre_api_request", "post_api_request", "api_request_error",
    "on_session_start", "on_session_end", "on_session_finalize", "on_session_reset", "subagent_start",
    "subagent_stop", "pre_gateway_dispatch", "pre_approval_request", "post_approval_response",
    "kanban_task_claimed", "kanban_task_completed", "kanban_task_blocked",
)  # fmt: skip
"""``hermes_cli.plugins.VALID_HOOKS`` of Hermes 0.19.0; Hermes skips an entry of any other name with a warning."""

INTEGER = Check(lambda v: isinstance(v, int) and not isinstance(v, bool), "a whole number of seconds")
SCHEMA = MapSchema(
    HandlerSchema(
        by_type={"command": {"command": NONEMPTY_STR}},
        common={"matcher": STR, "timeout": INTEGER},
        required={"command": ["command"]},
        default_type="command",
        open_keys=True,
    ),
    events=HERMES_EVENTS,
    unknown_events="keep",
    grouped=False,
    switches={"output_spill": OBJECT},
)


def make_handler(ref: Ref, ctx: Context) -> dict[str, Any]:
    """One flat entry: the POSIX-quoted command (Hermes splits it with ``shlex`` on every system) and seconds."""
    return {"command": shell_command(ref, ctx), "timeout": ref.timeout}


HOOKS = HookMap(EVENTS, make_handler, grouped=False, whole_container=True)
FILE = HookFile(FACTS.id, HOOKS, SCHEMA)


def home(ctx: Context) -> Path:
    """``$HERMES_HOME`` (stripped; a relative value is taken from the working directory), else ``~/.hermes``
    (on Windows ``%LOCALAPPDATA%\\hermes``)."""
    named = (ctx.env_value(str(FACTS.config.env)) or "").strip()
    if named:
        return ctx.place(named)
    if ctx.windows:
        return ctx.local_app_data() / "hermes"
    return ctx.home / ".hermes"


def managed_config(ctx: Context) -> Path:
    """The managed layer's config: ``$HERMES_MANAGED_DIR/config.yaml`` when the variable is set (Hermes ignores a
    missing folder, and then reads no managed layer at all), else ``/etc/hermes/config.yaml`` (below ``--root``)."""
    named = (ctx.env_value(MANAGED_VARIABLE) or "").strip()
    return ctx.place(named or MANAGED_DIR) / CONFIG


def sources(ctx: Context) -> Sources:
    folder = home(ctx)
    managed = managed_config(ctx)
    return Sources(
        [
            Target(folder / CONFIG, Format.YAML, new_text=""),
            Target(folder / ALLOWLIST, Format.JSON, new_text='{\n  "approvals": []\n}\n'),
        ],
        depends=[managed],
        depend_formats={managed: Format.YAML},
        blank_is_empty=True,  # Hermes 0.19 reads an allowlist it cannot parse as no approvals
    )


def _paths(docs: Documents) -> tuple[Path, Path]:
    config, allowlist = list(docs.targets)
    return config, allowlist


def _approvals(docs: Documents, path: Path) -> list[Any] | None:
    """The allowlist's ``approvals`` (``None`` when the file is absent), its shape checked as Hermes reads it."""
    doc = docs.doc(path)
    if doc is None:
        return None
    approvals = doc.get(("approvals",), [])
    if not isinstance(approvals, list):
        raise MalformedConfigError(path, "approvals must be a list")
    return approvals


def approval_command(ref: Ref, ctx: Context) -> dict[str, Any]:
    """What an allowlist entry of ours holds besides its event and times: the command of our hook."""
    return {"command": make_handler(ref, ctx)["command"]}


def _ours(entry: Any, ctx: Context, docs: Documents) -> Ref | None:
    """The :class:`Ref` of an approval of one of our hooks (its event matching the hook's role)."""
    if not isinstance(entry, dict) or not isinstance(entry.get("command"), str):
        return None
    ref = owner({"command": entry["command"]}, ctx, approval_command, recorded=docs.recorded)
    return ref if ref is not None and EVENTS.get(entry.get("event", "")) == ref.role else None


def _wanted(ctx: Context, agent_id: str) -> list[tuple[str, str]]:
    """``(event, command)`` of each of our hooks, as the allowlist must hold them."""
    refs = {event: Ref(agent_id, role, ctx.python) for event, role in EVENTS.items()}
    return [(event, approval_command(ref, ctx)["command"]) for event, ref in refs.items()]


def _allow(docs: Documents, path: Path, ctx: Context, agent_id: str) -> None:
    """Our two pairs in the allowlist, once each; an approval of ours for an older command goes."""
    doc = docs.ensure(path)
    log = docs.log(path)  # recorded in the manifest: the file and our approvals are known to uninstall
    wanted = _wanted(ctx, agent_id)
    approvals = _approvals(docs, path) or []
    for index in reversed(range(len(approvals))):
        entry = approvals[index]
        ref = _ours(entry, ctx, docs)
        if ref is not None and ref.agent_id == agent_id and (entry.get("event"), entry["command"]) not in wanted:
            doc.remove(("approvals", index))
            log.removed.append({"at": ["approvals", index], "value": entry})
    present = {(e.get("event"), e.get("command")) for e in doc.get(("approvals",), []) if isinstance(e, dict)}
    stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    for event, command in wanted:
        if (event, command) not in present:
            entry = {"event": event, "command": command, "approved_at": stamp, "script_mtime_at_approval": None}
            at = len(doc.get(("approvals",), []))
            doc.insert(("approvals",), at, entry)
            log.inserted.append({"at": ["approvals", at], "value": entry})


def _disallow(docs: Documents, path: Path, ctx: Context, agent_ids: set[str] | None) -> None:
    approvals = _approvals(docs, path)
    doc = docs.doc(path)
    if approvals is None or doc is None:
        return
    for index in reversed(range(len(approvals))):
        ref = _ours(approvals[index], ctx, docs)
        if ref is not None and (agent_ids is None or ref.agent_id in agent_ids):
            doc.remove(("approvals", index))
            docs.log(path).removed.append({"at": ["approvals", index], "value": approvals[index]})
    if docs.was_created_by_us(path) and doc.value == {"approvals": []}:
        docs.delete(path)


def install(docs: Documents, ctx: Context, agent_id: str) -> None:
    if ctx.timeout_seconds > MAX_TIMEOUT:
        raise UsageError(f"Hermes Agent runs a hook for at most {MAX_TIMEOUT} s")
    config, allowlist = _paths(docs)
    hookfile.validate(docs, config, FILE, ctx)
    _approvals(docs, allowlist)
    doc = docs.ensure(config)
    hookfile.prune(docs, config, FILE, ctx, None, adopt=True)
    hookmap.add(docs.edit(config, doc), HOOKS, ctx, agent_id)
    _allow(docs, allowlist, ctx, agent_id)


def uninstall(docs: Documents, ctx: Context, agent_ids: set[str] | None) -> None:
    config, allowlist = _paths(docs)
    hookfile.validate(docs, config, FILE, ctx)
    hookfile.prune(docs, config, FILE, ctx, agent_ids)
    _disallow(docs, allowlist, ctx, agent_ids)


def check(docs: Documents, ctx: Context, agent_id: str) -> list[Finding]:
    """Our entries in ``config.yaml``, their approvals in the allowlist, and no managed list replacing them."""
    config, allowlist = _paths(docs)
    hookfile.validate(docs, config, FILE, ctx)
    findings = check_hooks(docs, config, HOOKS, ctx, agent_id)
    approvals = _approvals(docs, allowlist) or []
    present = {(e.get("event"), e.get("command")) for e in approvals if isinstance(e, dict)}
    for event, command in _wanted(ctx, agent_id):
        if (event, command) not in present:
            findings.append(Finding(f"{event}: our hook is not approved here; {UNAPPROVED}", allowlist))
    managed = managed_config(ctx)
    layer = docs.depends.get(managed)
    hooks = layer.get(("hooks",), None) if layer is not None and not isinstance(layer, str) else None
    for event in EVENTS:
        if isinstance(hooks, dict) and hooks.get(event) is not None:
            findings.append(Finding(f"hooks.{event} {REPLACED}", managed))
    return findings


UNAPPROVED = (
    "Hermes skips a hook it has not been allowed to run (it asks at a terminal, and runs nothing elsewhere); "
    "run `elydora install hermes`"
)
REPLACED = "is set by the managed layer, whose lists replace the user's: our hook in config.yaml does not run"

ROLES = EVENTS
HOOK_COMMAND_REFUSED = defaults.HOOK_COMMAND_ACCEPTED
extra_runtime = defaults.no_extra_runtime
installed_entries = defaults.entries_in(lambda docs: [(_paths(docs)[0], HOOKS)])


def agent_argv(handler: Any, ctx: Context) -> list[str]:
    """As Hermes runs a hook: the command split into words as :func:`shlex.split` does (our entries are single-quoted
    words, which :func:`~elydora_cli.plug.cmdforms.parse_posix` splits without loading shlex), no shell."""
    return runners.word_list(handler["command"])


NOTES = (
    "Restart running Hermes sessions (and the gateway) so they load the new hooks.",
    "`hermes --safe-mode`, `--ignore-user-config` or HERMES_SAFE_MODE=1 start Hermes without config.yaml's hooks: "
    "such a session is neither guarded nor recorded.",
)
