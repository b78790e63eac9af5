"""OpenAI Codex: strict JSON hooks.json under CODEX_HOME, "*" groups, POSIX and encoded-PowerShell commands."""

from __future__ import annotations

import binascii
import os
from pathlib import Path
from typing import TYPE_CHECKING

from elydora_config.errors import MalformedConfigError, UnsafePathError
from elydora_config.records import replace
from elydora_config.toml import TomlDocument

from .. import catalog, managed
from ..plug import defaults, hookmap, lockdown, macprefs, runners, systempin
from ..plug.agentprobe import AgentProbe, ListedHook, ProbeError
from ..plug.cmdforms import encoded_powershell
from ..plug.common import (
    STATUS_MESSAGES,
    add_hooks,
    catalog_events,
    check_hooks,
    remove_hooks,
    shell_command,
    validated,
)
from ..plug.context import Context
from ..plug.contract import Finding, Format, Sources, Target
from ..plug.documents import Documents
from ..plug.hookmap import HookMap
from ..plug.layers import (
    Layer,
    Setting,
    explicit,
    last_explicit,
    layers,
    managed_file,
    switched_off,
    system_file,
)
from ..plug.ownership import Ref, refs_in, runtime_argv
from ..plug.schema import ANY, ANY_HANDLER, STR, MapSchema
from ..recovery_hint import elydora_command

if TYPE_CHECKING:
    from typing import Any

FACTS = catalog.provider("codex")
DESCRIPTION = "Elydora audit and freeze enforcement"
SCHEMA = MapSchema(ANY_HANDLER, group={"matcher": ANY}, open_group_keys=True)
_KEYS = frozenset({"type", "command", "commandWindows", "timeout", "statusMessage"})


def make_handler(ref: Ref, ctx: Context) -> dict[str, Any]:
    return {
        "type": "command",
        "command": shell_command(ref, ctx),
        "commandWindows": encoded_powershell(runtime_argv(ref, ctx), ctx.env),
        "timeout": ref.timeout,
        "statusMessage": STATUS_MESSAGES[ref.role],
    }


def _legacy(handler: Any, ctx: Context) -> Ref | None:
    """The older pair: plain shell-joined ``command`` and C-runtime-quoted ``commandWindows``."""
    if set(handler) != _KEYS or handler.get("statusMessage") not in STATUS_MESSAGES.values():
        return None
    refs = list(refs_in({"command": handler.get("command")}, ctx))
    return refs[0] if refs else None


HOOKS = HookMap(events=catalog_events(FACTS), make=make_handler, group={"matcher": "*"}, legacy=_legacy)
MANAGED_HOOKS = replace(HOOKS, whole_container=True)
"""The same entries in requirements.toml, written as ``[[hooks.<event>]]`` tables an administrator can read."""


LOCKDOWN_KEY, LOCKDOWN_OFF = managed.lockdown_switch("codex")
MANAGED_SCHEMA = MapSchema(
    ANY_HANDLER, group={"matcher": ANY}, open_group_keys=True,
    switches={"managed_dir": STR, "windows_managed_dir": STR},
)
"""requirements.toml's ``[hooks]``: the event map beside the directories of managed hook scripts."""


HOOKS_FEATURE = ("features", "hooks")
LEGACY_FEATURE = ("features", "codex_hooks")
"""The older name of the same feature flag (Codex 0.171.0 still reads it)."""
SYSTEM_CONFIG, MANAGED_CONFIG = "/etc/codex/config.toml", "/etc/codex/managed_config.toml"
WINDOWS_SYSTEM_CONFIG = "%ProgramData%\\OpenAI\\Codex\\config.toml"
LEGACY_WINDOWS_MANAGED_CONFIG = "managed_config.toml"
"""Codex's legacy managed config is ``/etc/codex/managed_config.toml`` on Unix; on Windows its default would be
the file of that name in ``CODEX_HOME`` (a file the user owns), but Codex 0.171.0 ignores it there with a start-up
warning ("no longer supported on Windows"): it is no layer of ours and cannot switch hooks off."""
PREFERENCES_DOMAIN = "com.openai.codex"
CONFIG_PREFERENCE, REQUIREMENTS_PREFERENCE = "config_toml_base64", "requirements_toml_base64"
"""macOS: the preference keys Codex reads (``CFPreferencesCopyAppValue``) as base64 of TOML text, a managed config
layer above every file and requirements beside requirements.toml. A device manager sets them; so can the user
(``defaults write``), and Codex reads that too."""
PIN = systempin.Pin(HOOKS_FEATURE, True, "Codex")
"""Under ``--scope system``: ``[features] hooks = true`` in requirements.toml keeps hooks on whatever a user's or
project's config.toml says. Without it a user's ``[features] hooks = false`` switches the managed hooks off too
(Codex 0.171.0, both shown with the real CLI: tests/e2e/test_managed.py)."""
ENV_SWITCHES = defaults.NO_ENV_SWITCHES


