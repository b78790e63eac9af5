"""Qwen Code: JSONC ``settings.json`` (no trailing commas) in the Qwen home, named handlers, milliseconds.

The Qwen home comes from ``QWEN_HOME``, possibly set in a ``.env`` file (:func:`resolve_home`). Whether hooks
run is the last explicit ``disableAllHooks`` across system defaults, user, trusted workspace and system
settings (:func:`disabled`). Every file consulted, ``.env`` files included, is a snapshot precondition.
Under ``--scope system`` the one file is the system settings, with the hooks-on pin (:mod:`..plug.systempin`).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from elydora_config.errors import ConcurrentModificationError, MalformedConfigError
from elydora_config.records import record

from .. import catalog
from ..plug import defaults, dotenv, schema, systempin
from ..plug.cmdforms import powershell_call
from ..plug.common import add_hooks, catalog_events, check_hooks, refuse_if, remove_hooks, shell_command
from ..plug.context import Context
from ..plug.contract import Finding, Format, Sources, Target
from ..plug.documents import Documents, parse
from ..plug.hookmap import HookMap
from ..plug.jsregex import group_patterns, require_compilable
from ..plug.layers import (
    EnvSwitch,
    Layer,
    Setting,
    explicit,
    first_explicit,
    last_explicit,
    layer,
    managed_file,
    switched_off,
)
from ..plug.ownership import Ref, runtime_argv
from ..plug.pairforms import OldShape, exactly, recogniser
from ..plug.schema import (
    BOOL,
    NONEMPTY_STR,
    NONNEG_NUMBER,
    STR,
    STR_LIST,
    STR_MAP,
    HandlerSchema,
    MapSchema,
    one_of,
    require_type,
)

if TYPE_CHECKING:
    from typing import Any

FACTS = catalog.provider("qwen")
DIALECT = Format.JSONC_NO_TRAILING_COMMAS
EVENTS = [
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "PostToolBatch",
    "Notification",
    "UserPromptSubmit",
    "UserPromptExpansion",
    "SessionStart",
    "Stop",
    "MessageDisplay",
    "SubagentStart",
    "SubagentStop",
    "PreCompact",
    "PostCompact",
    "SessionEnd",
    "PermissionRequest",
    "PermissionDenied",
    "StopFailure",
    "TodoCreated",
    "TodoCompleted",
    "InstructionsLoaded",
]
MATCHER_EVENTS = frozenset(EVENTS) - {
    "PostToolBatch",
    "UserPromptSubmit",
    "Stop",
    "MessageDisplay",
    "TodoCreated",
    "TodoCompleted",
}
"""The events whose ``matcher`` Qwen compiles as a JavaScript RegExp (unless blank or ``*``)."""
SCHEMA = MapSchema(
    HandlerSchema(
        by_type={
            "command": {"command": NONEMPTY_STR, "env": STR_MAP, "async": BOOL, "shell": one_of("bash", "powershell")},
            "http": {"url": NONEMPTY_STR, "headers": STR_MAP, "once": BOOL, "if": STR, "allowedEnvVars": STR_LIST},
            "prompt": {"prompt": NONEMPTY_STR, "model": STR},
        },
        common={"timeout": NONNEG_NUMBER, "name": STR, "description": STR, "statusMessage": STR, "source": STR},
        required={"command": ["command"], "http": ["url"], "prompt": ["prompt"]},
        open_keys=True,
    ),
    events=EVENTS,
    unknown_events="keep",
    group={"matcher": STR, "sequential": BOOL},
    open_group_keys=True,
)
NAMES = {"guard": "elydora-guard", "audit": "elydora-audit"}
HOME_KEY, RUNTIME_KEY = "QWEN_HOME", "QWEN_RUNTIME_DIR"
TRUST_LEVELS = ("TRUST_FOLDER", "TRUST_PARENT", "DO_NOT_TRUST")
FOLDER_TRUST = ("security", "folderTrust", "enabled")
SANDBOX = ("tools", "executionSandbox")
"""Qwen Code 0.24.4 ``getDisableAllHooks``: true while a shell execution sandbox is configured (any layer)."""
ENV_SWITCHES = (
    EnvSwitch("QWEN_CODE_SAFE_MODE", "safe mode"),
    EnvSwitch("QWEN_CODE_SIMPLE", "bare mode"),
)
"""Qwen Code 0.24.4 ``getDisableAllHooks``: safe mode (also ``--safe-mode``) and bare mode (also ``--bare``)
switch every hook off, system ones included."""


FORMS = ("posix", "call")
"""The Python SDK installer's command forms (no interpreter flags)."""
UNNAMED_CHECKS = {"type": exactly("command"), "shell": one_of("bash", "powershell"), "timeout": exactly(10000)}
NAMED_CHECKS = {**UNNAMED_CHECKS, "name": one_of(*NAMES.values())}


