"""What the audit trail holds in place of events, and what the runtime did not act on: for status and audit verify.

- **Gaps.** ``chain-state.json`` counts the ledger entries that stand for an event not in the ledger whole
  (gap entries, records of ``elydora.gap`` events: an event too large, stalled, not UTF-8, not JSON, nested too
  deep, dropped on a full disk, refused by the server, a ledger accepted after a rollback). ``audit verify``
  lists them and, when the ledger verifies, records the count it showed in ``audit-reviewed.json``; ``status``
  reports the gaps written since (state word ``audit gaps``), so none passes silently.
- **Host check.** ``host-check.log`` (written by the hooks, ``templates/hookinput.py``) has one line per event
  of another agent that was skipped (``foreign``) and per event without the host's marks that was decided and
  recorded as the host's (``unrecognised``); both files of its rotation are counted.
"""

from __future__ import annotations

import json
import os
import time

from elydora_config import files
from elydora_config.errors import ConfigError

from ..readpass import DIRECT, Reads
from ..statefiles import AUDIT_REVIEWED, HOST_LOG

REVIEWED_LIMIT = 4 << 10
HOST_LOG_SCAN = 4 << 20
HOST_KINDS = ("foreign", "unrecognised")


def reviewed_gaps(agent_dir: str, *, reads: Reads = DIRECT) -> int:
    """The gap count ``audit verify`` last showed (0 when it never did, or the mark is unreadable)."""
    try:
        data = reads.read_physical(os.path.join(agent_dir, AUDIT_REVIEWED), max_bytes=REVIEWED_LIMIT)
        value = json.loads(data).get("gaps") if data is not None else 0
    except (ConfigError, ValueError, OSError, AttributeError):
        return 0
    return value if isinstance(value, int) and value >= 0 else 0


def mark_reviewed(agent_dir: str, gaps: int, seq: int) -> None:
    """Record that ``audit verify`` showed ``gaps`` gap entries and records, the ledger verified up to ``seq``."""
    data = (json.dumps({"gaps": gaps, "seq": seq, "at": int(time.time())}) + "\n").encode("ascii")
    files.write_atomic(os.path.join(agent_dir, AUDIT_REVIEWED), data, mode=0o600)


def host_counts(agent_dir: str, *, reads: Reads = DIRECT) -> dict[str, int]:
    """``{"foreign": n, "unrecognised": m}`` from ``host-check.log`` and its rotated copy."""
    counts = dict.fromkeys(HOST_KINDS, 0)
    for name in (HOST_LOG + ".1", HOST_LOG):
        try:
            data = reads.read_physical(os.path.join(agent_dir, name), max_bytes=HOST_LOG_SCAN)
        except (ConfigError, OSError, ValueError):
            continue
        for line in (data or b"").splitlines():
            words = line.split(b" ", 3)
            kind = words[2].decode("ascii", "replace") if len(words) > 2 else ""
            if kind in counts:
                counts[kind] += 1
    return counts
