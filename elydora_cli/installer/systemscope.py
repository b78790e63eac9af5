"""What install, uninstall and status do differently under ``--scope system`` (facts in :mod:`..managed`).

The launchers and the policy files are root-owned and must stay writable by nobody else, or a user could
replace the guard every agent runs: status checks owner and mode of each, and of the directories above them.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from elydora_config import _platform

from .. import managed
from ..plug.context import Context
from ..plug.contract import Finding
from ..plug.layers import managed_file


def refuse_unmanaged(provider_id: str, ctx: Context) -> None:
    """Under system scope an agent without a managed layer is refused before anything is read."""
    if ctx.system:
        managed.layer(provider_id)


def system_notes(provider_id: str, ctx: Context) -> list[str]:
    """What an install into the managed layer promises (user scope: none; the agent's own notes apply)."""
    if not ctx.system:
        return []
    facts = managed.layer(provider_id)
    notes = [f"managed layer {managed_file(ctx, provider_id)}: {facts.promise}; every user's hooks run the root-owned "
             f"launchers in {ctx.runtime_root} (see docs/fleet.md)"]
    if ctx.lock_down is not None and facts.lockdown_key is None:  # --all --lock-down must not fail on such agents
        notes.append("--lock-down: this managed layer has no switch that runs managed hooks only; ours are installed "
                     "and the users' own hooks keep running beside them")
    return notes


def user_root(ctx: Context) -> str | None:
    """The generated runtime's ``user_root``: ``None`` in user scope; under system scope the prefix user homes
    are placed below (``--root``, else ``""``)."""
    if not ctx.system:
        return None
    return str(ctx.home) if ctx.rooted else ""


def dir_mode(ctx: Context) -> int:
    """Directories we create for agent files: owner-only, or under system scope readable by every user."""
    return managed.DIR_MODE if ctx.system else 0o700


def _unsafe(path: Path, info: os.stat_result) -> str | None:
    if not _platform.owned_by_caller(info):
        return f"is owned by uid {info.st_uid}, not by root"
    if stat.S_IMODE(info.st_mode) & 0o022:
        return f"is writable by other users (mode {stat.S_IMODE(info.st_mode):04o})"
    return None


def system_file_findings(path: Path, mode: int) -> list[Finding]:
    """A root-owned runtime file: owned by us, writable by nobody else, readable and runnable by every user."""
    try:
        info = os.lstat(path)
    except OSError as exc:
        return [Finding(f"cannot be checked: {exc.strerror}", path)]
    problem = _unsafe(path, info)
    if problem is None and stat.S_IMODE(info.st_mode) & mode != mode:
        problem = f"has mode {stat.S_IMODE(info.st_mode):04o}; users need {mode:04o} to run it"
    return [] if problem is None else [Finding(f"{problem}; reinstall with --scope system", path)]


def system_policy_findings(runtime_dir: Path) -> list[Finding]:
    """The policy the guard decides from, and the directories from the runtime root down, are root's only.

    A missing policy file blocks every tool call (fail closed): that is reported as an error too."""
    findings = []
    for directory in (runtime_dir.parent, runtime_dir):
        try:
            problem = _unsafe(directory, os.lstat(directory))
        except OSError as exc:
            problem = f"cannot be checked: {exc.strerror}"
        if problem:
            findings.append(Finding(f"{problem}: users could replace the launchers", directory))
    policy = runtime_dir / managed.SYSTEM_STATUS
    if not os.path.lexists(policy):
        findings.append(Finding("is missing: the guard blocks every tool call; reinstall with --scope system", policy))
    else:
        findings += system_file_findings(policy, 0o444)
    return findings


def runs_flusher(python: str) -> bool:
    """Whether the hook interpreter can import the flusher: the audit delivers nothing otherwise."""
    import subprocess  # here: a user-scope status imports this module and spawns nothing

    code = "import importlib.util,sys; sys.exit(importlib.util.find_spec('elydora_cli.runtime.flush') is None)"
    try:
        return subprocess.run([python, "-I", "-c", code], capture_output=True, timeout=20).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def after_install(provider_id: str, ctx: Context, agent_id: str, python: str) -> list[str]:
    """Notes of a committed system install: a warning when the hooks cannot deliver (the runtime's bytecode is
    compiled in the install's transaction, :mod:`..runtime.bytecode`)."""
    if not ctx.system:
        return []
    notes = []
    if not runs_flusher(python):
        notes.append(f"warning: {python} cannot import elydora_cli: the guard enforces, but the audit delivers "
                     "nothing; install elydora-config for that interpreter or pass --python")
    return notes
