"""Claude Code: strict JSON ``settings.json``, exec-form handlers (``command`` + ``args``), seconds.

Grok Build (from ``~/.claude/settings.json``) and Copilot CLI (from a project's ``.claude/settings*.json``)
run these entries too, dropping ``args`` or running ``command`` as a shell string. So the handler's
``command`` is the generated launcher itself (``args: []``: Claude Code still spawns it without a shell,
through its ``#!<python> -IS`` line), which needs no argument and, being a plain path, means the same as a
shell string; the runtime then acts only for Claude Code's own payloads (catalog ``host``). With
``--hook-command`` the entries name the supervisor's launcher (``supervisor.py``, see
:func:`~elydora_cli.plug.ownership.supervisor_runtime`) the same way, which does the same host check first.
When the launcher cannot stand alone (no usable ``#!`` line, a path a shell would split, Windows) the
interpreter form stays.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING

from .. import catalog, claudesources, managed
from ..plug import defaults, hookmap, lockdown
from ..plug.cmdforms import shell_plain
from ..plug.common import (
    RefusedError,
    add_hooks,
    catalog_events,
    check_hooks,
    exec_handler,
    legacy_command_only,
    refuse_if,
    remove_hooks,
    validated,
)
from ..plug.context import Context
from ..plug.contract import Finding, Format, Sources, Target
from ..plug.documents import Documents
from ..plug.hookmap import HookMap
from ..plug.layers import (
    EnvSwitch,
    Layer,
    Setting,
    explicit,
    last_explicit,
    layers,
    managed_file,
    same_file,
    switched_off,
)
from ..plug.ownership import GUARD, Ref, refs_in, runtime_argv, runtime_context, supervisor_runtime
from ..plug.schema import (
    ANY,
    BOOL,
    HTTP_URL,
    NONEMPTY_STR,
    NONEMPTY_STR_LIST,
    OBJECT,
    POS_NUMBER,
    STR,
    STR_LIST,
    STR_MAP,
    HandlerSchema,
    MapSchema,
    one_of,
    require_type,
)
from ..plug.systempin import access_findings
from ..runtime.generate import shebang

if TYPE_CHECKING:
    from typing import Any

FACTS = catalog.provider("claudecode")
EVENTS = [
    "SessionStart",
    "Setup",
    "InstructionsLoaded",
    "UserPromptSubmit",
    "UserPromptExpansion",
    "MessageDisplay",
    "PreToolUse",
    "PermissionRequest",
    "PostToolUse",
    "PostToolUseFailure",
    "PostToolBatch",
    "PermissionDenied",
    "Notification",
    "SubagentStart",
    "SubagentStop",
    "TaskCreated",
    "TaskCompleted",
    "Stop",
    "StopFailure",
    "TeammateIdle",
    "ConfigChange",
    "CwdChanged",
    "FileChanged",
    "WorktreeCreate",
    "WorktreeRemove",
    "PreCompact",
    "PostCompact",
    "SessionEnd",
    "Elicitation",
    "ElicitationResult",
]
SCHEMA = MapSchema(
    HandlerSchema(
        by_type={
            "command": {
                "command": NONEMPTY_STR,
                "args": STR_LIST,
                "async": BOOL,
                "asyncRewake": BOOL,
                "rewakeMessage": NONEMPTY_STR,
                "rewakeSummary": NONEMPTY_STR,
                "shell": one_of("bash", "powershell"),
            },
            "prompt": {"prompt": NONEMPTY_STR, "model": STR, "continueOnBlock": BOOL},
            "agent": {"prompt": NONEMPTY_STR, "model": STR},
            "http": {"url": HTTP_URL, "headers": STR_MAP, "allowedEnvVars": NONEMPTY_STR_LIST},
            "mcp_tool": {"server": NONEMPTY_STR, "tool": NONEMPTY_STR, "input": OBJECT},
        },
        common={"if": STR, "once": BOOL, "statusMessage": STR, "timeout": POS_NUMBER},
        required={
            "command": ["command"],
            "prompt": ["prompt"],
            "agent": ["prompt"],
            "http": ["url"],
            "mcp_tool": ["server", "tool"],
        },
    ),
    events=EVENTS,
)


def standalone(ref: Ref, ctx: Context) -> bool:
    """Whether the launcher alone can be the command (see the module docstring)."""
    launcher = runtime_argv(ref, ctx)[-1]
    return not ctx.windows and bool(shebang(ref.python)) and shell_plain(launcher)


make_handler = exec_handler(status_messages=True, standalone=standalone)


_command_only = legacy_command_only()


def legacy(handler: Any, ctx: Context) -> Ref | None:
    """Our earlier forms: the SDK installer's command strings, and the interpreter exec form
    (``command`` = interpreter, ``args`` = ``-I -S <launcher>``) that cross-loading agents ran bare."""
    found = _command_only(handler, ctx)
    if found is not None:
        return found
    for ref in refs_in(handler, ctx):
        timed = Ref(ref.agent_id, ref.role, ref.python, handler.get("timeout"))
        argv = runtime_argv(timed, runtime_context(ctx))
        if dict(handler) == {**make_handler(timed, ctx), "command": argv[0], "args": argv[1:]}:
            return timed
    return None


HOOKS = HookMap(
    events=catalog_events(FACTS),
    make=make_handler,
    legacy=legacy,
    keep_emptied_groups=True,
)


LOCKDOWN_KEY, LOCKDOWN_OFF = managed.lockdown_switch("claudecode")


PROJECT_FILES = ("settings.json", "settings.local.json")
"""The project's ``.claude/`` layers, in Claude Code's order (the local one wins)."""
SWITCH = "disableAllHooks"
MANAGED_ONLY = ("allowManagedHooksOnly", "strictPluginOnlyCustomization")
"""Managed keys with which only managed hooks run (``strictPluginOnlyCustomization``: true, or a list naming
``hooks``)."""
ENV_SWITCHES = (EnvSwitch("CLAUDE_CODE_SAFE_MODE", "safe mode", system=False),)
"""Claude Code 2.1.332: safe mode (also ``--safe-mode``) runs managed hooks only."""
BASE_FILE = "managed-settings.json"
"""The organization's managed settings file, in the folder above our drop-in; Elydora 0.x system installs wrote
their entries into it, and install moves them out."""


def project_files(ctx: Context, user_file: Path) -> list[Path]:
    """``<project>/.claude/settings.json`` and ``settings.local.json``, unless that folder is the user's own."""
    folder = ctx.repo_root / ".claude"
    return [] if same_file(folder, user_file.parent) else [folder / name for name in PROJECT_FILES]