def layer_files(ctx: Context, user_config: Path) -> list[Path]:
    """Codex's config layers in precedence order (later wins): system, user, the project's ``.codex/config.toml``
    (Codex reads it for a project it trusts), managed config. Windows: ``%ProgramData%\\OpenAI\\Codex\\config.toml``
    is the system layer, and there is no managed config (see :data:`LEGACY_WINDOWS_MANAGED_CONFIG`)."""
    project = ctx.repo_root / ".codex" / "config.toml"
    if ctx.windows:
        system = system_file(ctx, posix=SYSTEM_CONFIG, macos=SYSTEM_CONFIG, windows=WINDOWS_SYSTEM_CONFIG)
        return [system, user_config, project]
    return [ctx.place(SYSTEM_CONFIG), user_config, project, ctx.place(MANAGED_CONFIG)]


def sources(ctx: Context) -> Sources:
    if ctx.system:  # requirements.toml: [hooks] there are managed, trusted by policy, for every user
        return Sources([Target(managed_file(ctx, FACTS.id), Format.TOML, new_text="", mode=managed.POLICY_MODE)])
    configured = ctx.env_value("CODEX_HOME")
    if configured:
        home = ctx.place(configured)
        if not home.is_dir():
            raise UnsafePathError(home, "CODEX_HOME must name an existing directory")
        home = Path(os.path.realpath(home))
    else:
        home = ctx.home / ".codex"
    new_text = '{\n  "description": "' + DESCRIPTION + '"\n}\n'
    hooks = Target(home / "hooks.json", Format.JSON, new_text=new_text)
    config = home / "config.toml"
    depends = [p for p in layer_files(ctx, config) if p != config]
    depends.append(managed_file(ctx, FACTS.id))
    return Sources([hooks, Target(config, Format.TOML, new_text="")], depends, dict.fromkeys(depends, Format.TOML))


def _path(docs: Documents, ctx: Context) -> Path:
    path = next(iter(docs.targets))
    validated(docs, path, MANAGED_SCHEMA if ctx.system else SCHEMA)
    return path


def _config(docs: Documents) -> Path:
    return list(docs.targets)[1]


def install(docs: Documents, ctx: Context, agent_id: str) -> None:
    path = _path(docs, ctx)
    if ctx.system:
        lockdown.apply(docs, path, ctx, LOCKDOWN_KEY)
        systempin.apply(docs, path, PIN)
        add_hooks(docs, path, MANAGED_HOOKS, ctx, agent_id)
        return
    add_hooks(docs, path, HOOKS, ctx, agent_id)
    _keep_trust(docs, path, ctx)
    if ctx.trust and ctx.probe is not None:
        _trust(docs, path, ctx, ctx.probe)


def uninstall(docs: Documents, ctx: Context, agent_ids: set[str] | None) -> None:
    path = _path(docs, ctx)
    if ctx.system:
        if agent_ids is None:
            lockdown.remove(docs, path, LOCKDOWN_KEY)
            systempin.remove(docs, path, PIN)
        remove_hooks(docs, path, HOOKS, ctx, agent_ids)
        return
    remove_hooks(docs, path, HOOKS, ctx, agent_ids)
    _keep_trust(docs, path, ctx)


def switched(docs: Documents, ctx: Context) -> list[Setting]:
    """What switches our user-scope hooks off without Codex to ask: ``[features] hooks = false`` (the last
    layer that sets it, its older name ``codex_hooks`` where ``hooks`` is not set), or requirements.toml
    running managed hooks only or switching the feature off."""
    chain = layers(docs, layer_files(ctx, _config(docs))) + _preference(ctx, CONFIG_PREFERENCE)
    feature = last_explicit(chain, HOOKS_FEATURE) or last_explicit(chain, LEGACY_FEATURE)
    found = [feature] if feature is not None and feature.value is False else []
    required = layers(docs, [managed_file(ctx, FACTS.id)]) + _preference(ctx, REQUIREMENTS_PREFERENCE)
    found += [s for s in explicit(required, HOOKS_FEATURE) if s.value is False]
    found += [s for s in explicit(required, LOCKDOWN_KEY) if s.value]
    return found


