"""Whether ``chain-state.json`` and the ledger agree: what a local check can catch of a ledger rolled back.

The flusher appends ledger lines, fsyncs them, then replaces ``chain-state.json``; so after a crash the state
may lag the ledger (never lead it), and only by entries whose spool lines are still in the current spool
(the spool is retired only after the state is saved). Everything else is a disagreement: a state ahead of the
ledger (entries removed), another head at the same sequence (a corrupted or rewritten head), a state missing
or lagging without that crash witness (a ledger cut and the state deleted or rewritten to an older one).

:func:`disagreement` is read by ``status`` (from the ledger's tail only), by ``audit verify`` and by the flusher,
which stops instead of chaining on a state it cannot trust (``elydora audit flush --accept-ledger`` resumes,
leaving a signed record of what was accepted). A whole older copy of the directory agrees with itself: no
local check can tell it (docs/runtime.md, "Rollback").
"""

from __future__ import annotations

import json
import os

from elydora_config import _platform
from elydora_config.errors import ConfigError

from ..readpass import DIRECT, Reads
from ..statefiles import CHAIN_STATE, LEDGER, SPOOL
from . import ledgertail, state
from .dropmark import GAP_EVENT

_READ = os.O_RDONLY | _platform.O_NOFOLLOW | _platform.O_NONBLOCK | _platform.O_CLOEXEC
_LINE_SCAN = 64 << 20


def head_of(entry: dict[str, object]) -> str | None:
    """The chain head after ``entry`` (a gap entry does not move it)."""
    gap, record = entry.get("gap"), entry.get("record")
    if isinstance(gap, dict):
        head = gap.get("prev_chain_hash")
    else:
        head = record.get("chain_hash") if isinstance(record, dict) else None
    return head if isinstance(head, str) else None


def last_entry(agent_dir: str) -> dict[str, object] | None:
    """The ledger's last complete entry (``None``: absent or empty); ValueError when it is not an entry."""
    try:
        entry = ledgertail.last_entry(os.path.join(agent_dir, LEDGER))
    except ValueError:
        raise ValueError("the ledger's last entry is not valid JSON") from None
    if entry is not None and (not isinstance(entry.get("seq"), int) or head_of(entry) is None):
        raise ValueError("the ledger's last entry has no sequence number or chain hash")
    return entry


def crash_witness(agent_dir: str, entry: dict[str, object], after: int) -> bool:
    """Whether the spool still holds the line ``entry`` was made from, past the offset ``after``: what a crash
    between the ledger append and the state save leaves (the line ending at ``spool_end`` starts with the
    entry's receipt time; a set-aside line without one only needs to end there)."""
    end, received = entry.get("spool_end"), entry.get("received_at")
    if not isinstance(end, int) or end <= after or not isinstance(received, int):
        return False
    try:
        fd = _platform.open_at(os.path.join(agent_dir, SPOOL), _READ)
    except OSError:
        return False
    try:
        start = max(after, end - _LINE_SCAN)
        data = _platform.pread(fd, end - start, start)
    finally:
        os.close(fd)
    if len(data) != end - start or not data.endswith(b"\n"):
        return False
    line = data[data.rfind(b"\n", 0, len(data) - 1) + 1 :]
    return received == 0 or line.startswith(b"%d " % received)


def disagreement(agent_dir: str, *, reads: Reads = DIRECT) -> str | None:
    """Why ``chain-state.json`` and the ledger of ``agent_dir`` disagree (see the module docstring), else ``None``
    (``reads``: how ``chain-state.json`` is read, :mod:`elydora_cli.readpass`)."""
    path = os.path.join(agent_dir, CHAIN_STATE)
    try:
        saved = state.load(agent_dir, reads=reads)
        last = last_entry(agent_dir)
    except ConfigError as exc:
        return str(exc)
    except (ValueError, OSError) as exc:
        return f"{os.path.join(agent_dir, LEDGER)}: {getattr(exc, 'strerror', None) or exc}"
    if last is None:
        if saved.seq > 0:
            return f"{path} records {saved.seq} entries (head {saved.prev_chain_hash}) but the ledger has none"
        return None
    last_seq, head = int(str(last["seq"])), head_of(last)
    if not os.path.lexists(path):
        if crash_witness(agent_dir, last, 0):
            return None
        return f"the ledger has {last_seq} entries (head {head}) but {path} is missing"
    if saved.seq > last_seq:
        return f"{path} records {saved.seq} entries (head {saved.prev_chain_hash}) but the ledger ends at {last_seq}"
    if saved.seq == last_seq:
        if saved.prev_chain_hash != head:
            return f"{path} records the head {saved.prev_chain_hash} at entry {last_seq}, the ledger {head}"
        return None
    if crash_witness(agent_dir, last, saved.spool_offset):
        return None
    return (
        f"{path} records {saved.seq} entries but the ledger has {last_seq}, and the spool does not show the lag "
        "a crash leaves"
    )


def describe(problem: str) -> str:
    """The problem with what it may mean and the way out, for ``status`` and ``audit verify``."""
    return (
        f"the chain state and the ledger disagree: {problem} (entries removed, or files restored from an older"
        " copy); delivery is stopped: check the ledger, then `elydora audit flush --accept-ledger` resumes"
    )


def accepted_event(problem: str) -> bytes:
    """The gap event the flusher spools when the user accepts the ledger as it is (signed and chained)."""
    event = {
        "hook_event_name": GAP_EVENT,
        "session_id": "elydora-runtime",
        "tool_name": "elydora",
        "reason": "ledger_accepted",
        "detail": f"elydora audit flush --accept-ledger: {problem}",
    }
    return json.dumps(event).encode("ascii")
