"""OpenHands CLI: the strict JSON hook file ``~/.openhands/hooks.json``, Claude-shaped ``"*"`` groups, seconds.

OpenHands runs a command hook through the shell (``/bin/sh -c``; on Windows ``cmd.exe``, so our Windows entries
are a PowerShell ``-EncodedCommand``), feeds it the event as JSON and blocks a ``PreToolUse`` on exit 2. A hook
marked ``"async": true`` is started and forgotten and can never block: our entries never carry it.

The file is validated as OpenHands validates it: six events, spelt in PascalCase (``PreToolUse``) or snake
case (``pre_tool_use``); an unknown event or the same event in both spellings makes OpenHands reject the
whole file. A file in the unwrapped form (events at the top level) is refused: adding a ``hooks`` key would
make OpenHands ignore the user's events. The project's ``.openhands/hooks.json`` (in the working directory, or
``$OPENHANDS_WORK_DIR``) is a read-only source: OpenHands reads it *instead of* the user file when it exists,
so our hooks do not run in that project and ``status`` is unhealthy there (seen with OpenHands CLI 1.16.0).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from elydora_config.errors import MalformedConfigError

from .. import catalog
from ..plug import defaults, hookfile
from ..plug.common import catalog_events, command_handler, encoded_command
from ..plug.context import Context
from ..plug.contract import Finding, Format, Sources
from ..plug.documents import Documents
from ..plug.hookfile import HookFile
from ..plug.hookmap import HookMap
from ..plug.schema import BOOL, NONEMPTY_STR, NONNEG_INT, STR, STR_LIST, HandlerSchema, MapSchema, nullable

if TYPE_CHECKING:
    from typing import Any

FACTS = catalog.provider("openhands")
PASCAL_EVENTS = ("PreToolUse", "PostToolUse", "UserPromptSubmit", "SessionStart", "SessionEnd", "Stop")


def snake(name: str) -> str:
    """OpenHands' own spelling rule: an underscore before every capital but the first, then lower case."""
    return "".join(f"_{c}" if i and "A" <= c <= "Z" else c for i, c in enumerate(name)).lower()


SCHEMA = MapSchema(
    HandlerSchema(
        by_type={
            "command": {"command": NONEMPTY_STR},
            "prompt": {"prompt": nullable(STR), "system_prompt": nullable(STR)},
            "agent": {"prompt": nullable(STR), "system_prompt": nullable(STR), "tools": STR_LIST},
        },
        common={"name": nullable(STR), "timeout": NONNEG_INT, "async": BOOL, "max_iterations": NONNEG_INT},
        required={"command": ["command"]},
        default_type="command",
        open_keys=True,
    ),
    events=(*PASCAL_EVENTS, *map(snake, PASCAL_EVENTS)),
    group={"matcher": STR},
)


make_handler = command_handler(encoded_command)


HOOKS = HookMap(catalog_events(FACTS), make_handler, group={"matcher": "*"})


def rules(path: Path, value: dict[str, Any], ctx: Context) -> None:
    """What OpenHands rejects or ignores beyond the schema: the unwrapped form, an event spelt twice."""
    if "hooks" not in value and value:
        first = next(iter(value))
        raise MalformedConfigError(
            path, f"keeps its events at the top level ({first!r}); move them under \"hooks\" so that ours can join them"
        )
    events = value.get("hooks", {})
    for event in PASCAL_EVENTS:
        if event in events and snake(event) in events:
            raise MalformedConfigError(path, f"hooks has both {event} and {snake(event)}; OpenHands rejects the file")
    for event in HOOKS.events:
        if snake(event) in events and event not in events:
            raise MalformedConfigError(
                path, f"hooks spells {event} as {snake(event)}; rename it to {event} so that ours can join it"
            )


FILE = HookFile(FACTS.id, HOOKS, SCHEMA, rules=rules)


WORK_DIR_VARIABLE = "OPENHANDS_WORK_DIR"
"""Moves the CLI's working directory, and with it the project hooks file it looks for."""


def project_file(ctx: Context) -> Path:
    return (ctx.env_dir(WORK_DIR_VARIABLE) or ctx.repo_root) / ".openhands" / "hooks.json"


def sources(ctx: Context) -> Sources:
    user = ctx.home / ".openhands" / "hooks.json"
    project = project_file(ctx)
    depends = [project] if os.path.abspath(project) != os.path.abspath(user) else []
    return Sources([FILE.target(user)], depends=depends, depend_formats={p: Format.JSON for p in depends})


install, uninstall, check_file = hookfile.plug(FILE)


def check(docs: Documents, ctx: Context, agent_id: str) -> list[Finding]:
    findings = check_file(docs, ctx, agent_id)
    shadow = project_file(ctx)
    if docs.depends.get(shadow) is not None:
        findings.append(Finding(SHADOWED, shadow))
    return findings


SHADOWED = (
    "this project has its own hooks.json, which OpenHands reads instead of the user file: our hooks do not run "
    "here (move its hooks into the user file and delete it)"
)


ROLES = HOOKS.events
HOOK_COMMAND_REFUSED = defaults.HOOK_COMMAND_ACCEPTED
ENV_SWITCHES = defaults.NO_ENV_SWITCHES
extra_runtime, installed_entries, agent_argv = defaults.hook_map_agent(HOOKS)

NOTES = ("Restart running OpenHands sessions so they load the new hooks.",)
