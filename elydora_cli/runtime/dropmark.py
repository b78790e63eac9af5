"""Audit events the hook could not spool (a full disk, a quota): never lost without a trace.

When the append to ``spool.jsonl`` fails for lack of space, the audit hook creates an empty marker file
``spool.dropped.<receipt ms>.<pid>`` in the agent directory (an empty file needs an inode, not a data block,
so it can usually still be created on a full disk). ``status`` reports the count; the flusher turns the
markers into one signed gap record of the ledger and removes them (:func:`take`).
The prefix is restated in the hook template (a test pins the copies equal).
"""

from __future__ import annotations

import contextlib
import os

PREFIX = "spool.dropped."


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
        with contextlib.suppress(FileNotFoundError):
            os.unlink(os.path.join(agent_dir, name))
