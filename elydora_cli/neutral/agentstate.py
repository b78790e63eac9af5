"""An agent's state as the generated guard reads it: ``config.json``, then the local or cached status.

The agent directory is ``<state root>/.elydora/<agent id>`` (opened without following a link; every file
is then opened relative to it). Files must be owner-only regular files of at most 512 KiB holding flat JSON
objects, parsed by the guard's own reader. A local agent's status is ``status.json``; a server agent's is
``status-cache.json``, and a cache that is absent, broken or older than 60 s starts the detached refresher
exactly as the guard does (an absent or broken cache is an error; a stale one still decides).

Under ``elydora verify`` (``ELYDORA_VERIFY_PROBE`` names a fresh probe directory inside the agent directory,
see :func:`probe_directory`) the status is that directory's ``status.json`` and the event is spooled there, as
the generated runtime does; a value naming no valid probe is ignored (and logged by the caller).
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
import time
from types import TracebackType
from typing import Any

from elydora_config import _platform
from elydora_config._platform import locking
from elydora_config.records import record

from ..statefiles import (
    CACHE_TTL,
    CONFIG,
    CONFIG_LIMIT,
    PROBE_ENV,
    PROBE_LIFETIME,
    PROBE_NAME_BYTES,
    PROBE_PREFIX,
    QUERY_GRACE,
    REFRESH_LOCK,
    STATUS,
    STATUS_CACHE,
    STATUSES,
    agent_dir_path,
)
from ..statefiles import CONFIG_KEYS as _CONFIG_KEYS
from .contract import ContractError

FILE_LIMIT = CONFIG_LIMIT
CONFIG_KEYS = frozenset(_CONFIG_KEYS)
_DIR_FLAGS = os.O_RDONLY | _platform.O_DIRECTORY | _platform.O_NOFOLLOW | _platform.O_CLOEXEC
_READ_FLAGS = os.O_RDONLY | _platform.O_NOFOLLOW | _platform.O_NONBLOCK | _platform.O_CLOEXEC  # a FIFO: refused
_LOCK_FLAGS = os.O_RDWR | os.O_CREAT | _platform.O_NOFOLLOW | _platform.O_CLOEXEC


class AgentStateError(ContractError):
    """The agent's state cannot be read or does not allow a decision."""


def _flat_members(pairs: list[tuple[str, Any]]) -> dict[str, object]:
    result: dict[str, object] = {}
    for key, value in pairs:
        if key in result:
            raise ValueError("duplicate member")
        if isinstance(value, (dict, list)):
            raise ValueError("expected a string, number, true, false or null")
        result[key] = value
    return result


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


_FLAT = json.JSONDecoder(object_pairs_hook=_flat_members, parse_constant=_no_constant)


def parse_flat_object(text: str) -> dict[str, object]:
    """A JSON object whose members are all scalars, without duplicates (what the guard's reader accepts)."""
    value = _FLAT.decode(text)
    if not isinstance(value, dict):
        raise ValueError("expected an object")
    return value


def agent_directory(state_root: str, agent_id: str) -> str:
    """``<state root>/.elydora/<agent id>`` for a safe agent id (:func:`~elydora_cli.statefiles.check_agent_id`:
    the reserved names are refused here as everywhere)."""
    return agent_dir_path(state_root, agent_id)