def drop_ins(folder: Path) -> list[Path]:
    """The drop-ins Claude Code reads, in its order: ``*.json`` not starting with ``.``, files or links, sorted."""
    try:
        with os.scandir(folder) as listing:
            names = [e.name for e in listing if e.name.endswith(".json") and not e.name.startswith(".")
                     and (e.is_symlink() or e.is_file())]
    except (FileNotFoundError, NotADirectoryError):
        return []
    return [folder / name for name in sorted(names)]


def managed_files(ctx: Context) -> list[Path]:
    """The file tier in Claude Code's merge order: ``managed-settings.json``, then every drop-in (ours too)."""
    ours = managed_file(ctx, FACTS.id)
    return [ours.parent.parent / BASE_FILE, *sorted({*drop_ins(ours.parent), ours})]


def sources(ctx: Context) -> Sources:
    if ctx.system:  # our drop-in; the organization's file only to move an earlier install's entries out
        dropin, base, *others = _system_files(ctx)
        targets = [Target(dropin, Format.JSON, mode=managed.POLICY_MODE), Target(base, Format.JSON)]
        return Sources(targets, others, blank_is_empty=True)
    configured = ctx.env_value("CLAUDE_CONFIG_DIR")
    directory = ctx.place(configured) if configured is not None else ctx.home / ".claude"
    user = directory / "settings.json"
    depends = [*project_files(ctx, user), *([] if ctx.windows else managed_files(ctx))]
    # Claude Code reads a settings file that holds only whitespace (or nothing) as no settings at all
    return Sources([Target(user, Format.JSON)], depends, dict.fromkeys(depends, Format.JSON), blank_is_empty=True)


