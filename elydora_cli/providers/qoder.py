"""Qoder CLI: strict JSON ``settings.json`` in ``QODER_CONFIG_DIR`` (default ``~/.qoder``), Claude-shaped groups,
exec-form handlers (``command`` + ``args``, no shell), timeouts in seconds.

Whether hooks run is decided by ``disableAllHooks`` across three layers: the user file (which we edit) and,
read-only, the project's ``.qoder/settings.json`` and ``.qoder/settings.local.json``. The last layer that sets
it decides (project-local over project over user). Groups and handlers of the user are kept as they are;
unknown handler keys and events are tolerated, since Qoder adds events from release to release.
"""

from __future__ import annotations

import os
from pathlib import Path

from .. import catalog
from ..plug import defaults, layers, schema
from ..plug.common import RefusedError, catalog_events, exec_handler, legacy_command_only, switched_plug
from ..plug.context import Context
from ..plug.contract import Format, Sources, Target
from ..plug.documents import Documents
from ..plug.hookmap import HookMap

FACTS = catalog.provider("qoder")
SWITCH = "disableAllHooks"
EVENTS = (
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "PermissionRequest",
    "SessionStart",
    "SessionEnd",
    "SubagentStart",
    "SubagentStop",
    "TeammateIdle",
    "Stop",
    "StopFailure",
    "PreCompact",
    "PostCompact",
    "UserPromptSubmit",
    "ConfigChange",
    "Notification",
    "InstructionsLoaded",
    "CwdChanged",
    "FileChanged",
    "WorktreeCreate",
    "WorktreeRemove",
    "TaskCreated",
    "TaskCompleted",
)
SCHEMA = schema.MapSchema(
    schema.HandlerSchema(
        by_type={
            "command": {
                "command": schema.NONEMPTY_STR,
                "args": schema.STR_LIST,
                "asyncRewake": schema.BOOL,
                "rewakeMessage": schema.NONEMPTY_STR,
                "rewakeSummary": schema.NONEMPTY_STR,
                "shell": schema.one_of("bash", "powershell"),
            },
            "http": {"url": schema.HTTP_URL, "headers": schema.STR_MAP},
            "prompt": {"prompt": schema.NONEMPTY_STR, "model": schema.STR},
            "agent": {"prompt": schema.NONEMPTY_STR, "model": schema.STR, "tools": schema.STR_LIST},
        },
        common={
            "if": schema.STR,
            "name": schema.STR,
            "statusMessage": schema.STR,
            "timeout": schema.POS_NUMBER,
            "async": schema.BOOL,
        },
        required={"command": ["command"], "http": ["url"], "prompt": ["prompt"], "agent": ["prompt"]},
        open_keys=True,
    ),
    events=EVENTS,
    unknown_events="keep",
    group={"matcher": schema.STR, "sequential": schema.BOOL, "async": schema.BOOL},
    open_group_keys=True,
)


make_handler = exec_handler()


HOOKS = HookMap(events=catalog_events(FACTS), make=make_handler, legacy=legacy_command_only())


def config_dir(ctx: Context) -> Path:
    configured = ctx.env_value("QODER_CONFIG_DIR")
    if configured == "":
        raise RefusedError(None, "QODER_CONFIG_DIR is set but empty: unset it (Qoder then uses ~/.qoder) or name one")
    return Path(os.path.abspath(ctx.place(configured))) if configured else ctx.home / ".qoder"


def sources(ctx: Context) -> Sources:
    project = ctx.repo_root / ".qoder"
    depends = [project / "settings.json", project / "settings.local.json"]
    user = config_dir(ctx) / "settings.json"
    depends = [path for path in depends if os.path.abspath(path) != os.path.abspath(user)]
    return Sources(
        [Target(user, Format.JSON, new_text="{\n}\n")],
        depends=depends,
        depend_formats={path: Format.JSON for path in depends},
    )


def disabled_by(docs: Documents) -> layers.Setting | None:
    """The layer that switches Qoder's hooks off (the last one that sets ``disableAllHooks`` decides)."""
    setting = layers.last_explicit(layers.layers(docs, [next(iter(docs.targets)), *docs.depends]), SWITCH)
    return setting if setting is not None and setting.value is True else None


install, uninstall, check = switched_plug(SCHEMA, HOOKS, "Qoder CLI", disabled_by)


ROLES = HOOKS.events
HOOK_COMMAND_REFUSED = defaults.HOOK_COMMAND_ACCEPTED
extra_runtime, installed_entries, agent_argv = defaults.hook_map_agent(HOOKS)

NOTES = ("Open /hooks in Qoder CLI to see the Elydora hooks; restart running sessions so they load them.",)
