"""System (managed) scope: the one home of its facts.

``elydora install <agent>... --scope system`` (root only) writes our entries into the agent's managed layer,
the machine-wide file the agent reads above every user file, and points them at launchers under
:data:`RUNTIME_ROOT`, root-owned and not writable by users. The install manifests and the transaction journal
live under :data:`STATE_ROOT` (root only). Every path is placed below ``--root`` when given, so tests never
touch the machine's ``/etc``.

The hooks run as each user. Per-user state (see ``docs/fleet.md``): the runtime creates
``~/.elydora/<agent id>@<user>/`` on first use (the directory name is also the identity's agent id, so every
signed record names the OS user); the decision to block comes from root-owned policy files beside the
launchers (:data:`SYSTEM_STATUS`, and ``users/<user>.json``), which a user cannot delete or edit, and every
failure of the guard under system scope blocks (fail closed).

Kept free of heavy imports: the runtime templates restate :data:`USER_SEPARATOR`, :data:`POLICY_USERS` and
:func:`user_dir_name`'s rule; tests pin the copies equal.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path, PurePosixPath

from elydora_config.errors import ConfigError
from elydora_config.records import record

USER, SYSTEM = "user", "system"
SCOPES = (USER, SYSTEM)
RUNTIME_ROOT = "/usr/local/lib/elydora"
"""Root-owned launchers and runtime modules, one directory per agent id (0755 directories, 0755 launchers,
0644 modules), with the root-owned policy files the guard decides from."""
STATE_ROOT = "/var/lib/elydora"
"""Root-only: ``.elydora/<agent id>/install-manifest.json`` and the transaction journal of system installs."""
SYSTEM_STATUS = "status.json"
"""The machine-wide status of one agent id (``{"status": "active"|"frozen"|"revoked", ...}``), root-owned 0644."""
POLICY_USERS = "users"
"""Per-user policy beside :data:`SYSTEM_STATUS`: ``users/<user name>.json``, same shape, root-owned 0644."""
BINDINGS = "bindings"
"""Beside :data:`SYSTEM_STATUS`: ``bindings/<user name>.json``, root-owned 0644, one per user whose identity root
bound to a server (``elydora agent provision``). No secret: the agent id, server, organisation, key id and public
key. The compliance probe checks that each such user's state is still that binding and delivers; the first-use
path refuses to replace a bound user's lost identity with a local one."""
USER_SEPARATOR = "@"
DIR_MODE = 0o755
LAUNCHER_MODE = 0o755
MODULE_MODE = 0o644
POLICY_MODE = 0o644


@record(frozen=True)
class ManagedLayer:
    """One agent's managed layer, as its packaged CLI reads it (see docs/providers.md)."""

    provider: str
    path: str
    """The Linux path the agent reads (placed below ``--root``, like the two below)."""
    macos: str
    windows: str | None
    """``%ProgramFiles%``/``%ProgramData%``-relative; ``None``: not known, system scope is refused on Windows."""
    promise: str
    """What the layer guarantees about our entries."""
    lockdown_key: str | None = None
    """The top-level switch that makes the agent run managed hooks only (set only with ``--lock-down``);
    ``None``: the agent has none; ``--lock-down`` installs it without and says so."""
    lockdown_off: str = ""
    """What the switch turns off besides user hooks (``status`` reports it)."""


DROP_IN = "elydora.json"
"""The name of our own file in a managed drop-in folder (Claude Code's ``managed-settings.d/``, Copilot CLI's
``policy.d/``): beside the organization's files, never inside them."""