def _system_files(ctx: Context) -> list[Path]:
    """Our drop-in, the organization's ``managed-settings.json``, the other drop-ins (read as text: a file of
    theirs Claude Code cannot parse is skipped by it, and must not stop our install)."""
    base, *tier = managed_files(ctx)
    dropin = managed_file(ctx, FACTS.id)
    return [dropin, base, *(p for p in tier if p != dropin)]


def _settings(docs: Documents) -> tuple[Path, Any]:
    path = next(iter(docs.targets))
    value = validated(docs, path, SCHEMA)
    require_type(path, value, SWITCH, BOOL)
    return path, value


def _fix(setting: Setting) -> str:
    if setting.key == SWITCH:
        return "remove it (or set it to false)"
    return "only the administrator can change it; they can install Elydora there (--scope system)"


def switched(docs: Documents, ctx: Context) -> list[Setting]:
    """What switches our user-scope hooks off: ``disableAllHooks`` (the last of user, project, local and
    managed settings that sets it), or a managed key with which managed hooks only run."""
    user = next(iter(docs.targets))
    tier = [] if ctx.windows else managed_files(ctx)
    chain = layers(docs, [user, *project_files(ctx, user), *tier])
    found = [s for s in [last_explicit(chain, SWITCH)] if s is not None and s.value]
    policy = layers(docs, tier)
    found += [s for s in explicit(policy, MANAGED_ONLY[0]) if s.value]
    found += [s for s in explicit(policy, MANAGED_ONLY[1], ANY) if s.value is True or _names_hooks(s.value)]
    return found


def _names_hooks(value: Any) -> bool:
    return isinstance(value, list) and "hooks" in value


def _tier(docs: Documents, ctx: Context) -> list[Layer]:
    """The file tier as Claude Code merges it (an unparsable drop-in of someone else's counts as absent)."""
    found = []
    for path in managed_files(ctx):
        if path in docs.targets:
            found.append(Layer(path, _current(docs, path)))
            continue
        try:
            value = json.loads(docs.depends.get(path) or "null")
        except ValueError:
            value = None
        found.append(Layer(path, value if isinstance(value, dict) else None))
    return found


def _current(docs: Documents, path: Path) -> Any:
    doc = docs.doc(path)
    return None if doc is None else doc.value


def _tier_off(docs: Documents, ctx: Context) -> Setting | None:
    setting = last_explicit(_tier(docs, ctx), SWITCH)
    return setting if setting is not None and setting.value else None


def install(docs: Documents, ctx: Context, agent_id: str) -> None:
    path, value = _settings(docs)
    if ctx.system:
        _install_system(docs, ctx, agent_id, path)
        return
    refuse_if(
        isinstance(value, dict) and value.get(SWITCH) is True,
        path,
        "Claude Code hooks are disabled by disableAllHooks: true; remove it to install",
    )
    add_hooks(docs, path, HOOKS, ctx, agent_id)


def _install_system(docs: Documents, ctx: Context, agent_id: str, path: Path) -> None:
    base = list(docs.targets)[1]
    validated(docs, base, SCHEMA)
    off = _tier_off(docs, ctx)
    if off is not None:
        raise RefusedError(off.path, f"Claude Code hooks are disabled by {off.describe()}; remove it to install")
    _move_lockdown(docs, base, path)
    lockdown.apply(docs, path, ctx, LOCKDOWN_KEY)  # before our entries: a reinstall re-adds them after it
    add_hooks(docs, path, HOOKS, ctx, agent_id)
    remove_hooks(docs, base, HOOKS, ctx, {agent_id})  # an earlier install's entries, now in the drop-in


def _move_lockdown(docs: Documents, base: Path, dropin: Path) -> None:
    """An earlier install's lock-down switch in the organization's file moves into our drop-in with our entries."""
    doc = docs.doc(base)
    if doc is None or doc.get([LOCKDOWN_KEY], None) is not True or {"lockdown": LOCKDOWN_KEY} not in docs.recorded:
        return
    doc.remove([LOCKDOWN_KEY])
    target = docs.ensure(dropin)
    if target.get([LOCKDOWN_KEY], None) is not True:
        target.set([LOCKDOWN_KEY], True)
    docs.log(dropin).inserted.append({"at": [LOCKDOWN_KEY], "value": {"lockdown": LOCKDOWN_KEY}})


