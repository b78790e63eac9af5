"""The detached flusher's first step: let a burst of tool calls finish before the flusher's heavy work.

An agent often runs several tools at once, so the audit hook that starts the flusher is seldom alone: the
other hooks of the burst are starting while the flusher would import its signing library and sign. On a
machine with few cores that work competes with the hooks the agent waits for. So the boot code the hook
runs (``FLUSH_BOOT`` in ``templates/hook.py``) calls :func:`wait_for_quiet` before it imports anything
else of the package: the flusher waits until ``spool.jsonl`` has not grown for :data:`QUIET` seconds (at
most :data:`LIMIT` seconds in all, so a steady stream of events is still delivered), then drains the whole
burst in one pass. Only builtin modules are used here: waiting costs the interpreter's start and nothing more.
"""

import sys
import time

if sys.platform == "win32":  # no posix module there; os is loaded at start-up anyway
    from os import stat
else:
    from posix import stat

from ..statefiles import SPOOL

QUIET = 0.03
"""Seconds without a new spool line after which the burst counts as over."""
LIMIT = 1.0
"""Longest wait in seconds, however busy the spool."""
POLL = 0.01


def spool_size(agent_dir: str) -> int:
    """The spool's size in bytes (-1 when absent or unreadable)."""
    try:
        return stat(f"{agent_dir}/{SPOOL}", follow_symlinks=False).st_size  # Windows takes "/" too
    except OSError:
        return -1


def wait_for_quiet(agent_dir: str, quiet: float = QUIET, limit: float = LIMIT) -> float:
    """Return once the spool has kept its size for ``quiet`` seconds, or after ``limit`` seconds; returns the
    seconds waited."""
    start = time.monotonic()
    last, since = spool_size(agent_dir), start
    while True:
        time.sleep(POLL)
        now = time.monotonic()
        size = spool_size(agent_dir)
        if size != last:
            last, since = size, now
        if now - since >= quiet or now - start >= limit:
            return now - start
