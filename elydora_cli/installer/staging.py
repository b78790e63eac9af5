"""The files an install puts in the agent's state directory: identity (once) and the generated runtime."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from .. import identity
from ..runtime.generate import generate

if TYPE_CHECKING:
    from elydora_config import Transaction

    from .manifest import Manifest

IDENTITY_FILES = (identity.CONFIG, identity.PRIVATE_KEY, identity.STATUS)


def stage_identity(tx: Transaction, agent_dir: Path, provider_id: str, agent_id: str) -> bool:
    """Create a local identity when the agent has none; refuse one that belongs to someone else.

    Returns True when a new identity was staged.
    """
    from elydora_config import keys  # cryptography: only the commands that stage an identity load it

    config_path = agent_dir / identity.CONFIG
    data = tx.read(config_path, max_bytes=identity.CONFIG_LIMIT)
    if data is not None:
        config = identity.parse_config(data, config_path)
        if config.agent_id != agent_id or config.agent_name != provider_id:
            raise identity.IdentityError(
                config_path,
                f"belongs to agent {config.agent_id!r} of provider {config.agent_name!r}, "
                f"not {agent_id!r} of {provider_id!r}; choose another --agent-id",
            )
        key_path = agent_dir / identity.PRIVATE_KEY
        key_text = tx.read_text(key_path, max_bytes=identity.SECRET_LIMIT)
        if key_text is None:
            raise identity.IdentityError(key_path, "is missing; the agent identity is incomplete")
        keys.decode_private_key(key_text, path=key_path)
        return False
    key = keys.generate_private_key()
    config = identity.AgentConfig(identity.LOCAL_ORG, agent_id, identity.key_id(key), None, provider_id)
    identity.stage_new_identity(tx, agent_dir, config, key)
    return True


def runtime_files(
    provider_id: str, agent_dir: Path, python: str, user_root: str | None = None
) -> dict[str, tuple[bytes, int]]:
    """The generated runtime (``user_root``: of system scope, see :func:`~..runtime.generate.generate`)."""
    return generate(provider_id, agent_dir, python, user_root=user_root)


PYCACHE = "__pycache__"


def stage_runtime(
    tx: Transaction, provider_id: str, agent_dir: Path, python: str, user_root: str | None = None
) -> list[str]:
    """Stage every generated runtime file; stale compiled modules go when any source changes."""
    files = runtime_files(provider_id, agent_dir, python, user_root)
    changed = False
    for name, (data, mode) in files.items():
        changed |= tx.read(agent_dir / name, max_bytes=4 << 20) != data
        tx.write(agent_dir / name, data, mode=mode)
    if changed:
        stage_pycache_removal(tx, agent_dir)
    return sorted(files)


def stage_runtime_removal(tx: Transaction, provider_id: str, agent_dir: Path, python: str) -> None:
    """Remove the generated runtime an earlier install left (entries running a supervisor need none)."""
    for name in runtime_files(provider_id, agent_dir, python):
        if (agent_dir / name).exists():
            tx.remove(agent_dir / name)
    stage_pycache_removal(tx, agent_dir)


def stage_pycache_removal(tx: Transaction, agent_dir: Path) -> None:
    """Python caches the runtime modules' bytecode keyed by mtime seconds and size: drop it with the sources."""
    cache = agent_dir / PYCACHE
    if cache.is_dir() and not cache.is_symlink():
        for entry in sorted(cache.iterdir()):
            tx.remove(entry)


def stage_system_policy(tx: Transaction, runtime_dir: Path) -> None:
    """System scope: the runtime directory (root-owned, every user may read it) and the machine-wide status
    the guard decides from, created active when absent (an existing one, frozen or not, is kept)."""
    from .. import managed

    tx.mkdir(runtime_dir, managed.DIR_MODE)
    path = runtime_dir / managed.SYSTEM_STATUS
    if tx.read(path, max_bytes=identity.CONFIG_LIMIT) is None:
        tx.write(path, identity.status_bytes("active", None), mode=managed.POLICY_MODE)


def stage_state_repair(tx: Transaction, agent_dir: Path) -> list[tuple[Path, str]]:
    """Make the guard's inputs usable again: owner-only identity files, and a missing, corrupt or too open
    ``status.json`` restored fail safe (see :mod:`..agentstate`). Returns what was repaired."""
    import os
    import stat

    from .. import agentstate

    notes: list[tuple[Path, str]] = []
    for name in (identity.CONFIG, identity.PRIVATE_KEY):
        path = agent_dir / name
        data = tx.read(path, max_bytes=identity.CONFIG_LIMIT)
        if data is not None and stat.S_IMODE(os.lstat(path).st_mode) & 0o077:
            tx.write(path, data, mode=0o600)
            notes.append((path, f"{path}: made owner-only"))
    if not identity.read_config(agent_dir).is_local:
        return notes
    now = agentstate.current(str(agent_dir))
    if now.problem is not None:
        status, reason = agentstate.restored(str(agent_dir), now)
        tx.write(agent_dir / identity.STATUS, identity.status_bytes(status, reason), mode=0o600)
        notes.append((agent_dir / identity.STATUS, f"{now.problem}; restored as {status}"))
    return notes


def stage_retired_runtime(tx: Transaction, agent_dir: Path, previous: Manifest | None, current: list[str]) -> None:
    """Remove the runtime files an earlier install recorded that this version no longer generates (e.g.
    Auggie's old wrapper scripts); the generated runtime itself is handled by its own staging."""
    for name in sorted(set(previous.runtime if previous else ()) - set(current)):
        if name not in (".", "..") and "/" not in name and (agent_dir / name).exists():
            tx.remove(agent_dir / name)


def stage_stubs(
    tx: Transaction, provider_id: str, agent_dir: Path, python: str, names: set[str], mode: int = 0o700
) -> dict[str, bool]:
    """Launchers a running session may still call become inert stubs (see :mod:`..runtime.stubs`); stubs
    past their grace period go. Returns the launchers kept (True when a stub is written now)."""
    from ..runtime import stubs

    kept = {}
    for name, data in stubs.stubs(provider_id, python).items():
        path = agent_dir / name
        if name not in names or not os.path.isfile(path):
            continue
        if stubs.stub_time(path) is None:
            tx.write(path, data, mode=mode)
            kept[name] = True
        elif not stubs.expired(path):
            kept[name] = False
    return kept
