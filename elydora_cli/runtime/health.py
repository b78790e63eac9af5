"""Delivery health and status-query health of a server-bound agent, for ``elydora status``.

The flusher records what happened in ``delivery.json`` (``last_accepted``, ``last_refusal``, ``stopped``)
and, while delivery is stopped for good (a refusal that is permanent for the agent), writes the one-line
reason to ``delivery-stopped``, which the guard prints on stderr. The refresher records a refused status
query in ``status-cache.json`` (``query_error``, ``query_failing_since``). :func:`agent_health` reads all of
it without changing anything.
"""

from __future__ import annotations

import json
import os
import time
from typing import TYPE_CHECKING

from elydora_config import files
from elydora_config.errors import ConfigError

from ..identity import DELIVERY, DELIVERY_STOPPED, OUTBOX, SPOOL, STATUS_CACHE, read_config
from ..readpass import DIRECT, Reads
from ..statefiles import FAR_STALE, QUERY_GRACE
from . import state

if TYPE_CHECKING:
    from typing import Any

__all__ = ["FAR_STALE", "QUERY_GRACE", "agent_health", "note", "note_stopped", "recorded", "server_health"]
HEALTH_LIMIT = 64 << 10
_SCAN_LIMIT = 64 << 20


def _read_json(path: str) -> dict[str, Any]:
    try:
        data = files.read_physical(path, max_bytes=HEALTH_LIMIT)
        value = json.loads(data) if data is not None else {}
    except (ValueError, OSError):
        return {}
    return value if isinstance(value, dict) else {}


def recorded(agent_dir: str) -> dict[str, Any]:
    """What the flusher last recorded in ``delivery.json`` (empty when absent or unreadable)."""
    return _read_json(os.path.join(agent_dir, DELIVERY))


def note(agent_dir: str, **changes: Any) -> None:
    """Merge ``changes`` into ``delivery.json`` (only the flusher writes it, under ``flush.lock``)."""
    current = _read_json(os.path.join(agent_dir, DELIVERY))
    current.update(changes)
    data = (json.dumps(current, sort_keys=True) + "\n").encode("ascii")
    files.write_atomic(os.path.join(agent_dir, DELIVERY), data, mode=0o600)


def note_stopped(agent_dir: str, reason: str | None) -> None:
    """Set (or clear, with ``None``) the stop mark the guard reports on stderr."""
    path = os.path.join(agent_dir, DELIVERY_STOPPED)
    if reason is None:
        try:  # not contextlib.suppress: status imports this module and loads no contextlib
            os.unlink(path)
        except FileNotFoundError:
            return
        return
    line = reason.replace("\n", " ")[:300] + "\n"
    files.write_atomic(path, line.encode("utf-8", "replace"), mode=0o600)


def _pending(agent_dir: str, reads: Reads) -> tuple[int, float | None]:
    """Events in the spool past the delivered offset, and the receipt time (epoch s) of the oldest."""
    try:
        offset = state.load(agent_dir, reads=reads).spool_offset
    except (state.StateError, OSError):
        offset = 0
    count, oldest = 0, None
    try:
        with open(os.path.join(agent_dir, SPOOL), "rb") as handle:
            handle.seek(offset)
            for line in handle.readlines(_SCAN_LIMIT):
                stamp, _sep, _rest = line.partition(b" ")
                if line.endswith(b"\n") and stamp.isdigit():
                    count += 1
                    oldest = int(stamp) / 1000 if oldest is None else oldest
    except OSError:
        pass
    return count, oldest


def query_health(agent_dir: str, now: float) -> dict[str, Any]:
    cache = _read_json(os.path.join(agent_dir, STATUS_CACHE))
    cached_at, checked_at = cache.get("cached_at"), cache.get("checked_at")
    error, since = cache.get("query_error"), cache.get("query_failing_since")
    result: dict[str, Any] = {"status": cache.get("status"), "cached_at": cached_at, "error": error}
    problem = None
    if not cache:
        problem = "no agent status has been read from the server yet"
    elif error:
        problem = f"the server refuses the status query ({error})"
        if isinstance(since, (int, float)):
            result["failing_for_s"] = int(now - since)
    elif (
        isinstance(cached_at, (int, float))
        and isinstance(checked_at, (int, float))
        and checked_at - cached_at > QUERY_GRACE
    ):
        problem = f"the status could not be refreshed for {int(checked_at - cached_at)} s"
    result["healthy"], result["problem"] = problem is None, problem
    return result


def agent_health(agent_dir: str, now: float | None = None, *, reads: Reads = DIRECT) -> dict[str, Any]:
    """``{"healthy", "problems", "delivery": {...}, "status_query": {...}}`` of a server-bound agent."""
    moment = time.time() if now is None else now
    recorded = _read_json(os.path.join(agent_dir, DELIVERY))
    pending, oldest = _pending(agent_dir, reads)
    pending += os.path.lexists(os.path.join(agent_dir, OUTBOX)) and pending == 0
    delivery: dict[str, Any] = {
        "last_accepted": recorded.get("last_accepted"),
        "last_refusal": recorded.get("last_refusal"),
        "stopped": recorded.get("stopped"),
        "pending": int(pending),
        "oldest_pending_age_s": None if oldest is None else max(0, int(moment - oldest)),
    }
    query = query_health(agent_dir, moment)
    problems = []
    if delivery["stopped"]:
        problems.append(f"delivery stopped: the server refuses this agent ({delivery['stopped']})")
    if query["problem"]:
        problems.append(str(query["problem"]))
    return {"healthy": not problems, "problems": problems, "delivery": delivery, "status_query": query}


def server_health(agent_dir: str, *, reads: Reads = DIRECT) -> dict[str, Any] | None:
    """:func:`agent_health` for a server-bound agent; ``None`` for a local one or an unreadable config."""
    try:
        if read_config(agent_dir, reads=reads).is_local:
            return None
    except (ConfigError, OSError):
        return None  # the installer's own checks report a broken identity
    return agent_health(agent_dir, reads=reads)


def summary(report: dict[str, Any]) -> str:
    """One line for ``elydora status``: delivery and status-query health."""
    delivery, query = report["delivery"], report["status_query"]
    last = delivery["last_accepted"]
    parts = [
        f"last accepted #{last['seq']}" if isinstance(last, dict) else "nothing accepted yet",
        f"{delivery['pending']} pending",
    ]
    if delivery["oldest_pending_age_s"] is not None:
        parts.append(f"oldest {delivery['oldest_pending_age_s']} s")
    refusal = delivery["last_refusal"]
    if isinstance(refusal, dict):
        parts.append(f"last refusal {refusal.get('code')}")
    parts.append("status query ok" if query["healthy"] else f"status query: {query['problem']}")
    return "delivery: " + ", ".join(parts)
