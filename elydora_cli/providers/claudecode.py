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

from pathlib import Path
from typing import TYPE_CHECKING

from .. import catalog, managed
from ..plug import defaults, lockdown
from ..plug.cmdforms import shell_plain
from ..plug.common import (
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
from ..plug.layers import EnvSwitch, Setting, explicit, last_explicit, layers, managed_file, same_file, switched_off
from ..plug.ownership import Ref, refs_in, runtime_argv, runtime_context, supervisor_runtime
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


def project_files(ctx: Context, user_file: Path) -> list[Path]:
    """``<project>/.claude/settings.json`` and ``settings.local.json``, unless that folder is the user's own."""
    folder = ctx.repo_root / ".claude"
    return [] if same_file(folder, user_file.parent) else [folder / name for name in PROJECT_FILES]


def sources(ctx: Context) -> Sources:
    if ctx.system:  # managed-settings.json: same schema as settings.json, read by every user's Claude Code
        return Sources(
            [Target(managed_file(ctx, FACTS.id), Format.JSON, mode=managed.POLICY_MODE)], blank_is_empty=True
        )
    configured = ctx.env_value("CLAUDE_CONFIG_DIR")
    directory = ctx.place(configured) if configured is not None else ctx.home / ".claude"
    user = directory / "settings.json"
    depends = [*project_files(ctx, user), *([] if ctx.windows else [managed_file(ctx, FACTS.id)])]
    # Claude Code reads a settings file that holds only whitespace (or nothing) as no settings at all
    return Sources([Target(user, Format.JSON)], depends, dict.fromkeys(depends, Format.JSON), blank_is_empty=True)


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
    managed_files = [] if ctx.windows else [managed_file(ctx, FACTS.id)]
    chain = layers(docs, [user, *project_files(ctx, user), *managed_files])
    found = [s for s in [last_explicit(chain, SWITCH)] if s is not None and s.value]
    policy = layers(docs, managed_files)
    found += [s for s in explicit(policy, MANAGED_ONLY[0]) if s.value]
    found += [s for s in explicit(policy, MANAGED_ONLY[1], ANY) if s.value is True or _names_hooks(s.value)]
    return found


def _names_hooks(value: Any) -> bool:
    return isinstance(value, list) and "hooks" in value


def install(docs: Documents, ctx: Context, agent_id: str) -> None:
    path, value = _settings(docs)
    refuse_if(
        isinstance(value, dict) and value.get(SWITCH) is True,
        path,
        "Claude Code hooks are disabled by disableAllHooks: true; remove it to install",
    )
    if ctx.system:  # before our entries: a reinstall re-adds them at the end, after the switch
        lockdown.apply(docs, path, ctx, LOCKDOWN_KEY)
    add_hooks(docs, path, HOOKS, ctx, agent_id)


def uninstall(docs: Documents, ctx: Context, agent_ids: set[str] | None) -> None:
    path, _ = _settings(docs)
    if ctx.system and agent_ids is None:
        lockdown.remove(docs, path, LOCKDOWN_KEY)
    remove_hooks(docs, path, HOOKS, ctx, agent_ids)


def check(docs: Documents, ctx: Context, agent_id: str) -> list[Finding]:
    path, value = _settings(docs)
    off = [Setting(path, True, SWITCH)] if isinstance(value, dict) and value.get(SWITCH) is True else []
    if not ctx.system:  # managed hooks run whatever a user or project layer says, unless managed settings say
        off = switched(docs, ctx)
    if off:
        return [switched_off(s, FACTS.display_name, _fix(s)) for s in off]
    found = check_hooks(docs, path, HOOKS, ctx, agent_id)
    if ctx.system:
        found += lockdown.check(docs, path, LOCKDOWN_KEY, LOCKDOWN_OFF)
    return found


ROLES = HOOKS.events
HOOK_COMMAND_REFUSED = defaults.HOOK_COMMAND_ACCEPTED
_, installed_entries, agent_argv = defaults.hook_map_agent(HOOKS)
extra_runtime = supervisor_runtime

NOTES = ("Check the hooks with /hooks inside Claude Code (or `claude doctor`); managed policy can still disable them.",)
