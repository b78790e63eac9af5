"""Audit events the hook could not spool (a full disk, a quota): never lost without a trace.

When the append to ``spool.jsonl`` fails for lack of space, the audit hook creates an empty marker file
``spool.dropped.<receipt ms>.<pid>`` in the agent directory (an empty file needs an inode, not a data block,
so it can usually still be created on a full disk). ``status`` reports the count; the flusher turns the
markers into one signed gap record of the ledger and removes them (:func:`take`).
The prefix is restated in the hook template (a test pins the copies equal).
"""

from __future__ import annotations

import json
import os
import time

PREFIX = "spool.dropped."
GAP_EVENT = "elydora.gap"


def markers(agent_dir: str) -> list[tuple[int, str]]:
    """(receipt ms, file name) of every drop marker, oldest first."""
    try:
        entries = os.listdir(agent_dir)
    except OSError:
        return []
    found = []
    for name in entries:
        if not name.startswith(PREFIX):
            continue
        stamp = name[len(PREFIX) :].partition(".")[0]
        if stamp.isdigit():
            found.append((int(stamp), name))
    return sorted(found)


def pending_drops(agent_dir: str) -> int:
    return len(markers(agent_dir))


def remove(agent_dir: str, names: list[str]) -> None:
    for name in names:
        try:  # not contextlib.suppress: status imports this module and loads no contextlib
            os.unlink(os.path.join(agent_dir, name))
        except FileNotFoundError:
            continue


def gap_event(found: list[tuple[int, str]]) -> bytes:
    """The gap event for drop markers: how many events were dropped and between which receipt times."""
    event = {
        "hook_event_name": GAP_EVENT,
        "session_id": "elydora-runtime",
        "tool_name": "elydora",
        "reason": "disk full: the audit hook could not spool these events",
        "dropped": len(found),
        "first_dropped_ms": found[0][0],
        "last_dropped_ms": found[-1][0],
    }
    return json.dumps(event).encode("ascii")


def spool_gap(agent_dir: str, spool_path: str) -> int:
    """Turn the drop markers into one gap event in the spool (signed like any event by the flusher), then
    remove them; a failed append keeps them for the next run. Returns the number of drops recorded."""
    from .spool import append_event  # only here: status reads the markers without the spool's locking

    found = markers(agent_dir)
    if not found or not append_event(spool_path, gap_event(found), time.time_ns() // 1_000_000):
        return 0
    remove(agent_dir, [name for _, name in found])
    return len(found)
