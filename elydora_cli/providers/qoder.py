"""Qoder CLI: strict JSON ``settings.json`` in ``QODER_CONFIG_DIR`` (default ``~/.qoder``, or
``$QODER_CLI_HOME/<QODER_CONFIG_DIR_NAME>``), Claude-shaped groups, exec-form handlers (``command`` + ``args``, no
shell), timeouts in seconds.

Whether hooks run is decided by ``disableAllHooks`` across three layers: the user file (which we edit) and,
read-only, the project's ``.qoder/settings.json`` and ``.qoder/settings.local.json`` (the folder is named by
``QODER_CONFIG_DIR_NAME`` when that is set). The last layer that sets it decides (project-local over project over
user). Groups and handlers of the user are kept as they are; unknown handler keys and events are tolerated, since
Qoder adds events from release to release.
"""

from __future__ import annotations

import os
import unicodedata
from pathlib import Path

from .. import catalog
from ..plug import defaults, layers, schema
from ..plug.common import RefusedError, catalog_events, exec_handler, legacy_command_only, switched_plug
from ..plug.context import Context
from ..plug.contract import Format, Sources, Target
from ..plug.documents import Documents
from ..plug.hookmap import HookMap

FACTS = catalog.provider("qoder")
CONFIG_DIR_ENV = str(FACTS.config.env)  # QODER_CONFIG_DIR
CLI_HOME_ENV = "QODER_CLI_HOME"
DIR_NAME_ENV = "QODER_CONFIG_DIR_NAME"
DEFAULT_DIR_NAME = ".qoder"
PROTECTED_DIR_NAMES = frozenset({".git", ".svn", ".hg", ".vscode", ".idea", ".husky", ".github", "node_modules",
                                 "bower_components"})
"""Names Qoder refuses for its folder (compared without regard to case)."""
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


def dir_name(ctx: Context) -> str:
    """The folder name Qoder uses for the user root (without a full path) and for the project's folder."""
    name = ctx.env_value(DIR_NAME_ENV)
    if not name:  # unset or strictly empty: Qoder's default
        return DEFAULT_DIR_NAME
    name = unicodedata.normalize("NFC", name)
    if (len(name) > 64 or name != name.strip() or name.endswith(".") or "/" in name or "\\" in name
            or name.lower() in PROTECTED_DIR_NAMES):
        raise RefusedError(None, f"{DIR_NAME_ENV}={name!r} is not a folder name Qoder accepts (it would not start)")
    return name


def config_dir(ctx: Context) -> Path:
    """Qoder's order: ``QODER_CONFIG_DIR`` (the whole root), else ``QODER_CLI_HOME`` or the home, plus the
    folder name (``QODER_CONFIG_DIR_NAME``, default ``.qoder``)."""
    configured = ctx.env_value(CONFIG_DIR_ENV)
    if configured == "":
        raise RefusedError(None, "QODER_CONFIG_DIR is set but empty: unset it (Qoder then uses ~/.qoder) or name one")
    if configured:
        return Path(os.path.abspath(ctx.place(configured)))
    cli_home = ctx.env_value(CLI_HOME_ENV)
    base = Path(os.path.abspath(ctx.place(cli_home))) if cli_home else ctx.home
    return base / dir_name(ctx)


def sources(ctx: Context) -> Sources:
    project = ctx.repo_root / dir_name(ctx)
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
ENV_SWITCHES = defaults.NO_ENV_SWITCHES
extra_runtime, installed_entries, agent_argv = defaults.hook_map_agent(HOOKS)

NOTES = ("Open /hooks in Qoder CLI to see the Elydora hooks; restart running sessions so they load them.",)
