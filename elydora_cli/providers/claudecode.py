"""Claude Code: strict JSON ``settings.json``, exec-form handlers (``command`` + ``args``), seconds."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .. import catalog
from ..plug import defaults
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
from ..plug.schema import (
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


make_handler = exec_handler(status_messages=True)


HOOKS = HookMap(
    events=catalog_events(FACTS),
    make=make_handler,
    legacy=legacy_command_only(),
    keep_emptied_groups=True,
)


def sources(ctx: Context) -> Sources:
    configured = ctx.env_value("CLAUDE_CONFIG_DIR")
    directory = ctx.place(configured) if configured is not None else ctx.home / ".claude"
    return Sources([Target(directory / "settings.json", Format.JSON)])


def _settings(docs: Documents) -> tuple[Path, Any]:
    path = next(iter(docs.targets))
    value = validated(docs, path, SCHEMA)
    require_type(path, value, "disableAllHooks", BOOL)
    return path, value


def install(docs: Documents, ctx: Context, agent_id: str) -> None:
    path, value = _settings(docs)
    refuse_if(
        isinstance(value, dict) and value.get("disableAllHooks") is True,
        path,
        "Claude Code hooks are disabled by disableAllHooks: true; remove it to install",
    )
    add_hooks(docs, path, HOOKS, ctx, agent_id)


def uninstall(docs: Documents, ctx: Context, agent_ids: set[str] | None) -> None:
    path, _ = _settings(docs)
    remove_hooks(docs, path, HOOKS, ctx, agent_ids)


def check(docs: Documents, ctx: Context, agent_id: str) -> list[Finding]:
    path, value = _settings(docs)
    if isinstance(value, dict) and value.get("disableAllHooks") is True:
        return [Finding("hooks are disabled by disableAllHooks: true", path)]
    return check_hooks(docs, path, HOOKS, ctx, agent_id)


ROLES = HOOKS.events
HOOK_COMMAND_REFUSED = defaults.HOOK_COMMAND_ACCEPTED
extra_runtime, installed_entries, agent_argv = defaults.hook_map_agent(HOOKS)

NOTES = ("Check the hooks with /hooks inside Claude Code (or `claude doctor`); managed policy can still disable them.",)