def make_handler(ref: Ref, ctx: Context) -> dict[str, Any]:
    command = powershell_call(runtime_argv(ref, ctx)) if ctx.windows else shell_command(ref, ctx)
    shell = "powershell" if ctx.windows else "bash"
    return {"type": "command", "name": NAMES[ref.role], "command": command, "shell": shell, "timeout": ref.timeout}


HOOKS = HookMap(
    events=catalog_events(FACTS),
    make=make_handler,
    unit="ms",
    legacy=recogniser(
        OldShape(frozenset(NAMED_CHECKS) | {"command"}, "command", FORMS, NAMED_CHECKS),  # the Python SDK installer's
        OldShape(frozenset(UNNAMED_CHECKS) | {"command"}, "command", FORMS, UNNAMED_CHECKS),  # its older "*" groups
    ),
)


# -- where Qwen Code lives ---------------------------------------------------------------------------------


def expand(ctx: Context, value: str) -> Path:
    """A home value: ``~`` and ``~/...`` use the OS home, relative values the working directory."""
    if value == "~":
        return ctx.home
    if value.startswith(("~/", "~\\")):
        return ctx.home / value[2:]
    return ctx.place(value)


@record(frozen=True)
class QwenHome:
    path: Path
    env_files: tuple[Path, ...]
    """The ``.env`` files consulted to find it, in reading order."""


def resolve_home(ctx: Context, read: Callable[[Path], str | None]) -> QwenHome:
    """Qwen Code 0.20's home: ``QWEN_HOME`` from the environment or the first ``.env`` file that sets it.

    With both ``QWEN_HOME`` and ``QWEN_RUNTIME_DIR`` non-empty in the environment no file is read. Otherwise
    the initial home's ``.env`` is read, then (only when ``QWEN_HOME`` is empty or unset) the OS home's
    ``.env``; a variable present in the environment, even empty, is never taken from a file. A home found in
    a file has its own ``.env`` read too. An empty result means ``~/.qwen``.
    """
    configured = ctx.env_value(HOME_KEY) or ""
    if configured and ctx.env_value(RUNTIME_KEY):
        return QwenHome(expand(ctx, configured), ())
    default = ctx.home / ".qwen"
    initial = expand(ctx, configured) if configured else default
    files = [initial / ".env"] + ([] if configured else [ctx.home / ".env"])
    value = dotenv.owned_or_first(HOME_KEY, ctx.env, [dotenv.parse(read(p) or "") for p in files])
    home = expand(ctx, value) if value else default
    if home / ".env" not in files:
        files.append(home / ".env")
        read(home / ".env")
    return QwenHome(home, tuple(files))


def system_settings(ctx: Context) -> Path:
    configured = ctx.env_value("QWEN_CODE_SYSTEM_SETTINGS_PATH")
    return ctx.place(configured) if configured else managed_file(ctx, FACTS.id)


def system_defaults(ctx: Context) -> Path:
    configured = ctx.env_value("QWEN_CODE_SYSTEM_DEFAULTS_PATH")
    return ctx.place(configured) if configured else system_settings(ctx).parent / "system-defaults.json"


def workspace_settings(ctx: Context) -> Path | None:
    """``<cwd>/.qwen/settings.json``, consulted only when the working directory is not the home directory."""
    cwd = Path(os.path.realpath(ctx.repo_root))
    return None if cwd == Path(os.path.realpath(ctx.home)) else cwd / ".qwen" / "settings.json"


def trusted_folders(ctx: Context, home: Path) -> Path:
    configured = ctx.env_value("QWEN_CODE_TRUSTED_FOLDERS_PATH")
    return ctx.place(configured) if configured else home / "trustedFolders.json"


