"""The flusher: drains ``spool.jsonl`` in order into signed, chained records.

Run detached by the audit hook as ``<python> -I -m elydora_cli.runtime.flush <agent dir>`` (or in-process
by ``elydora audit flush``). Under the exclusive ``flush.lock`` (a second flusher exits at once) it:

1. finishes an interrupted spool retirement and cuts a torn ledger tail, then adopts the ledger's last
   entry if ``chain-state.json`` lags behind it;
2. for each complete spool line, in order: builds the record (RFC 8785 payload hash, chain hash, Ed25519
   signature) and either appends it to ``ledger.jsonl`` (local agent; in batches, ledger fsynced before the
   state is saved) or, for a server-bound agent, stores it in ``outbox.json`` and POSTs it (see
   :mod:`.deliver`), appending to the ledger and advancing the chain only once the server accepted it;
3. retires the spool once everything in it is delivered; after releasing the lock it looks again and
   goes on if new events arrived meanwhile.

A spool line that is not valid is moved to ``spool.rejected`` and logged, never silently dropped.
"""

from __future__ import annotations

import fcntl
import os
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from ..identity import FLUSH_LOCK, LEDGER, SPOOL, AgentConfig, read_config, read_private_key
from . import dropmark, ledger, spool, state
from .deliver import Delivery, RetryPolicy
from .errorlog import log_error
from .record import build_record, wire_payload

DRAINED = "drained"
STOPPED = "stopped"
BUSY = "busy"
BATCH = 64
LINGER = 0.25


@contextmanager
def try_lock(agent_dir: str) -> Iterator[bool]:
    """``flush.lock`` held exclusively, or ``False`` when another flusher holds it."""
    path = os.path.join(agent_dir, FLUSH_LOCK)
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
            return
        yield True
    finally:
        os.close(fd)


