"""Spooled events not yet in the ledger, and catching up with them before the ledger is read.

The audit hook spools an event and starts a detached flusher; ``audit tail`` and ``audit verify`` run right
after it would otherwise race that flusher. :func:`catch_up` delivers what is pending first: a local agent's
events in this process (when no flusher runs), or it waits, bounded, for the running flusher. A server-bound
agent's events are never posted from here (``elydora audit flush`` does that); they are counted instead.
"""

from __future__ import annotations

import os
import time

from .identity import SPOOL, read_config
from .runtime import flush, flushlock, spool, state

WAIT_SECONDS = 5.0
POLL_SECONDS = 0.02
COUNT_BATCH = 256


def count(agent_dir: str) -> int:
    """The complete, non-blank spool lines past the delivered offset (events not yet in the ledger; the hook
    may start its write with a newline that ends a torn line, which is no event)."""
    try:
        offset = state.load(agent_dir).spool_offset
    except state.StateError:
        offset = 0
    total, path = 0, os.path.join(agent_dir, SPOOL)
    while lines := spool.read_lines(path, offset, COUNT_BATCH):
        total += sum(1 for line in lines if line.raw.strip())
        offset = lines[-1].end
    return total


def catch_up(agent_dir: str, *, wait: float | None = None) -> int:
    """Deliver (local agent) or wait for (running flusher) the pending events; returns how many are still
    pending when ``wait`` seconds (default :data:`WAIT_SECONDS`) are up or delivery stopped."""
    local = read_config(agent_dir).is_local
    deadline = time.monotonic() + (WAIT_SECONDS if wait is None else wait)
    while flush.has_undelivered(agent_dir) and time.monotonic() < deadline:
        if local and flush.flush(agent_dir) == flushlock.STOPPED:
            break
        if flush.has_undelivered(agent_dir):
            time.sleep(POLL_SECONDS)  # a flusher holds the lock (or a server-bound agent's is running)
    return count(agent_dir) if flush.has_undelivered(agent_dir) else 0