@record(frozen=True)
class Places:
    home: QwenHome
    settings: Path
    system: Path
    defaults: Path
    workspace: Path | None
    trust: Path


def _disk(ctx: Context) -> Callable[[Path], str | None]:
    """How :func:`sources` reads a ``.env`` file: through the context's reads (once per status pass)."""
    return lambda path: ctx.reads.read_physical(path, max_bytes=2 << 20, text=True)


def places(ctx: Context, read: Callable[[Path], str | None]) -> Places:
    home = resolve_home(ctx, read)
    return Places(
        home,
        home.path / "settings.json",
        system_settings(ctx),
        system_defaults(ctx),
        workspace_settings(ctx),
        trusted_folders(ctx, home.path),
    )


PIN = systempin.Pin(("disableAllHooks",), False, "Qwen Code")
"""Under ``--scope system``: the system file is merged last, so its ``disableAllHooks: false`` beats a
user's or project's ``true`` (Qwen Code 0.24 ``mergeSettings``)."""


def sources(ctx: Context) -> Sources:
    if ctx.system:  # /etc/qwen-code/settings.json: its hooks are Qwen's system hooks, for every user
        return systempin.sources(ctx, FACTS.id, DIALECT)
    where = places(ctx, _disk(ctx))
    settings = [p for p in (where.defaults, where.workspace, where.system) if p is not None and p != where.settings]
    depends = [p for p in dict.fromkeys([*where.home.env_files, *settings, where.trust]) if p != where.settings]
    target = Target(where.settings, DIALECT, new_text="// Managed by Elydora\n{}\n")
    return Sources([target], depends, {p: DIALECT for p in settings})


def _places(docs: Documents, ctx: Context) -> Places:
    """The places again, from the ``.env`` texts this operation read: a change in between aborts it."""
    target = next(iter(docs.targets))

    def read(path: Path) -> str | None:
        if path not in docs.depends:
            raise ConcurrentModificationError(path, "changed while the Qwen Code home was resolved; run it again")
        text: str | None = docs.depends[path]
        return text

    where = places(ctx, read)
    if where.settings != target:
        raise ConcurrentModificationError(target, "the Qwen Code home changed while it was resolved; run it again")
    return where


# -- whether Qwen Code runs hooks ----------------------------------------------------------------------------


def settings_layers(docs: Documents, where: Places) -> dict[str, Layer]:
    paths = {"defaults": where.defaults, "user": where.settings, "workspace": where.workspace, "system": where.system}
    return {name: layer(docs, path) for name, path in paths.items() if path is not None}


def validate(settings: Mapping[str, Layer]) -> None:
    """Every settings file's hook map, and every matcher Qwen compiles, before anything is decided."""
    patterns = []
    for source in settings.values():
        if source.value is None:
            continue
        schema.validate_hookmap(source.value, source.path, SCHEMA)
        patterns += group_patterns(
            source.value,
            source.path,
            SCHEMA.container,
            events=MATCHER_EVENTS,
            literal=lambda p: not p.strip() or p == "*",
        )
    require_compilable(patterns)


def folder_trusted(rules: Any, path: Path, cwd: Path, windows: bool = False) -> bool:
    """Qwen's folder trust for ``cwd``: inside a ``TRUST_FOLDER`` path or a ``TRUST_PARENT`` path's parent is
    trusted; otherwise exactly a ``DO_NOT_TRUST`` path is untrusted; anything else is trusted."""
    if not isinstance(rules, dict):
        raise MalformedConfigError(path, "the top level must be an object of folder paths to trust levels")
    for folder, level in rules.items():
        if level not in TRUST_LEVELS:
            raise MalformedConfigError(path, f"{folder} has trust level {level!r}; expected {', '.join(TRUST_LEVELS)}")

    def norm(p: str | Path) -> str:
        text = os.path.normpath(os.path.join(cwd, p))
        return text.casefold() if windows else text

    here = norm(cwd)
    roots = [
        norm(f if lv == "TRUST_FOLDER" else os.path.dirname(norm(f))) for f, lv in rules.items() if lv != "DO_NOT_TRUST"
    ]
    if any(here == root or here.startswith(root.rstrip(os.sep) + os.sep) for root in roots):
        return True
    return not any(here == norm(f) for f, lv in rules.items() if lv == "DO_NOT_TRUST")