def _preference(ctx: Context, key: str) -> list[Layer]:
    """macOS: the layer Codex reads from the preference ``key`` (none elsewhere, or when no file sets it)."""
    if not macprefs.in_effect(ctx):
        return []
    found = macprefs.app_value(ctx, PREFERENCES_DOMAIN, key)
    if found is None:
        return []
    path, encoded = found
    import base64  # here only: a status elsewhere loads neither base64 nor struct (test_cmd_import_sets.py)

    try:
        text = base64.b64decode(str(encoded).strip(), validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError) as exc:
        raise MalformedConfigError(path, f"{key} is not base64 of UTF-8 text, so Codex fails to start: {exc}") from None
    return [Layer(path, TomlDocument.parse(text, path=path).value)]


def _off_fix(setting: Setting, ctx: Context, config: Path) -> str:
    if setting.path.suffix == ".plist":
        if not macprefs.users_own(ctx, setting.path):
            return "only the administrator can change it (a device manager's profile); they can install Elydora there"
        held = macprefs.read(setting.path) or {}
        keys = " or ".join(k for k in (CONFIG_PREFERENCE, REQUIREMENTS_PREFERENCE) if k in held)
        other = "" if setting.key == LOCKDOWN_KEY else ", or set it to true there"
        return f"remove it (`defaults delete {PREFERENCES_DOMAIN} {keys}`, the preference holding it){other}"
    chain = layer_files(ctx, config)
    if setting.key == LOCKDOWN_KEY or setting.path in (chain[0], managed_file(ctx, FACTS.id)) or (
        not ctx.windows and setting.path == chain[-1]
    ):
        return "only the administrator can change it; they can install Elydora there (--scope system)"
    if setting.path == ctx.repo_root / ".codex" / "config.toml":
        return "remove it (or set it to true; Codex reads this file in a project it trusts)"
    return "remove it (or set it to true)"


def check(docs: Documents, ctx: Context, agent_id: str) -> list[Finding]:
    path = _path(docs, ctx)
    if not ctx.system:
        off = switched(docs, ctx)
        if off:
            return [switched_off(s, FACTS.display_name, _off_fix(s, ctx, _config(docs))) for s in off]
    found = check_hooks(docs, path, HOOKS, ctx, agent_id)
    if ctx.system:  # managed hooks need no trust
        return found or _hooks_feature(docs, path) or systempin.check(docs, path, PIN) + lockdown.check(
            docs, path, LOCKDOWN_KEY, LOCKDOWN_OFF
        )
    if found:
        return found
    if ctx.probe is not None:
        try:
            return _asked(docs, path, ctx, agent_id, ctx.probe.listed())
        except ProbeError:
            pass
    return _untrusted(docs, path, ctx, agent_id)  # the probe's report says the check was file-level only


def _hooks_feature(docs: Documents, path: Path) -> list[Finding]:
    """``[features] hooks = false`` in requirements.toml switches every hook off, ours included."""
    doc = docs.doc(path)
    if doc is not None and doc.get(list(HOOKS_FEATURE), None) is False:
        setting = Setting(path, False, ".".join(HOOKS_FEATURE))
        return [switched_off(setting, FACTS.display_name, "remove it (or set it to true)")]
    return []


def _snake(event: str) -> str:
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in event).lstrip("_")


def _ours(docs: Documents, path: Path, ctx: Context, agent_id: str | None) -> list[tuple[str, str]]:
    """``(event, key suffix)`` of each of our handlers (of ``agent_id``; ``None``: of every agent) in the file.

    Codex keys an entry ``<hooks.json>:<event in snake case>:<group>:<handler>``."""
    doc = docs.doc(path)
    groups_by_event = (doc.get(["hooks"], None) or {}) if doc is not None else {}
    found = []
    for event in HOOKS.events:
        for gi, group in enumerate(groups_by_event.get(event) or []):
            for hi, handler in enumerate(group.get("hooks") or [] if isinstance(group, dict) else []):
                ref = hookmap.ours(HOOKS, handler, ctx)
                if ref and agent_id in (None, ref.agent_id):
                    found.append((event, f"{_snake(event)}:{gi}:{hi}"))
    return found


def _state(docs: Documents) -> dict[str, Any]:
    doc = docs.doc(_config(docs))
    state = doc.get(["hooks", "state"], None) if doc is not None else None
    return state if isinstance(state, dict) else {}


