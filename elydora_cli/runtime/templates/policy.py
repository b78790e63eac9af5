"""Elydora system-scope policy: where each user's state is, and the root-owned status the guard decides from.

Generated only by ``elydora install --scope system``, beside the root-owned launchers, as ``_elydora_policy.py``
(0644); the launchers hand it to the guard and the audit hook (their global ``POLICY``) when their ``SYSTEM``
parameter is set. Stdlib only.

- :data:`USER_STATE_DIR`: the state directory of the user the hook runs as, ``<home>/.elydora/<agent id>@<user>``
  (the home from the password database, placed below ``USER_ROOT``); the audit creates it on first use.
- :func:`system_status`: the most restrictive of the machine-wide ``status.json`` beside this module (required),
  ``users/<user>.json`` (optional) and the user's own ``status.json`` (optional). Policy files must be regular,
  owned by ``OWNER_UID`` (root) and writable by nobody else. Only root writes them, so a user who deletes or
  edits their own state cannot lift a freeze; a missing or unsafe policy raises, and the guard then blocks.
  A user bound to a server by ``agent provision`` adds the server's status (:func:`server_status`).
"""

from __future__ import annotations

import sys

if sys.platform == "win32":  # no system scope on Windows yet: install refuses it (managed.require_root)
    raise ImportError("the system-scope policy runs on POSIX systems only")
import posix
import pwd

TYPE_CHECKING = False  # what typing.TYPE_CHECKING is, without importing typing on every tool call
if TYPE_CHECKING:
    from types import ModuleType

RUNTIME: ModuleType
"""The runtime module that loaded this one (``_elydora_guard`` or ``_elydora_audit``), given by the launcher
(``templates/launcher.py``) before this module runs; its functions use the guard's."""

# -- parameters: the generator replaces each marked line with the agent's value ---------------------------
AGENT_DIR = "/nonexistent/usr/local/lib/elydora/template"  # @param
AGENT_ID = "template"  # @param
USER_ROOT = ""  # @param
OWNER_UID = 0  # @param
# ---------------------------------------------------------------------------------------------------------

USER_SEPARATOR = "@"  # copies of elydora_cli.managed's constants (tests pin them equal)
POLICY_USERS = "users"
SYSTEM_STATUS = "status.json"
_OPEN_FLAGS = posix.O_RDONLY | posix.O_NOFOLLOW | posix.O_NONBLOCK | posix.O_CLOEXEC

_user = pwd.getpwuid(posix.getuid())
USER_NAME = _user.pw_name
USER_STATE_DIR = f"{USER_ROOT}{_user.pw_dir.rstrip('/')}/.elydora/{AGENT_ID}{USER_SEPARATOR}{USER_NAME}"


def read_policy(name: str) -> dict[str, object] | None:
    """A policy file beside this module (``None`` when absent), checked and parsed with the guard's reader."""
    guard = RUNTIME
    path = f"{AGENT_DIR}/{name}"
    try:
        fd = posix.open(path, _OPEN_FLAGS)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as exc:
        raise guard.GuardError(f"cannot open {path}: {exc.strerror}") from None
    try:
        info = posix.fstat(fd)
        if info.st_mode & 0o170000 != 0o100000 or info.st_uid != OWNER_UID or info.st_mode & 0o022:
            raise guard.GuardError(f"{path} is not a policy file only root can write")
        data = posix.read(fd, guard.FILE_LIMIT + 1)
    finally:
        posix.close(fd)
    try:
        if len(data) > guard.FILE_LIMIT:
            raise ValueError("too large")
        return guard.parse_flat_object(data.decode("utf-8"))  # type: ignore[no-any-return,unused-ignore]
    except (ValueError, UnicodeDecodeError) as exc:
        raise guard.GuardError(f"{path} is not valid: {exc}") from None


def system_status() -> str:
    """The status the guard applies under system scope (see the module docstring)."""
    guard = RUNTIME
    machine = read_policy(SYSTEM_STATUS)
    if machine is None:
        raise guard.GuardError(f"{AGENT_DIR}/{SYSTEM_STATUS} is missing")
    statuses = []
    for state in (machine, read_policy(f"{POLICY_USERS}/{USER_NAME}.json"), guard.read_object("status.json")):
        if state is None:
            continue
        if state.get("status") not in guard.STATUSES:
            raise guard.GuardError("a policy or status file holds an unknown status")
        statuses.append(str(state["status"]))
    server = server_status()
    if server is not None:
        statuses.append(server)
    return max(statuses, key=guard.STATUSES.index)


def server_status() -> str | None:
    """A bound user's status on the server (``agent provision``), by the guard's cache and refresh as in user
    scope, so a freeze or revocation on the server blocks too. ``None`` for a user with a local identity, and
    before the server's first answer: root's policy alone decides then, and a refresh is started in the
    background (a server that never answers writes no cache, so waiting here would slow every call)."""
    guard = RUNTIME
    config = guard.read_object("config.json")
    if config is None or config.get("base_url") is None:
        return None
    try:  # only whether it exists: cached_status reads and checks it (a link or a bad file still fails)
        posix.lstat(f"{guard.AGENT_DIR}/status-cache.json")
    except FileNotFoundError:
        guard.start_refresh()
        return None
    return str(guard.cached_status())
