"""Gemini CLI: JSONC ``settings.json`` (no trailing commas), named handlers, timeouts in milliseconds.

Under ``--scope system`` the file is the system settings, with the hooks-on pin (:mod:`..plug.systempin`)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from .. import catalog
from ..plug import common, defaults, systempin
from ..plug.cmdforms import encoded_powershell
from ..plug.common import add_hooks, catalog_events, check_hooks, refuse_if, remove_hooks, shell_command
from ..plug.context import Context
from ..plug.contract import Finding, Format, Sources, Target
from ..plug.documents import Documents
from ..plug.hookmap import HookMap
from ..plug.layers import (
    EnvSwitch,
    Setting,
    exactly,
    explicit,
    last_explicit,
    layers,
    managed_file,
    same_file,
    switched_off,
)
from ..plug.ownership import Ref, refs_in, runtime_argv
from ..plug.schema import (
    BOOL,
    NONEMPTY_STR,
    NONNEG_NUMBER,
    STR,
    STR_LIST,
    STR_MAP,
    Check,
    HandlerSchema,
    MapSchema,
    require_type,
)

if TYPE_CHECKING:
    from typing import Any

FACTS = catalog.provider("gemini")
EVENTS = [
    "BeforeTool",
    "AfterTool",
    "BeforeAgent",
    "Notification",
    "AfterAgent",
    "SessionStart",
    "SessionEnd",
    "PreCompress",
    "BeforeModel",
    "AfterModel",
    "BeforeToolSelection",
]
SCHEMA = MapSchema(
    HandlerSchema(
        by_type={"command": {"command": NONEMPTY_STR}},
        common={"name": STR, "description": STR, "source": STR, "timeout": NONNEG_NUMBER, "env": STR_MAP},
        required={"command": ["command"]},
        open_keys=True,
    ),
    events=EVENTS,
    unknown_events="keep",
    group={"matcher": STR, "sequential": BOOL},
)
NAMES = {"guard": "elydora-guard", "audit": "elydora-audit"}
HOOKS_CONFIG = Check(
    lambda v: (
        isinstance(v, dict)
        and set(v) <= {"enabled", "disabled", "notifications"}
        and BOOL.test(v.get("enabled", True))
        and STR_LIST.test(v.get("disabled", []))
        and BOOL.test(v.get("notifications", True))
    ),
    "an object with only enabled (boolean), disabled (list of strings) and notifications (boolean)",
)


def make_handler(ref: Ref, ctx: Context) -> dict[str, Any]:
    argv = runtime_argv(ref, ctx)
    command = encoded_powershell(argv, ctx.env, call_operator=True) if ctx.windows else shell_command(ref, ctx)
    return {"type": "command", "name": NAMES[ref.role], "command": command, "timeout": ref.timeout}


HOOKS = HookMap(events=catalog_events(FACTS), make=make_handler, unit="ms", legacy=common.legacy_command_only())


PIN = systempin.Pin(("hooksConfig", "enabled"), True, "Gemini CLI")
"""Under ``--scope system``: the system file is merged last, so its ``hooksConfig.enabled: true`` beats a
user's ``false`` (Gemini CLI 0.61 ``mergeSettings``)."""


ENABLED, DISABLED = ("hooksConfig", "enabled"), ("hooksConfig", "disabled")
ENV_SWITCHES = (
    EnvSwitch("GEMINI_CLI_TRUST_WORKSPACE", "an untrusted folder (no settings hook runs there)", exactly("false")),
    EnvSwitch("GEMINI_RESTRICTED_MODE", "restricted mode (every folder untrusted, no settings hook runs)",
              exactly("true")),
)
"""Gemini CLI 0.61 ``checkPathTrust``: either variable makes every folder untrusted, and the hook registry
registers no settings hook, system ones included, in an untrusted folder."""


def system_settings(ctx: Context) -> Path:
    """``GEMINI_CLI_SYSTEM_SETTINGS_PATH``, else the managed layer (the one ``--scope system`` writes)."""
    configured = None if ctx.system else ctx.env_value("GEMINI_CLI_SYSTEM_SETTINGS_PATH")
    return ctx.place(configured) if configured else managed_file(ctx, FACTS.id)


def system_defaults(ctx: Context) -> Path:
    configured = ctx.env_value("GEMINI_CLI_SYSTEM_DEFAULTS_PATH")
    return ctx.place(configured) if configured else system_settings(ctx).parent / "system-defaults.json"


def gemini_home(ctx: Context) -> Path:
    return ctx.env_dir("GEMINI_CLI_HOME") or ctx.home


def workspace_settings(ctx: Context) -> Path | None:
    """``<project>/.gemini/settings.json``, read unless the project folder is the (Gemini) home directory."""
    return None if same_file(ctx.repo_root, gemini_home(ctx)) else ctx.repo_root / ".gemini" / "settings.json"


def chain(ctx: Context) -> list[Path]:
    """Gemini's settings files in merge order (later wins): system defaults, user, workspace, system. Under
    ``--scope system`` the system file is the managed layer we write, and no user's own file is at hand."""
    user = None if ctx.system else gemini_home(ctx) / ".gemini" / "settings.json"
    files = [system_defaults(ctx), user, workspace_settings(ctx), system_settings(ctx)]
    return [p for p in dict.fromkeys(files) if p is not None]


