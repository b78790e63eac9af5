"""A system-scope user's identity: created on first use, or bound to a server by root.

Under ``--scope system`` the hooks run as each user, in ``~/.elydora/<agent id>@<user>/`` (see
:mod:`elydora_cli.managed`). The audit hook creates that directory and spools the first event; the flusher
it starts (``--provision <provider id>``) then calls :func:`provision`, which creates a local identity whose
agent id is the directory's name, so every record the user's ledger signs names the OS user. The events
already spooled are adopted; any other leftover (a key, a ledger, a chain state without ``config.json``) is
refused, so two chains are never mixed: the events stay spooled and the refusal goes to ``error.log``.

An existing ``config.json`` is never touched by first use: a state root provisioned (``elydora agent
provision``, which calls :func:`bind` with the user's own rights) stays as it is. A user whose bound
identity is gone (deleted) gets no local one in its place while root's binding record exists: the events stay
spooled until root provisions the user again, and the compliance probe says the user is not delivering.

The identity decides nothing about blocking: under system scope the guard reads root-owned policy only.
"""

from __future__ import annotations

import os
import stat
import sys
import time
from typing import TYPE_CHECKING, Any

from elydora_config import _platform, files, keys
from elydora_config.errors import ConfigError

from .. import catalog, identity, managed
from ..statefiles import CONFIG, PRIVATE_KEY, SPOOL, STATE_DIR_NAME
from .flushlock import try_lock

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from ..identity import AgentConfig

REPLACED = ".replaced-"
"""A state another identity held is kept beside the new one as ``<agent id>@<user>.replaced-<epoch ms>``."""


def provision(agent_dir: str, provider_id: str) -> bool:
    """Create the identity of ``agent_dir`` when it has none; whether one was created."""
    if os.path.lexists(os.path.join(agent_dir, CONFIG)):
        return False
    from elydora_config import Transaction  # the commit engine: only when an identity is made

    marker = binding_record(agent_dir)
    if marker is not None and os.path.lexists(marker):
        raise identity.IdentityError(
            agent_dir, f"has lost the server identity root provisioned ({marker}); the events stay spooled until "
            "root runs elydora agent provision for this user again"
        )
    facts = catalog.provider(provider_id)
    agent_id = identity.check_agent_id(os.path.basename(agent_dir))
    key = keys.generate_private_key()
    config = identity.AgentConfig(identity.LOCAL_ORG, agent_id, identity.key_id(key), None, facts.id)
    with Transaction(os.path.dirname(agent_dir), lock_timeout=5.0) as tx:
        identity.stage_new_identity(tx, agent_dir, config, key, adopt=(SPOOL,))
    return True


def binding_record(agent_dir: str) -> str | None:
    """Root's binding record of the user running this process, if ``agent_dir`` is their system-scope state.

    The generated policy module names the state ``<user root><home>/.elydora/<agent id>@<user>``: the user
    root (``--root`` of the install) is what precedes the home, and the runtime directory sits below it."""
    if sys.platform == "win32":  # no system scope there (managed.require_root)
        return None
    import pwd  # POSIX only

    name = os.path.basename(agent_dir)
    agent_id, separator, user = name.rpartition(managed.USER_SEPARATOR)
    home = pwd.getpwuid(os.getuid()).pw_dir.rstrip("/")
    suffix = f"{home}/{STATE_DIR_NAME}/{name}"
    if not separator or not agent_dir.endswith(suffix):
        return None
    prefix = agent_dir[: -len(suffix)]
    return f"{prefix}{managed.RUNTIME_ROOT}/{agent_id}/{managed.BINDINGS}/{user}.json"


def bind(agent_dir: str, config: AgentConfig, key: Ed25519PrivateKey, *, dry_run: bool) -> dict[str, Any]:
    """Make ``agent_dir`` hold exactly this server identity; run with the user's own rights (root switches to
    them first, so no write in the user's home follows a link the user planted).

    The same identity (organisation, agent id, key id, private key) is updated in place (a new token or server
    address keeps the chain); any other state (a first-use local identity, another key, leftovers) is moved
    aside whole, as evidence. Returns ``{"changed": [paths], "replaced": path | None}``."""
    from elydora_config import Transaction  # the commit engine

    parent = os.path.dirname(agent_dir)
    key_bytes = (keys.encode_private_key(key) + "\n").encode("ascii")
    config_path, key_path = os.path.join(agent_dir, CONFIG), os.path.join(agent_dir, PRIVATE_KEY)
    for directory in (parent, agent_dir):
        _own_directory(directory, create=False)
    plan = _plan(agent_dir, config, key_bytes)
    result: dict[str, Any] = {"changed": [], "replaced": None}
    if plan == "unchanged":
        return result
    result["changed"] = [config_path] if plan == "update" else [config_path, key_path]
    if plan == "replace":
        result["replaced"] = f"{agent_dir}{REPLACED}{time.time_ns() // 1_000_000}"
    if dry_run:
        return result
    _own_directory(parent, create=True)
    if result["replaced"] is not None:
        _move_aside(agent_dir, result["replaced"])
    _own_directory(agent_dir, create=True)
    with Transaction(parent, lock_timeout=5.0) as tx:
        if plan == "update":
            tx.write(config_path, config.to_bytes(), mode=0o600)
        else:
            identity.stage_new_identity(tx, agent_dir, config, key, adopt=(SPOOL,))
    return result


def _move_aside(agent_dir: str, aside: str) -> None:
    """Rename the old state while holding its ``flush.lock``: no flusher of the old identity writes on after."""
    deadline = time.monotonic() + 5.0
    while True:
        with try_lock(agent_dir) as held:
            if held:
                os.rename(agent_dir, aside)
                return
        if time.monotonic() > deadline:
            raise identity.IdentityError(agent_dir, "a flusher of the earlier identity keeps running; try again")
        time.sleep(0.05)


def _plan(agent_dir: str, config: AgentConfig, key_bytes: bytes) -> str:
    """``create``, ``update`` (config.json only), ``unchanged`` or ``replace`` (move the old state aside)."""
    if not os.path.lexists(agent_dir):
        return "create"
    config_path = os.path.join(agent_dir, CONFIG)
    if not os.path.lexists(config_path):
        leftovers = [n for n in identity.LEFTOVER_STATE if n != SPOOL and os.path.lexists(os.path.join(agent_dir, n))]
        return "replace" if leftovers else "create"
    try:
        current = identity.read_config(agent_dir)
        held = files.read_physical(os.path.join(agent_dir, PRIVATE_KEY), max_bytes=identity.SECRET_LIMIT)
    except (ConfigError, OSError):
        return "replace"
    same = (current.org_id, current.agent_id, current.kid) == (config.org_id, config.agent_id, config.kid)
    if not same or held != key_bytes or current.is_local:
        return "replace"
    return "unchanged" if files.read_physical(config_path, max_bytes=identity.CONFIG_LIMIT) == config.to_bytes() \
        else "update"


def _own_directory(path: str, *, create: bool) -> None:
    """``path`` is a real directory of the running user (created 0700 when ``create``), owner-only."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        if not create:
            return
        os.mkdir(path, 0o700)
        info = os.lstat(path)
    if not stat.S_ISDIR(info.st_mode) or not _platform.owned_by_caller(info):
        raise identity.IdentityError(path, "is not a directory of the user being provisioned; nothing was written")
    if not _platform.is_private(info) and create:
        os.chmod(path, 0o700)