def workspace_trusted(docs: Documents, ctx: Context, where: Places, settings: Mapping[str, Layer]) -> bool:
    """Trusted unless folder trust is on (the user's ``security.folderTrust.enabled`` over the system's) and
    the trusted-folders file says otherwise."""
    enabled = first_explicit([settings["user"], settings["system"]], FOLDER_TRUST)
    if enabled is None or not enabled.value:
        return True
    text = docs.depends.get(where.trust)
    rules = parse(text, DIALECT, where.trust).value if isinstance(text, str) else {}
    return folder_trusted(rules, where.trust, Path(os.path.abspath(ctx.repo_root)), ctx.windows)


def disabled(docs: Documents, ctx: Context, where: Places, settings: Mapping[str, Layer]) -> Setting | None:
    """The ``disableAllHooks: true`` that wins (last explicit one of system defaults, user, the workspace when
    it is consulted and trusted, system settings), else a shell execution sandbox set in one of them, else
    ``None``."""
    chain = [settings["defaults"], settings["user"]]
    if "workspace" in settings and workspace_trusted(docs, ctx, where, settings):
        chain.append(settings["workspace"])
    chain.append(settings["system"])
    setting = last_explicit(chain, "disableAllHooks")
    if setting is not None and setting.value:
        return setting
    return next(iter(explicit(chain, SANDBOX, schema.OBJECT)), None)


def _fix(setting: Setting) -> str:
    if setting.key == "disableAllHooks":
        return "remove it (or set it to false)"
    return "Qwen Code runs no hook while a shell execution sandbox is configured: remove it"


def _prepared(docs: Documents, ctx: Context) -> tuple[Places, Setting | None]:
    where = _places(docs, ctx)
    settings = settings_layers(docs, where)
    validate(settings)
    return where, disabled(docs, ctx, where, settings)


def _system_file(docs: Documents) -> Path:
    """Under ``--scope system`` the one file is the system settings: its hook map and switch are checked."""
    path = next(iter(docs.targets))
    source = layer(docs, path)
    validate({"system": source})
    require_type(path, source.value, "disableAllHooks", BOOL)
    return path


def install(docs: Documents, ctx: Context, agent_id: str) -> None:
    if ctx.system:
        systempin.install(docs, _system_file(docs), PIN, HOOKS, ctx, agent_id)
        return
    where, off = _prepared(docs, ctx)
    if off is not None:
        refuse_if(True, off.path, f"Qwen Code hooks are disabled ({off.describe()}); enable them to install")
    add_hooks(docs, where.settings, HOOKS, ctx, agent_id)


def uninstall(docs: Documents, ctx: Context, agent_ids: set[str] | None) -> None:
    if ctx.system:
        systempin.uninstall(docs, _system_file(docs), PIN, HOOKS, ctx, agent_ids)
        return
    where = _places(docs, ctx)
    validate(settings_layers(docs, where))
    remove_hooks(docs, where.settings, HOOKS, ctx, agent_ids)


def check(docs: Documents, ctx: Context, agent_id: str) -> list[Finding]:
    if ctx.system:
        return systempin.check_system(docs, _system_file(docs), PIN, HOOKS, ctx, agent_id)
    where, off = _prepared(docs, ctx)
    if off is not None:
        return [switched_off(off, FACTS.display_name, _fix(off))]
    return check_hooks(docs, where.settings, HOOKS, ctx, agent_id)


def agent_argv(handler: Mapping[str, Any], ctx: Context) -> list[str]:
    """How Qwen Code runs a command handler: through the shell the handler names."""
    if handler.get("shell") == "powershell":
        return ["powershell", "-NoProfile", "-Command", handler["command"]]
    return ["bash", "-c", handler["command"]]


ROLES = HOOKS.events
HOOK_COMMAND_REFUSED = defaults.HOOK_COMMAND_ACCEPTED
extra_runtime = defaults.no_extra_runtime
installed_entries = defaults.entries_in(defaults.first_target(HOOKS))

NOTES = ("Check the hooks with /hooks inside Qwen Code, then restart running sessions so they load them.",)
