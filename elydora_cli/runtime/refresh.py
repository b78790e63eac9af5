"""Background refresh of a server-bound agent's status cache (``status-cache.json``).

Started detached by the guard (``<python> -I -m elydora_cli.runtime.refresh <agent dir>``) when the cache
is older than 60 s, absent or broken; at most one runs per agent (``refresh.lock``). It calls
``GET {base_url}/v1/agents/{agent_id}`` and writes ``{"status", "cached_at", "checked_at"}``, where a
non-active ``kid`` counts as ``revoked``. When the server cannot be asked, the last known status is kept and
only ``checked_at`` moves, so an offline guard starts at most one refresh a minute.
"""

from __future__ import annotations

import fcntl
import json
import os
import sys
import time

from elydora_config import files
from elydora_config.errors import ConfigError

from ..identity import REFRESH_LOCK, STATUS_CACHE, STATUSES, read_config
from . import client
from .errorlog import log_error

CACHE_LIMIT = 64 << 10


def cache_bytes(status: str, cached_at: float, checked_at: float) -> bytes:
    data = {"status": status, "cached_at": int(cached_at), "checked_at": int(checked_at)}
    return (json.dumps(data) + "\n").encode("ascii")


def write_cache(agent_dir: str, status: str, cached_at: float, checked_at: float) -> None:
    path = os.path.join(agent_dir, STATUS_CACHE)
    files.write_atomic(path, cache_bytes(status, cached_at, checked_at), mode=0o600)


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


def fetch_status(agent_dir: str) -> str:
    """The status the guard must apply, asked from the server now (raises on any failure)."""
    config = read_config(agent_dir)
    if config.base_url is None:
        raise ValueError("the agent is local; it has no server status")
    response = client.get_agent(config.base_url, config.token, config.agent_id)
    if not response.ok:
        raise ValueError(f"GET agent answered {response.status} {response.code or ''} {response.message}")
    return client.agent_status(response, config.kid)


def refresh(agent_dir: str) -> str | None:
    """Refresh the cache; the new status, or ``None`` when the server could not be asked."""
    now = time.time()
    try:
        status = fetch_status(agent_dir)
    except (client.TransportError, ConfigError, ValueError, OSError) as exc:
        log_error(agent_dir, "refresh", f"cannot refresh the agent status: {exc}")
        previous = read_cache(agent_dir)
        if previous is not None:
            cached_at = previous["cached_at"]
            assert isinstance(cached_at, (int, float))
            write_cache(agent_dir, str(previous["status"]), cached_at, now)
        return None
    write_cache(agent_dir, status, now, now)
    return status


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        sys.stderr.write("usage: python -m elydora_cli.runtime.refresh <agent dir>\n")
        return 2
    directory = os.path.abspath(args[0])
    try:
        fd = os.open(os.path.join(directory, REFRESH_LOCK), os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
    except OSError as exc:
        log_error(directory, "refresh", f"cannot open the refresh lock: {exc}")
        return 1
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return 0
        try:
            return 0 if refresh(directory) is not None else 1
        except Exception as exc:  # a detached process: the error log is its only voice
            log_error(directory, "refresh", f"{type(exc).__name__}: {exc}")
            return 1
    finally:
        os.close(fd)


if __name__ == "__main__":
    sys.exit(main())
