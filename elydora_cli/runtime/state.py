"""Durable flusher progress: ``chain-state.json`` and the server ``outbox.json``.

``chain-state.json`` = ``{"prev_chain_hash", "seq", "spool_offset", "gaps"}``: the chain head, the number of
the last delivered record, the offset in ``spool.jsonl`` of the first event not yet delivered, and how many
ledger entries stand for an event that is not in the ledger whole (gap entries and ``elydora.gap`` records,
:func:`is_gap`: ``status`` reports those ``audit verify`` has not shown yet). It is replaced
atomically after the ledger lines it describes are on disk, so after a crash it is never ahead of the
ledger; when it lags, the ledger's last entry is adopted (:func:`reconcile`).

``outbox.json`` holds, for server delivery, the record being sent before the first byte goes out:
every signed candidate (a record is re-signed with a fresh id, nonce and time when it expired, was
refused as a replay, or the chain had to be re-based), so that after a lost answer or a crash the
accepted candidate is recognised instead of sent twice.
"""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING

from elydora_config import files
from elydora_config.errors import ConfigError
from elydora_config.records import record

from ..identity import CHAIN_STATE, OUTBOX
from ..readpass import DIRECT, Reads
from ..statefiles import GENESIS
from .dropmark import GAP_EVENT

if TYPE_CHECKING:
    from typing import Any

STATE_LIMIT = 64 << 10
OUTBOX_LIMIT = 64 << 20


class StateError(ConfigError):
    """A runtime state file is malformed."""


@record
class ChainState:
    prev_chain_hash: str = GENESIS
    seq: int = 0
    spool_offset: int = 0
    gaps: int = 0

    def to_bytes(self) -> bytes:
        data = {"prev_chain_hash": self.prev_chain_hash, "seq": self.seq, "spool_offset": self.spool_offset}
        data["gaps"] = self.gaps
        return (json.dumps(data) + "\n").encode("ascii")


def load(agent_dir: str, *, reads: Reads = DIRECT) -> ChainState:
    path = os.path.join(agent_dir, CHAIN_STATE)
    data = reads.read_physical(path, max_bytes=STATE_LIMIT)
    if data is None:
        return ChainState()
    try:
        raw = json.loads(data)
        state = ChainState(raw["prev_chain_hash"], raw.get("seq", 0), raw.get("spool_offset", 0), raw.get("gaps", 0))
    except (ValueError, KeyError, TypeError, AttributeError):
        raise StateError(path, "is not valid chain state") from None
    if not isinstance(state.prev_chain_hash, str) or len(state.prev_chain_hash) != 43:
        raise StateError(path, "prev_chain_hash is not 43 base64url characters")
    numbers = (state.seq, state.spool_offset, state.gaps)
    if not all(isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in numbers):
        raise StateError(path, "seq, spool_offset and gaps must be non-negative integers")
    return state


def save(agent_dir: str, state: ChainState) -> None:
    files.write_atomic(os.path.join(agent_dir, CHAIN_STATE), state.to_bytes(), mode=0o600)


def reconcile(state: ChainState, last: dict[str, Any] | None) -> ChainState:
    """Adopt the ledger's last entry when the saved state lags behind it (crash between the two writes)."""
    if last is None or not isinstance(last.get("seq"), int) or last["seq"] <= state.seq:
        return state
    gap = last.get("gap")
    head = gap["prev_chain_hash"] if isinstance(gap, dict) else last["record"]["chain_hash"]
    return ChainState(head, last["seq"], last["spool_end"], state.gaps + is_gap(last))


def is_gap(entry: dict[str, Any]) -> bool:
    """Whether a ledger entry stands for an event that is not in the ledger whole: a gap entry, or a record of
    an ``elydora.gap`` event (the audit hook's, or the flusher's for events a full disk refused)."""
    if entry.get("sink") == "gap":
        return True
    record = entry.get("record")
    payload = record.get("payload") if isinstance(record, dict) else None
    return isinstance(payload, dict) and payload.get("hook_event_name") == GAP_EVENT


def load_outbox(agent_dir: str) -> dict[str, Any] | None:
    path = os.path.join(agent_dir, OUTBOX)
    data = files.read_physical(path, max_bytes=OUTBOX_LIMIT)
    if data is None:
        return None
    try:
        outbox = json.loads(data)
    except ValueError:
        raise StateError(path, "is not valid JSON") from None
    if not isinstance(outbox, dict) or not isinstance(outbox.get("candidates"), list) or not outbox["candidates"]:
        raise StateError(path, "has no candidate records")
    return outbox


def save_outbox(agent_dir: str, outbox: dict[str, Any]) -> None:
    data = json.dumps(outbox, separators=(",", ":")).encode("ascii")
    files.write_atomic(os.path.join(agent_dir, OUTBOX), data, mode=0o600)


def remove_outbox(agent_dir: str) -> None:
    try:  # not contextlib.suppress: status imports this module and loads no contextlib
        os.unlink(os.path.join(agent_dir, OUTBOX))
    except FileNotFoundError:
        return