def _keep_trust(docs: Documents, path: Path, ctx: Context) -> None:
    """Our trust entries (values an install recorded, keyed under our hooks.json) stay recorded while they
    name one of our handlers; the others go. A user's own ``hooks.state`` entries are never touched."""
    config_path = _config(docs)
    current = {f"{path}:{suffix}" for _, suffix in _ours(docs, path, ctx, None)}
    for key, value in _state(docs).items():
        if not key.startswith(f"{path}:") or value not in docs.recorded:
            continue
        if key in current:
            docs.log(config_path).inserted.append({"at": ["hooks", "state", key], "value": value})
        else:
            _doc(docs, config_path).remove(["hooks", "state", key])


def _doc(docs: Documents, path: Path) -> Any:
    doc = docs.doc(path)
    assert doc is not None
    return doc


def _trust(docs: Documents, path: Path, ctx: Context, probe: AgentProbe) -> None:
    """Write Codex's ``trusted_hash`` of each of our entries, hashed by Codex itself (never by us)."""
    text = docs.final_text(path)
    try:
        hashes = probe.hashes_for(text or "")
    except ProbeError:
        return  # the probe's report says why; status keeps reporting the hooks as awaiting trust
    config_path = _config(docs)
    log = docs.log(config_path)
    log.inserted = [i for i in log.inserted if i["at"][:2] != ["hooks", "state"]]
    config = docs.ensure(config_path)
    for _, suffix in _ours(docs, path, ctx, None):
        if suffix not in hashes:
            continue
        key, entry = f"{path}:{suffix}", {"trusted_hash": hashes[suffix]}
        if config.get(["hooks", "state", key], None) != entry:
            config.set(["hooks", "state", key], entry)
        log.inserted.append({"at": ["hooks", "state", key], "value": entry})


def _fix(ctx: Context) -> str:
    return elydora_command(ctx, "install", "codex", "--trust")


def _asked(docs: Documents, path: Path, ctx: Context, agent_id: str, listed: list[ListedHook]) -> list[Finding]:
    """What Codex itself says of our entries: listed, enabled, trusted (``modified``: changed since)."""
    by_key = {hook.key: hook for hook in listed}
    findings, untrusted = [], []
    for event, suffix in _ours(docs, path, ctx, agent_id):
        hook = by_key.get(f"{path}:{suffix}")
        if hook is None:
            findings.append(Finding(f"Codex does not load our {event} hook", path))
        elif not hook.enabled:
            findings.append(Finding(f"Codex lists our {event} hook as disabled", path))
        elif hook.trust == "modified":
            findings.append(Finding(f"Codex skips our {event} hook: it changed since it was trusted; "
                                    f"run `{_fix(ctx)}`", _config(docs)))
        elif hook.trust != "trusted":
            untrusted.append(event)
    if untrusted:
        findings.append(Finding(f"awaiting trust: Codex skips hooks nobody trusted ({', '.join(untrusted)}); "
                                f"run `{_fix(ctx)}` or open /hooks in Codex and trust them",
                                _config(docs), severity="pending"))
    return findings


def _untrusted(docs: Documents, path: Path, ctx: Context, agent_id: str) -> list[Finding]:
    """Without Codex at hand: each of our entries needs a ``hooks.state`` entry in config.toml (whether its
    hash is still current cannot be seen without Codex)."""
    state = _state(docs)
    missing = [event for event, suffix in _ours(docs, path, ctx, agent_id)
               if not isinstance(state.get(f"{path}:{suffix}"), dict)]
    if not missing:
        return []
    return [Finding(f"awaiting trust: Codex skips hooks nobody trusted ({', '.join(missing)}); "
                    f"run `{_fix(ctx)}` or open /hooks in Codex and trust them", _config(docs), severity="pending")]


ROLES = HOOKS.events
HOOK_COMMAND_REFUSED = defaults.HOOK_COMMAND_ACCEPTED
extra_runtime, installed_entries, _ = defaults.hook_map_agent(HOOKS)


def agent_argv(handler: Any, ctx: Context) -> list[str]:
    """How Codex runs a handler: ``command`` through its POSIX shell; on Windows ``commandWindows`` (our encoded
    PowerShell line) through its session shell, which starts ``powershell.exe`` with the line's own words."""
    if ctx.windows:
        return runners.shell_argv(handler["commandWindows"], ctx)
    return defaults.default_argv(handler, ctx)

NOTES = ("Codex runs new or changed hooks only once trusted: `elydora install codex --trust` records Codex's own "
         "trust of both (or open /hooks in Codex and trust them).",)