def uninstall(docs: Documents, ctx: Context, agent_ids: set[str] | None) -> None:
    path, _ = _settings(docs)
    if ctx.system:
        base = list(docs.targets)[1]
        validated(docs, base, SCHEMA)
        if agent_ids is None:
            lockdown.remove(docs, path, LOCKDOWN_KEY)
            lockdown.remove(docs, base, LOCKDOWN_KEY)
        remove_hooks(docs, base, HOOKS, ctx, agent_ids)
    remove_hooks(docs, path, HOOKS, ctx, agent_ids)


def check(docs: Documents, ctx: Context, agent_id: str) -> list[Finding]:
    path, _ = _settings(docs)
    if ctx.system:
        return _check_system(docs, ctx, agent_id, path)
    off = switched(docs, ctx)  # managed hooks run whatever a user or project layer says, unless managed settings say
    if off:
        return [switched_off(s, FACTS.display_name, _fix(s)) for s in off]
    return check_hooks(docs, path, HOOKS, ctx, agent_id)


def _check_system(docs: Documents, ctx: Context, agent_id: str, path: Path) -> list[Finding]:
    base = list(docs.targets)[1]
    validated(docs, base, SCHEMA)
    off = _tier_off(docs, ctx)
    if off is not None:
        return [switched_off(off, FACTS.display_name, "remove it (or set it to false)")]
    found = check_hooks(docs, path, HOOKS, ctx, agent_id)
    if _holds_ours(_current(docs, base), ctx, agent_id):
        found.append(Finding(f"an earlier install's entries are still in {BASE_FILE}: they would run twice; "
                             "reinstall with --scope system to move them into our drop-in", base))
    found = found or access_findings(ctx, path, FACTS.display_name)
    found += [f for p in (path, base) for f in lockdown.check(docs, p, LOCKDOWN_KEY, LOCKDOWN_OFF)]
    return found + source_findings(docs, ctx, agent_id)


def _holds_ours(settings: Any, ctx: Context, agent_id: str) -> bool:
    """Whether a settings value holds one of our guard entries of ``agent_id``."""
    events = settings.get("hooks") if isinstance(settings, dict) else None
    for event, role in HOOKS.events.items():
        groups = events.get(event) if isinstance(events, dict) else None
        for group in groups if isinstance(groups, list) else []:
            handlers = group.get("hooks") if isinstance(group, dict) else None
            for handler in handlers if isinstance(handlers, list) else []:
                ref = hookmap.ours(HOOKS, handler, ctx) if isinstance(handler, dict) else None
                if ref is not None and ref.agent_id == agent_id and role == GUARD:
                    return True
    return False


def _verdict(docs: Documents, ctx: Context) -> tuple[claudesources.Verdict, int]:
    files = claudesources.Source(claudesources.FILES, str(managed_file(ctx, FACTS.id).parent.parent),
                                   _merged_tier(docs, ctx))
    return claudesources.gather(ctx, files)


def _merged_tier(docs: Documents, ctx: Context) -> dict[str, Any]:
    """The top-level keys the file tier sets (later files win): enough for ``managedSourcesBehavior``."""
    merged: dict[str, Any] = {}
    for layer in _tier(docs, ctx):
        merged.update(layer.value or {})
    return merged


def source_findings(docs: Documents, ctx: Context, agent_id: str) -> list[Finding]:
    """Which managed source Claude Code uses, and whether ours runs (see :mod:`elydora_cli.claudesources`)."""
    verdict, users = _verdict(docs, ctx)
    return claudesources.findings(verdict, lambda settings: _holds_ours(settings, ctx, agent_id), users)


def managed_source(docs: Documents, ctx: Context, agent_id: str) -> dict[str, Any]:
    """The compliance probe's ``managed_source``: the source used, the ones ignored, what cannot be seen."""
    verdict, _ = _verdict(docs, ctx)
    return claudesources.describe(verdict, lambda settings: _holds_ours(settings, ctx, agent_id))


ROLES = HOOKS.events
HOOK_COMMAND_REFUSED = defaults.HOOK_COMMAND_ACCEPTED
_, installed_entries, agent_argv = defaults.hook_map_agent(HOOKS)
extra_runtime = supervisor_runtime

NOTES = ("Check the hooks with /hooks inside Claude Code (or `claude doctor`); managed policy can still disable them.",)