class Flusher:
    """One pass over the spool under the lock; see the module docstring."""

    def __init__(self, agent_dir: str, policy: RetryPolicy) -> None:
        self.dir = agent_dir
        self.config: AgentConfig = read_config(agent_dir)
        self.key: Ed25519PrivateKey = read_private_key(agent_dir)
        self.state = state.load(agent_dir)
        self.ledger_path = os.path.join(agent_dir, LEDGER)
        self.spool_path = os.path.join(agent_dir, SPOOL)
        self.pending: list[bytes] = []
        self.delivery = None if self.config.is_local else Delivery(agent_dir, self.config, self.key, policy)

    def run(self) -> str:
        self._recover()
        dropmark.spool_gap(self.dir, self.spool_path)  # events a full disk refused become a signed gap record
        if self.delivery is not None and not self._deliver_outbox():
            return STOPPED
        while True:
            lines = spool.read_lines(self.spool_path, self.state.spool_offset, BATCH)
            if not lines:
                break
            for line in lines:
                if not self._process(line):
                    self._commit()
                    return STOPPED
            self._commit()
        self._retire()
        return DRAINED

    # -- recovery ---------------------------------------------------------------------------------------
    def _recover(self) -> None:
        if spool.retired_exists(self.dir):
            self.state.spool_offset = 0
            state.save(self.dir, self.state)
            spool.remove_retired(self.dir)
        cut = ledger.repair_tail(self.ledger_path)
        if cut:
            log_error(self.dir, "flush", f"removed a torn ledger tail of {cut} bytes left by a crash")
        adopted = state.reconcile(self.state, ledger.last_entry(self.ledger_path))
        if adopted != self.state:
            self.state = adopted
            state.save(self.dir, self.state)
        current = spool.size(self.spool_path)
        if current is not None and current < self.state.spool_offset:
            log_error(self.dir, "flush", "spool.jsonl is shorter than the delivered offset; starting at 0")
            self.state.spool_offset = 0

    # -- one spool line ------------------------------------------------------------------------------------
    def _process(self, line: spool.SpoolLine) -> bool:
        if line.raw == b"\n":  # the separator every hook writes first (it ends a torn line before it)
            self.state.spool_offset = line.end
            return True
        try:
            received, event = spool.parse_line(line.raw)
        except spool.BadLine as exc:
            spool.quarantine(self.dir, line.raw)
            log_error(self.dir, "flush", f"moved a bad spool line to spool.rejected: {exc}")
            self.state.spool_offset = line.end
            return True
        if self.delivery is None:
            self._record_locally(line, received, event)
            return True
        return self._send(line, received, event)

    def _record_locally(self, line: spool.SpoolLine, received: int, event: dict[str, Any]) -> None:
        record = build_record(
            org_id=self.config.org_id,
            agent_id=self.config.agent_id,
            kid=self.config.kid,
            key=self.key,
            payload=event,
            prev_chain_hash=self.state.prev_chain_hash,
        )
        entry = {"seq": self.state.seq + 1, "spool_end": line.end, "received_at": received, "sink": "local"}
        entry["record"] = record
        self.pending.append(ledger.encode_entry(entry))
        self.state = state.ChainState(record["chain_hash"], self.state.seq + 1, line.end)

    def _send(self, line: spool.SpoolLine, received: int, event: dict[str, Any]) -> bool:
        assert self.delivery is not None
        payload, reduced = wire_payload(event)
        outbox: dict[str, Any] = {
            "seq": self.state.seq + 1,
            "spool_end": line.end,
            "received_at": received,
            "prev_chain_hash": self.state.prev_chain_hash,
            "full_payload": event if reduced else None,
            "candidates": [],
        }
        self.delivery.add_candidate(outbox, payload, self.state.prev_chain_hash)
        return self._deliver(outbox)

    def _deliver_outbox(self) -> bool:
        assert self.delivery is not None
        outbox = state.load_outbox(self.dir)
        if outbox is None:
            return True
        if outbox.get("seq") != self.state.seq + 1:
            state.remove_outbox(self.dir)
            return True
        return self._deliver(outbox)

    def _deliver(self, outbox: dict[str, Any]) -> bool:
        assert self.delivery is not None
        accepted = self.delivery.deliver(outbox)
        if accepted is None:
            return False
        entry: dict[str, Any] = {
            "seq": outbox["seq"],
            "spool_end": outbox["spool_end"],
            "received_at": outbox["received_at"],
            "sink": "server",
            "record": accepted,
        }
        if outbox.get("full_payload") is not None:
            entry["full_payload"] = outbox["full_payload"]
        if accepted["prev_chain_hash"] != self.state.prev_chain_hash:
            entry["resync_from"] = self.state.prev_chain_hash
        ledger.append(self.ledger_path, [ledger.encode_entry(entry)])
        self.state = state.ChainState(accepted["chain_hash"], outbox["seq"], outbox["spool_end"])
        state.save(self.dir, self.state)
        state.remove_outbox(self.dir)
        return True

    # -- durability ------------------------------------------------------------------------------------------
    def _commit(self) -> None:
        if self.pending:
            ledger.append(self.ledger_path, self.pending)
            self.pending = []
        state.save(self.dir, self.state)

    def _retire(self) -> None:
        if spool.retire_if_consumed(self.dir, self.state.spool_offset):
            self.state.spool_offset = 0
            state.save(self.dir, self.state)
            spool.remove_retired(self.dir)


def has_undelivered(agent_dir: str) -> bool:
    """Whether the spool holds a complete line past the saved offset (an event that arrived meanwhile)."""
    try:
        offset = state.load(agent_dir).spool_offset
    except state.StateError:
        return False
    return spool.has_complete_line(os.path.join(agent_dir, SPOOL), offset)


def flush(agent_dir: str, *, policy: RetryPolicy | None = None, linger: float = 0.0) -> str:
    """Drain the spool; returns ``drained``, ``stopped`` (delivery gave up for now) or ``busy``.

    With ``linger``, a drained flusher keeps the lock that long waiting for more events, so a burst of
    tool calls is served by one process instead of one start-up per call.
    """
    directory = os.path.abspath(agent_dir)
    chosen = policy or RetryPolicy()
    outcome = BUSY
    while True:
        with try_lock(directory) as held:
            if not held:
                return outcome
            outcome = Flusher(directory, chosen).run()
            if outcome == DRAINED:
                _wait_for_events(directory, linger)
        if outcome != DRAINED or not has_undelivered(directory):
            return outcome


def _wait_for_events(directory: str, linger: float) -> None:
    deadline = time.monotonic() + linger
    while time.monotonic() < deadline and not has_undelivered(directory):
        time.sleep(0.02)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        sys.stderr.write("usage: python -m elydora_cli.runtime.flush <agent dir>\n")
        return 2
    directory = os.path.abspath(args[0])
    try:
        outcome = flush(directory, linger=LINGER)
    except Exception as exc:  # a detached process: the error log is its only voice
        log_error(directory, "flush", f"{type(exc).__name__}: {exc}")
        return 1
    return 0 if outcome != STOPPED else 1


if __name__ == "__main__":
    sys.exit(main())
