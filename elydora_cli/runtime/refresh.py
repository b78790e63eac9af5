"""Background refresh of a server-bound agent's status cache (``status-cache.json``).

Started detached by the guard (``<python> -I -m elydora_cli.runtime.refresh <agent dir>``) when the cache
is older than 60 s, absent or broken (and run synchronously, with a short timeout, when the cache is far
beyond its lifetime); at most one runs per agent (``refresh.lock``), and one that finds the cache checked
less than a cache lifetime ago (by a refresher that held the lock before it) leaves it at that. It calls
``GET {base_url}/v1/agents/{agent_id}`` and writes ``{"status", "cached_at", "checked_at"}``, where a
non-active or missing ``kid`` and ``404 UNKNOWN_AGENT`` count as ``revoked``. When the server cannot be
reached, the last known status is kept and only ``checked_at`` moves, so an offline guard starts at most one
refresh a minute. When the server *refuses* the query (401, 403), the cache also carries ``query_error`` and
``query_failing_since``: the guard reports it and, after :data:`.health.QUERY_GRACE`, applies the
provider's failure mode for "status unknown".
"""

from __future__ import annotations

import json
import os
import sys
import time

from elydora_config import _platform, files
from elydora_config._platform import locking
from elydora_config.errors import ConfigError

from ..identity import REFRESH_LOCK, STATUS_CACHE, STATUSES, read_config
from ..statefiles import CACHE_TTL
from . import client
from .errorlog import log_error

CACHE_LIMIT = 64 << 10


class QueryRefused(Exception):
    """The server answered the status query with 401/403: the status is unknown, not unreachable."""


def cache_bytes(
    status: str, cached_at: float, checked_at: float, error: str | None = None, since: float | None = None
) -> bytes:
    data: dict[str, object] = {"status": status, "cached_at": int(cached_at), "checked_at": int(checked_at)}
    if error is not None:
        data.update(query_error=error, query_failing_since=int(since if since is not None else checked_at))
    return (json.dumps(data) + "\n").encode("ascii")


def write_cache(
    agent_dir: str,
    status: str,
    cached_at: float,
    checked_at: float,
    error: str | None = None,
    since: float | None = None,
) -> None:
    path = os.path.join(agent_dir, STATUS_CACHE)
    files.write_atomic(path, cache_bytes(status, cached_at, checked_at, error, since), mode=0o600)


def read_cache(agent_dir: str) -> dict[str, object] | None:
    try:
        data = files.read_physical(os.path.join(agent_dir, STATUS_CACHE), max_bytes=CACHE_LIMIT)
        cache = json.loads(data) if data is not None else None
    except (ValueError, OSError):
        return None
    if not isinstance(cache, dict) or cache.get("status") not in STATUSES:
        return None
    if not isinstance(cache.get("cached_at"), (int, float)):
        return None
    return cache


def fetch_status(agent_dir: str, timeout: float = client.GET_TIMEOUT) -> str:
    """The status the guard must apply, asked from the server now (raises on any failure)."""
    config = read_config(agent_dir)
    if config.base_url is None:
        raise ValueError("the agent is local; it has no server status")
    response = client.get_agent(config.base_url, config.token, config.agent_id, timeout=timeout)
    return status_from(response, config.kid)


def status_from(response: client.Response, kid: str) -> str:
    """The guard's status from a ``GET /v1/agents/{id}`` answer; :class:`QueryRefused` on 401/403."""
    if response.status == 404 and response.code in (None, "UNKNOWN_AGENT", "NOT_FOUND"):
        return "revoked"  # the agent is gone from the server: it can never be active again
    if response.status in (401, 403):
        raise QueryRefused(f"{response.status} {response.code or ''}".strip())
    if not response.ok:
        raise ValueError(f"GET agent answered {response.status} {response.code or ''} {response.message}")
    return client.agent_status(response, kid)


def refresh(agent_dir: str, timeout: float = client.GET_TIMEOUT) -> str | None:
    """Refresh the cache; the new status, or ``None`` when the server could not be asked."""
    now = time.time()
    try:
        status = fetch_status(agent_dir, timeout)
    except QueryRefused as exc:  # the cache first: a guard that sees the log line sees the attempt
        _keep_previous(agent_dir, now, str(exc))
        log_error(agent_dir, "refresh", f"the server refuses the agent status query: {exc}")
        return None
    except (client.TransportError, ConfigError, ValueError, OSError) as exc:
        _keep_previous(agent_dir, now, None)
        log_error(agent_dir, "refresh", f"cannot refresh the agent status: {exc}")
        return None
    write_cache(agent_dir, status, now, now)
    return status


def _keep_previous(agent_dir: str, now: float, error: str | None) -> None:
    """Keep the last known status; move ``checked_at``; record (or carry on) a refused query."""
    previous = read_cache(agent_dir)
    if previous is None:
        return
    cached_at, since = previous["cached_at"], previous.get("query_failing_since")
    assert isinstance(cached_at, (int, float))
    if error is None and isinstance(previous.get("query_error"), str):
        error = str(previous["query_error"])  # unreachable now, still refused when last asked
    first = since if isinstance(since, (int, float)) and previous.get("query_error") else now
    write_cache(agent_dir, str(previous["status"]), cached_at, now, error, first if error else None)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) not in (1, 2) or (len(args) == 2 and not _is_seconds(args[1])):
        sys.stderr.write("usage: python -m elydora_cli.runtime.refresh <agent dir> [timeout seconds]\n")
        return 2
    directory = os.path.abspath(args[0])
    timeout = float(args[1]) if len(args) == 2 else client.GET_TIMEOUT
    try:
        lock = os.path.join(directory, REFRESH_LOCK)
        fd = _platform.open_at(lock, os.O_RDWR | os.O_CREAT | _platform.O_NOFOLLOW | _platform.O_CLOEXEC, 0o600)
    except OSError as exc:
        log_error(directory, "refresh", f"cannot open the refresh lock: {exc}")
        return 1
    try:
        try:
            locking.flock(fd, locking.LOCK_EX_NB)
        except BlockingIOError:
            return 0
        if _checked_lately(directory):  # another refresher ran since this one was started: one attempt is enough
            return 0
        try:
            return 0 if refresh(directory, timeout) is not None else 1
        except Exception as exc:  # a detached process: the error log is its only voice
            log_error(directory, "refresh", f"{type(exc).__name__}: {exc}")
            return 1
    finally:
        os.close(fd)


def _checked_lately(agent_dir: str) -> bool:
    """Whether the server was asked (or tried) less than :data:`CACHE_TTL` ago. The guard starts a refresher
    only for a cache checked longer ago than that, so such a cache was checked by another refresher since."""
    cache = read_cache(agent_dir)
    checked_at = cache.get("checked_at") if cache is not None else None
    return isinstance(checked_at, (int, float)) and 0 <= time.time() - checked_at < CACHE_TTL


def _is_seconds(text: str) -> bool:
    try:
        return 0 < float(text) <= 60
    except ValueError:
        return False


if __name__ == "__main__":
    sys.exit(main())
