"""The files an install puts in the agent's state directory: identity (once) and the generated runtime."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from elydora_config import _platform, keys

from .. import agentstate, identity, managed
from ..runtime import bytecode, stubs
from ..runtime.generate import generate

if TYPE_CHECKING:
    from elydora_config import Transaction

    from .manifest import Manifest

IDENTITY_FILES = (identity.CONFIG, identity.PRIVATE_KEY, identity.STATUS)


def stage_identity(tx: Transaction, agent_dir: Path, provider_id: str, agent_id: str) -> bool:
    """Create a local identity when the agent has none; refuse one that belongs to someone else.

    Returns True when a new identity was staged.
    """
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
    """Stage every generated runtime file."""
    files = runtime_files(provider_id, agent_dir, python, user_root)
    for name, (data, mode) in files.items():
        tx.write(agent_dir / name, data, mode=mode)
    stage_pycache_removal(tx, agent_dir)  # the launchers read no __pycache__: what earlier versions left goes
    return sorted(files)


def stage_bytecode(
    tx: Transaction,
    provider_id: str,
    agent_dir: Path,
    python: str,
    user_root: str | None = None,
    previous: dict[str, str] | None = None,
) -> dict[str, str]:
    """Stage the bytecode of the runtime modules, compiled by ``python`` (:mod:`..runtime.bytecode`); returns
    ``{file name: digest}`` for the manifest (empty when ``python`` cannot compile them: the launchers then
    compile the source on every call). ``previous``: the digests an earlier install recorded for this same
    interpreter; when every module's source is unchanged and its compiled file still matches, nothing is
    compiled again (a reinstall, a configuration run). Stage it before the sources (it compares them)."""
    files = runtime_files(provider_id, agent_dir, python, user_root)
    sources = {name: data for name, (data, _) in files.items()}
    found = _still_compiled(tx, agent_dir, sources, previous or {})
    if found is None:
        found = bytecode.compiled(python, str(agent_dir), sources)
    digests = {}
    for name, data in found.items():
        module = name.partition(".")[0] + ".py"
        there = tx.read(agent_dir / name, max_bytes=4 << 20)
        data = there if there is not None and bytecode.same_code(there, data) else data
        tx.write(agent_dir / name, data, mode=files[module][1])
        digests[name] = bytecode.digest(data)
    return digests


def _still_compiled(
    tx: Transaction, agent_dir: Path, sources: dict[str, bytes], previous: dict[str, str]
) -> dict[str, bytes] | None:
    """The compiled files an earlier install wrote, when they cover every module and both each source and its
    compiled file are unchanged; else ``None``."""
    found = {}
    for name, digest in previous.items():
        module = name.partition(".")[0] + ".py"
        if module not in sources or tx.read(agent_dir / module, max_bytes=4 << 20) != sources[module]:
            return None
        data = tx.read(agent_dir / name, max_bytes=4 << 20)
        if data is None or bytecode.digest(data) != digest:
            return None
        found[name] = data
    modules = {name for name in sources if name.endswith(".py") and name[: -len(".py")] in bytecode.MODULES}
    return found if {name.partition(".")[0] + ".py" for name in found} == modules else None


def stage_runtime_removal(tx: Transaction, provider_id: str, agent_dir: Path, python: str) -> None:
    """Remove the generated runtime an earlier install left (entries running a supervisor need none)."""
    for name in runtime_files(provider_id, agent_dir, python):
        if (agent_dir / name).exists():
            tx.remove(agent_dir / name)
    stage_pycache_removal(tx, agent_dir)


def stage_pycache_removal(tx: Transaction, agent_dir: Path) -> None:
    """The interpreter's bytecode cache of earlier versions' runtime (the launchers read none now): drop it."""
    cache = agent_dir / PYCACHE
    if cache.is_dir() and not cache.is_symlink():
        for entry in sorted(cache.iterdir()):
            tx.remove(entry)


def stage_system_policy(tx: Transaction, runtime_dir: Path) -> None:
    """System scope: the runtime directory (root-owned, every user may read it) and the machine-wide status
    the guard decides from, created active when absent (an existing one, frozen or not, is kept)."""
    tx.mkdir(runtime_dir, managed.DIR_MODE)
    path = runtime_dir / managed.SYSTEM_STATUS
    if tx.read(path, max_bytes=identity.CONFIG_LIMIT) is None:
        tx.write(path, identity.status_bytes("active", None), mode=managed.POLICY_MODE)


def stage_state_repair(tx: Transaction, agent_dir: Path) -> list[tuple[Path, str]]:
    """Make the guard's inputs usable again: owner-only identity files, and a missing, corrupt or too open
    ``status.json`` restored fail safe (see :mod:`..agentstate`). Returns what was repaired."""
    notes: list[tuple[Path, str]] = []
    for name in (identity.CONFIG, identity.PRIVATE_KEY):
        path = agent_dir / name
        data = tx.read(path, max_bytes=identity.CONFIG_LIMIT)
        if data is not None and not _platform.is_private(os.lstat(path)):
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