def sources(ctx: Context) -> Sources:
    if ctx.system:  # /etc/gemini-cli/settings.json: same schema as settings.json, merged above every user file
        target = systempin.sources(ctx, FACTS.id, Format.JSONC_NO_TRAILING_COMMAS).targets[0]
    else:
        user = gemini_home(ctx) / ".gemini" / "settings.json"
        target = Target(user, Format.JSONC_NO_TRAILING_COMMAS, new_text="// Managed by Elydora\n{}\n")
    depends = [p for p in chain(ctx) if p != target.path]
    return Sources([target], depends, dict.fromkeys(depends, Format.JSONC_NO_TRAILING_COMMAS))


def _settings(docs: Documents) -> tuple[Path, Any]:
    path = next(iter(docs.targets))
    value = common.validated(docs, path, SCHEMA)
    require_type(path, value, "hooksConfig", HOOKS_CONFIG)
    return path, value


def switched(docs: Documents, ctx: Context) -> list[Setting]:
    """What switches our hooks off across the layers: ``hooksConfig.enabled`` false (the last layer that sets
    it; under system scope our pin in the system file decides), or one of our names in any layer's
    ``hooksConfig.disabled`` (Gemini unites those lists)."""
    paths = chain(ctx)
    found = [s for s in [last_explicit(layers(docs, paths), ENABLED)] if s is not None and s.value is False]
    for listed in explicit(layers(docs, paths), DISABLED, STR_LIST):
        ours = [name for name in listed.value if name in NAMES.values()]
        found += [Setting(listed.path, ours, listed.key)] if ours else []
    return found


def _disabled(value: Any, ctx: Context, *, by_command: bool) -> str | None:
    config = value.get("hooksConfig", {}) if isinstance(value, dict) else {}
    if config.get("enabled") is False:
        return "Gemini CLI hooks are disabled (hooksConfig.enabled is false)"
    for entry in config.get("disabled", []):
        if entry in NAMES.values():
            return f"Gemini CLI has {entry!r} in hooksConfig.disabled"
        if by_command and any(True for _ in refs_in({"command": entry}, ctx)):
            return "Gemini CLI has an Elydora command in hooksConfig.disabled"
    return None


def _fix(setting: Setting) -> str:
    if setting.key == ".".join(ENABLED):
        return "remove it (or set it to true)"
    return f"remove {', '.join(setting.value)} from that list"


def install(docs: Documents, ctx: Context, agent_id: str) -> None:
    path, value = _settings(docs)
    reason = _disabled(value, ctx, by_command=True)
    refuse_if(reason is not None, path, f"{reason}; enable hooks to install")
    if ctx.system:
        systempin.install(docs, path, PIN, HOOKS, ctx, agent_id)
        return
    add_hooks(docs, path, HOOKS, ctx, agent_id)


def check(docs: Documents, ctx: Context, agent_id: str) -> list[Finding]:
    path, value = _settings(docs)
    off = switched(docs, ctx)
    if off:
        return [switched_off(s, FACTS.display_name, _fix(s)) for s in off]
    if ctx.system:
        findings = systempin.check_system(docs, path, PIN, HOOKS, ctx, agent_id)
    else:
        findings = check_hooks(docs, path, HOOKS, ctx, agent_id)
    return [*findings, Finding(FOLDER_TRUST_NOTE, path, severity="note")] if _folder_trust_on(value) else findings


def _folder_trust_on(value: Any) -> bool:
    """Whether Gemini's folder trust is on for this file's reader (then untrusted folders run no hooks): on
    unless the file sets ``security.folderTrust.enabled`` to false (0.61 defaults it to true)."""
    security = value.get("security") if isinstance(value, dict) else None
    trust = security.get("folderTrust") if isinstance(security, dict) else None
    return not (isinstance(trust, dict) and trust.get("enabled") is False)


def uninstall(docs: Documents, ctx: Context, agent_ids: set[str] | None) -> None:
    path, _ = _settings(docs)
    if ctx.system:
        systempin.uninstall(docs, path, PIN, HOOKS, ctx, agent_ids)
        return
    remove_hooks(docs, path, HOOKS, ctx, agent_ids)


ROLES = HOOKS.events
HOOK_COMMAND_REFUSED = defaults.HOOK_COMMAND_ACCEPTED
extra_runtime, installed_entries, agent_argv = defaults.hook_map_agent(HOOKS)

FOLDER_TRUST_NOTE = (
    "With folder trust on (security.folderTrust.enabled, true by default), Gemini CLI runs no settings hooks, ours"
    " included, in a folder it does not trust: trust the folder (/permissions, ~/.gemini/trustedFolders.json) or"
    " set GEMINI_CLI_TRUST_WORKSPACE=true for the session."
)
"""Gemini CLI 0.61 (HookRegistry.processHooksFromConfig) registers the merged settings hooks, user level
included, only when ``isTrustedFolder()``; folder trust is on unless ``security.folderTrust.enabled`` is false
(its schema default is true; headless, Gemini refuses an untrusted folder: tests/e2e/test_managed_gemini.py)."""

NOTES = ("Check the hooks with /hooks list inside Gemini CLI.", FOLDER_TRUST_NOTE)