LAYERS = {
    "claudecode": ManagedLayer(
        "claudecode",
        f"/etc/claude-code/managed-settings.d/{DROP_IN}",
        f"/Library/Application Support/ClaudeCode/managed-settings.d/{DROP_IN}",
        f"%ProgramFiles%\\ClaudeCode\\managed-settings.d\\{DROP_IN}",
        promise="our drop-in is merged over the organization's managed-settings.json (hooks of both run), read "
        "above every user and project file; a user's disableAllHooks is taken as allowManagedHooksOnly, so it "
        "cannot switch managed hooks off; but Claude Code uses one managed source only (server-managed settings, "
        "then an MDM profile or the HKLM policy, then these files) unless the winning one sets "
        "managedSourcesBehavior: merge",
        lockdown_key="allowManagedHooksOnly",
        lockdown_off="every user, project and local hook, and the hooks of plugins the user installed (only managed "
        "hooks and plugins managed settings enable still run)",
    ),
    "codex": ManagedLayer(
        "codex",
        "/etc/codex/requirements.toml",
        "/etc/codex/requirements.toml",  # beside the com.openai.codex profile's requirements_toml_base64
        "%ProgramData%\\OpenAI\\Codex\\requirements.toml",
        promise="managed hooks are trusted by policy: they run without a trust step and cannot be disabled in /hooks",
        lockdown_key="allow_managed_hooks_only",
        lockdown_off="every hook of config.toml and hooks.json in the user, project and plugin layers",
    ),
    "augment": ManagedLayer(
        "augment",
        "/etc/augment/settings.json",
        "/etc/augment/settings.json",  # Auggie 0.36.0 reads /etc/augment on every platform but Windows
        "%ProgramData%\\augment\\settings.json",
        promise="read first by every user's Auggie; the hooks of every settings file are added together (Auggie checks "
        "that each system hook survives the merge), so a user or project file cannot remove ours, and no setting "
        "switches hooks off; but hooks run only while Augment's server turns the enable_hooks "
        "feature flag on, and where that server allows client flag overrides a user's featureFlagOverrides can "
        "turn it off (unless this file sets featureFlagOverrides itself)",
    ),
    "copilot": ManagedLayer(
        "copilot",
        f"/etc/github-copilot/policy.d/{DROP_IN}",
        f"/etc/github-copilot/policy.d/{DROP_IN}",
        f"%ProgramData%\\GitHub\\Copilot\\policy.d\\{DROP_IN}",
        promise="a policy hook file: loaded before the user's, project's and plugins' hooks, which all run beside "
        "it; disableAllHooks (in any settings layer) does not switch it off, and it runs in folders the user has "
        "not trusted; Copilot CLI reads it only while it and its folder are root's and not group- or "
        "other-writable; a hook that times out lets the tool run",
    ),
    "cursor": ManagedLayer(
        "cursor",
        "/etc/cursor/hooks.json",
        "/Library/Application Support/Cursor/hooks.json",
        "%ProgramData%\\Cursor\\hooks.json",
        promise="documented, not verified against a real Cursor: the enterprise hooks.json (the schema of "
        "~/.cursor/hooks.json) is read above team, project and user hooks and all of them run, so a user file "
        "cannot remove ours; Cursor documents no switch that runs enterprise hooks only",
    ),
    "gemini": ManagedLayer(
        "gemini",
        "/etc/gemini-cli/settings.json",
        "/Library/Application Support/GeminiCli/settings.json",
        "%ProgramData%\\gemini-cli\\settings.json",
        promise="merged last, above user and project settings (hooks concatenate); our hooksConfig.enabled: true "
        "there beats a user's false. A user CAN still silence ours: by name in their hooksConfig.disabled (merged "
        "as a union), in a folder Gemini does not trust (no settings hooks run there), or with "
        "GEMINI_CLI_SYSTEM_SETTINGS_PATH set elsewhere; Gemini skips the file unless it and every directory above "
        "it are root's and not group- or other-writable",
    ),
    "qwen": ManagedLayer(
        "qwen",
        "/etc/qwen-code/settings.json",
        "/Library/Application Support/QwenCode/settings.json",
        "%ProgramData%\\qwen-code\\settings.json",
        promise="merged last, above user and project settings; its hooks load as system hooks whatever the folder "
        "trust, and our disableAllHooks: false there beats a user's or project's true. A user CAN still silence "
        "ours from their own environment: --bare or QWEN_CODE_SIMPLE, --safe-mode or QWEN_CODE_SAFE_MODE, or "
        "QWEN_CODE_SYSTEM_SETTINGS_PATH set elsewhere",
    ),
}


class ScopeError(ConfigError):
    """A system-scope operation refused (not root, or an agent without a managed layer)."""


def layer(provider_id: str) -> ManagedLayer:
    """The agent's managed layer; an agent without one is refused clearly."""
    found = LAYERS.get(provider_id)
    if found is None:
        supported = ", ".join(sorted(LAYERS))
        raise ScopeError(
            None, f"{provider_id}: --scope system is not supported: no managed layer is known for it (supported: "
            f"{supported})"
        )
    return found


def lockdown_switch(provider_id: str) -> tuple[str, str]:
    """(the switch, what it also turns off) of an agent that has one (install notes that the others have none)."""
    found = layer(provider_id)
    if found.lockdown_key is None:
        raise ScopeError(None, f"{provider_id}: --lock-down is not supported: its managed layer has no switch that "
                         "runs managed hooks only")
    return found.lockdown_key, found.lockdown_off


def require_root(what: str) -> None:
    """System scope writes machine-wide files: only root may (POSIX only for now: no Windows runtime root)."""
    if sys.platform == "win32":
        raise ScopeError(None, f"{what} --scope system is not supported on Windows yet")
    if os.geteuid() != 0:
        raise ScopeError(None, f"{what} --scope system must run as root (it writes machine-wide files); use sudo")


def placed(path: str, root: Path | None) -> Path:
    """One of this module's absolute paths, below ``--root`` when given."""
    return root / PurePosixPath(path).relative_to("/") if root is not None else Path(path)


def user_home(pw_dir: str, root: Path | None) -> Path:
    """An OS user's home (from the password database, never ``$HOME``), below ``--root`` when given."""
    return placed(pw_dir if pw_dir.startswith("/") else "/" + pw_dir, root)


def user_dir_name(agent_id: str, user_name: str) -> str:
    """The per-user state directory's name and the identity's agent id: ``<agent id>@<user name>``."""
    return f"{agent_id}{USER_SEPARATOR}{user_name}"
