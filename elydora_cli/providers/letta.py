"""Letta Code: strict JSON ``<HOME>/.letta/settings.json`` edited in place, ``"*"`` groups, milliseconds.

Whether hooks run is decided by ``hooks.disabled`` across three files: the user file (which we edit) and,
read-only, the project's ``.letta/settings.json`` (only when the project is not the home directory) and
``.letta/settings.local.json``. The audit runtime is fail-closed (catalog); the guard is fail-open.
"""

from __future__ import annotations

import os
from pathlib import Path

from .. import catalog
from ..plug import common, defaults, layers
from ..plug.common import (
    catalog_events,
    command_handler,
)
from ..plug.context import Context
from ..plug.contract import Format, Sources, Target
from ..plug.documents import Documents
from ..plug.hookmap import HookMap
from ..plug.schema import BOOL, NONEMPTY_STR, NONNEG_NUMBER, STR, HandlerSchema, MapSchema

FACTS = catalog.provider("letta")
TOOL_EVENTS = ("PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionRequest")
SIMPLE_EVENTS = (
    "UserPromptSubmit",
    "Notification",
    "Stop",
    "SubagentStop",
    "PreCompact",
    "SessionStart",
    "SessionEnd",
)
SWITCH = ("hooks", "disabled")
PRETTY_EMPTY = "{\n}\n"
"""A new file: an empty object whose line break makes our entries come out indented."""
SCHEMA = MapSchema(
    HandlerSchema(
        by_type={"command": {"command": NONEMPTY_STR}, "prompt": {"prompt": NONEMPTY_STR, "model": STR}},
        common={"timeout": NONNEG_NUMBER, "quiet": BOOL},
        required={"command": ["command"], "prompt": ["prompt"]},
        open_keys=True,
    ),
    events=TOOL_EVENTS + SIMPLE_EVENTS,
    unknown_events="keep",
    open_group_keys=True,
    simple_events=SIMPLE_EVENTS,
    matcher_required=True,
    switches={"disabled": BOOL},
)


make_handler = command_handler()


HOOKS = HookMap(
    events=catalog_events(FACTS),
    make=make_handler,
    group={"matcher": "*"},
    unit="ms",
    legacy=common.first_match(common.legacy_command_only(), common.reference_command()),
)


def letta_home(ctx: Context) -> Path:
    """``$HOME`` when set and non-empty (made absolute), else the home; ``--root`` stands for the home itself."""
    value = ctx.env_value("HOME")
    if ctx.rooted or not value:
        return ctx.home
    return Path(os.path.abspath(ctx.place(value)))


def sources(ctx: Context) -> Sources:
    home = letta_home(ctx)
    project = ctx.repo_root / ".letta"
    depends = [project / "settings.local.json"]
    if os.path.realpath(ctx.repo_root) != os.path.realpath(home):
        depends.insert(0, project / "settings.json")
    return Sources(
        [Target(home / ".letta" / "settings.json", Format.JSON, new_text=PRETTY_EMPTY)],
        depends=depends,
        depend_formats={path: Format.JSON for path in depends},
        blank_is_empty=True,  # Letta Code 0.34 reads a settings file it cannot parse as its defaults
    )


def disabled_by(docs: Documents) -> layers.Setting | None:
    """The setting that switches Letta's hooks off, else ``None``.

    The user file decides whenever it sets ``hooks.disabled`` (``false`` wins over every project file);
    otherwise a ``true`` in the project file or in the project-local file disables.
    """
    user, *project = layers.layers(docs, [next(iter(docs.targets)), *docs.depends])
    own = layers.first_explicit([user], SWITCH)
    if own is not None:
        return own if own.value is True else None
    return next((s for s in layers.explicit(project, SWITCH) if s.value is True), None)


def _override(setting: layers.Setting, path: Path) -> str:
    return "" if setting.path == path else f" (or set hooks.disabled to false in {path}, which wins)"


install, uninstall, check = common.switched_plug(SCHEMA, HOOKS, "Letta Code", disabled_by, _override)


ROLES = HOOKS.events
HOOK_COMMAND_REFUSED = defaults.HOOK_COMMAND_ACCEPTED
ENV_SWITCHES = defaults.NO_ENV_SWITCHES
extra_runtime, installed_entries, agent_argv = defaults.hook_map_agent(HOOKS)

NOTES = ("Open /hooks in Letta Code to see the Elydora hooks; restart running sessions so they load them.",)