class AgentDir:
    """An open agent directory; files are read and written relative to its descriptor."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.agent_id = os.path.basename(path)
        try:
            self.fd = _platform.open_at(path, _DIR_FLAGS)
        except FileNotFoundError:
            raise AgentStateError(
                f"no agent {self.agent_id!r} in {os.path.dirname(path)} (create it with `elydora install`"
                " or `elydora agent create`)"
            ) from None
        except NotADirectoryError:
            raise AgentStateError(f"{path} is not a directory") from None
        except OSError as exc:
            raise AgentStateError(f"{path}: {exc.strerror or exc}") from None

    def __enter__(self) -> AgentDir:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    def close(self) -> None:
        if self.fd >= 0:
            _platform.close(self.fd)
            self.fd = -1

    def read(self, name: str) -> bytes | None:
        """An owner-only regular file of at most 512 KiB (``None`` when absent), links not followed."""
        try:
            fd = _platform.open_at(name, _READ_FLAGS, dir_fd=self.fd)
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise AgentStateError(f"cannot open {name}: {exc.strerror}") from None
        try:
            info = os.fstat(fd)
            if info.st_mode & 0o170000 != 0o100000:
                raise AgentStateError(f"{name} is not a regular file")
            if not _platform.is_private(info):
                raise AgentStateError(f"{name} is accessible by other users")
            data = os.read(fd, FILE_LIMIT + 1)
            if len(data) > FILE_LIMIT:
                raise AgentStateError(f"{name} is larger than {FILE_LIMIT} bytes")
            return data
        finally:
            os.close(fd)

    def read_object(self, name: str) -> dict[str, object] | None:
        data = self.read(name)
        if data is None:
            return None
        try:
            return parse_flat_object(data.decode("utf-8"))
        except (ValueError, UnicodeDecodeError) as exc:
            raise AgentStateError(f"{name} is not valid: {exc}") from None

    def lock_is_free(self, name: str) -> bool:
        """Whether nobody holds ``name`` (an ``flock`` target that is created and never removed)."""
        fd = _platform.open_at(name, _LOCK_FLAGS, 0o600, dir_fd=self.fd)
        try:
            locking.flock(fd, locking.LOCK_EX_NB)
        except BlockingIOError:
            return False
        finally:
            os.close(fd)
        return True

    def spawn(self, python: str, module: str, lock: str) -> None:
        """Start ``<python> -I -m <module> <dir>`` detached unless its lock is held (the runtime's way)."""
        if not self.lock_is_free(lock):
            return
        _platform.spawn_detached([python, "-I", "-m", module, self.path])


@record(frozen=True)
class AgentState:
    agent_id: str
    provider_id: str
    """``agent_name`` of ``config.json``: the catalog provider the agent was created for."""
    server: bool
    status: str
    source: str
    """The file the status came from (``status.json`` or ``status-cache.json``)."""


def probe_directory(agent: AgentDir, environ: Any = os.environ) -> tuple[str | None, str | None]:
    """(the scratch directory of an ``elydora verify`` probe, ``None``); (``None``, why) when ``PROBE_ENV`` is
    set but names no probe this agent may honour; (``None``, ``None``) outside verify. The rule of the generated
    runtime (``runtime/templates/hookinput.probe_directory``): a directory ``<PROBE_PREFIX><32 hex digits>``
    inside the agent directory, not a link, owner-only, this user's, changed within ``PROBE_LIFETIME``."""
    name = environ.get(PROBE_ENV)
    if name is None:
        return None, None
    if len(name) != 2 * PROBE_NAME_BYTES or any(c not in "0123456789abcdef" for c in name):
        return None, f"{PROBE_ENV} is not a probe name ({name[:40]!r})"
    path = os.path.join(agent.path, PROBE_PREFIX + name)
    try:
        info = _platform.stat_at(PROBE_PREFIX + name, dir_fd=agent.fd, follow_symlinks=False)
    except OSError:
        return None, f"{PROBE_ENV} names no probe of elydora verify ({name})"
    private = _platform.is_private(info) and _platform.owned_by_caller(info) and not _platform.is_link(info)
    if not stat.S_ISDIR(info.st_mode) or not private:
        return None, f"{PROBE_ENV}: {path} is not an owner-only directory of uid {_platform.user_id()}"
    age = time.time() - info.st_mtime
    if not -1.0 <= age <= PROBE_LIFETIME:
        return None, f"{PROBE_ENV}: {path} is not a fresh probe ({int(age)} s old)"
    return path, None


def read_state(
    agent: AgentDir, *, provider_id: str | None, python: str, status_from: AgentDir | None = None
) -> AgentState:
    """The agent's status as the guard would apply it now (:class:`AgentStateError` when it cannot);
    ``status_from``: a verify scratch directory whose ``status.json`` decides instead."""
    config = agent.read_object(CONFIG)
    if config is None:
        raise AgentStateError(f"{agent.path}: {CONFIG} is missing")
    if not set(config) <= CONFIG_KEYS:
        raise AgentStateError(f"{CONFIG} has unknown keys")
    for key in ("org_id", "agent_id", "kid", "agent_name"):
        if not isinstance(config.get(key), str) or not config[key]:
            raise AgentStateError(f"{CONFIG}: {key} must be a non-empty string")
    agent_name = str(config["agent_name"])
    if config["agent_id"] != agent.agent_id or (provider_id is not None and agent_name != provider_id):
        raise AgentStateError(f"{agent.path}/{CONFIG} belongs to another agent")
    base_url = config.get("base_url")
    if base_url is not None and (not isinstance(base_url, str) or not base_url.startswith(("http://", "https://"))):
        raise AgentStateError(f"{CONFIG}: base_url must be an http(s) URL or null")
    if status_from is not None:
        return AgentState(agent.agent_id, agent_name, base_url is not None, _local_status(status_from), STATUS)
    if base_url is None:
        return AgentState(agent.agent_id, agent_name, False, _local_status(agent), STATUS)
    return AgentState(agent.agent_id, agent_name, True, _cached_status(agent, python), STATUS_CACHE)


def _local_status(agent: AgentDir) -> str:
    state = agent.read_object(STATUS)
    if state is None:
        raise AgentStateError(f"{STATUS} is missing")
    status = state.get("status")
    if status not in STATUSES:
        raise AgentStateError(f"{STATUS}: unknown status")
    return str(status)


def _refresh(agent: AgentDir, python: str) -> None:
    with contextlib.suppress(OSError):  # best effort, as in the guard: the next call tries again
        agent.spawn(python, "elydora_cli.runtime.refresh", REFRESH_LOCK)


def _cached_status(agent: AgentDir, python: str) -> str:
    try:
        cache = agent.read_object(STATUS_CACHE)
    except AgentStateError:
        _refresh(agent, python)
        raise
    if cache is None:
        _refresh(agent, python)
        raise AgentStateError("no cached agent status yet; a refresh was started")
    status, cached_at, checked_at = cache.get("status"), cache.get("cached_at"), cache.get("checked_at", 0)
    if status not in STATUSES or not isinstance(cached_at, (int, float)) or not isinstance(checked_at, (int, float)):
        _refresh(agent, python)
        raise AgentStateError(f"{STATUS_CACHE} is not valid")
    now = time.time()  # a time in the future counts as never, as in the guard
    if now - max([stamp for stamp in (cached_at, checked_at) if stamp <= now], default=0.0) > CACHE_TTL:
        _refresh(agent, python)
    error, since = cache.get("query_error"), cache.get("query_failing_since")
    refused_for = time.time() - since if isinstance(since, (int, float)) else QUERY_GRACE + 1
    if error is not None and status == "active" and refused_for > QUERY_GRACE:  # as the guard: status unknown
        raise AgentStateError(f"the server has refused the status query ({error}) for {int(refused_for)} s")
    return str(status)
