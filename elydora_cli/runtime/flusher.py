"""The flusher's work: one pass over the spool under ``flush.lock`` (see :mod:`.flush` for the protocol).

Imported by :func:`.flush.flush` only when there is work, so a flusher that finds nothing to do never loads
``cryptography``, the HTTP client or the package's configuration library.
"""

from __future__ import annotations

import json
import os
import time
from typing import TYPE_CHECKING, Any

from elydora_config import _platform, files
from elydora_config.errors import ConfigError

from ..identity import (
    LEDGER,
    REJECTED,
    REJECTED_RECORDS,
    SERVER_JWKS,
    SPOOL,
    AgentConfig,
    read_config,
    read_private_key,
)
from ..statefiles import GENESIS
from . import chaincheck, dropmark, health, ledger, ledgertail, spool, state
from .errorlog import log_error
from .flushlock import BATCH, DRAINED, STOPPED
from .jcs import CanonicalizationError, canonicalize
from .record import build_record, wire_payload
from .templates.gapevent import TOOL_MEMBERS, member_text

_TOOL_SCAN = 64 << 10
"""Bytes of a set-aside spool line searched for the event's tool name."""

if TYPE_CHECKING:  # the key class is not needed at run time (see keys.private_key_from_seed); the delivery
    # modules (the HTTP client) load only for a server-bound agent
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from . import deliver
    from .deliver import Delivery, RetryPolicy


class Flusher:
    """One pass over the spool under the lock; see the module docstring."""

    def __init__(self, agent_dir: str, policy: RetryPolicy | None = None, *, accept: bool = False) -> None:
        self.dir = agent_dir
        self.accept = accept
        """``elydora audit flush --accept-ledger``: resume on the ledger's head when the chain state disagrees."""
        self.config: AgentConfig = read_config(agent_dir)
        self.key: Ed25519PrivateKey = read_private_key(agent_dir)
        try:
            self.state = state.load(agent_dir)
        except state.StateError:
            if not accept:
                raise
            self.state = state.ChainState()
        self.ledger_path = os.path.join(agent_dir, LEDGER)
        self.spool_path = os.path.join(agent_dir, SPOOL)
        self.pending: list[bytes] = []
        self.health: dict[str, Any] = {}
        self.delivery: Delivery | None = None
        if not self.config.is_local:
            from . import deliver  # the HTTP client, for a server-bound agent only

            self.delivery = deliver.Delivery(agent_dir, self.config, self.key, policy or deliver.RetryPolicy())
            # the server's clock, as learnt from its last TTL_EXPIRED answer
            offset = health.recorded(agent_dir).get("clock_offset_ms")
            self.delivery.clock_offset_ms = offset if isinstance(offset, int) else 0

    def run(self) -> str:
        try:
            return self._run()
        finally:
            if self.delivery is not None:
                self._note_health()

    def _note_health(self) -> None:
        assert self.delivery is not None
        if self.delivery.clock_offset_ms != health.recorded(self.dir).get("clock_offset_ms", 0):
            self.health["clock_offset_ms"] = self.delivery.clock_offset_ms
        if self.health:
            health.note(self.dir, **self.health)
        if "last_accepted" in self.health:
            self._save_jwks()

    def _run(self) -> str:
        problem = self._recover()
        if problem is not None:  # never chain on a state that disagrees with the ledger: it would hide the cut
            log_error(self.dir, "flush", chaincheck.describe(problem))
            return STOPPED
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
    def _recover(self) -> str | None:
        """Finish what a crash interrupted; why the chain state and the ledger disagree (then nothing is done)."""
        if spool.retired_exists(self.dir):
            self.state.spool_offset = 0
            state.save(self.dir, self.state)
            spool.remove_retired(self.dir)
        cut = ledger.repair_tail(self.ledger_path)
        if cut:
            log_error(self.dir, "flush", f"removed a torn ledger tail of {cut} bytes left by a crash")
        problem = chaincheck.disagreement(self.dir)
        if problem is not None:
            if not self.accept:
                return problem
            self._accept_ledger(problem)
        adopted = state.reconcile(self.state, ledgertail.last_entry(self.ledger_path))
        if adopted != self.state:
            self.state = adopted
            state.save(self.dir, self.state)
        current = spool.size(self.spool_path)
        if current is not None and current < self.state.spool_offset:
            log_error(self.dir, "flush", "spool.jsonl is shorter than the delivered offset; starting at 0")
            self.state.spool_offset = 0
        return None

    def _accept_ledger(self, problem: str) -> None:
        """Take the ledger's last entry as the chain head, and spool a gap event saying what was accepted (it is
        signed and chained like any event, and status reports it until ``audit verify`` shows it)."""
        last = chaincheck.last_entry(self.dir)
        head = chaincheck.head_of(last) if last is not None else None
        seq = int(str(last["seq"])) if last is not None else 0
        size = spool.size(self.spool_path) or 0
        offset = self.state.spool_offset if self.state.spool_offset <= size else 0
        self.state = state.ChainState(head or GENESIS, seq, offset, self.state.gaps)
        state.save(self.dir, self.state)
        spool.append_event(self.spool_path, chaincheck.accepted_event(problem), time.time_ns() // 1_000_000)
        log_error(self.dir, "flush", f"the ledger was accepted as it is (--accept-ledger): {problem}")

    # -- one spool line ------------------------------------------------------------------------------------
    def _process(self, line: spool.SpoolLine) -> bool:
        if line.raw == b"\n":  # the separator every hook writes first (it ends a torn line before it)
            self.state.spool_offset = line.end
            return True
        try:
            received, event = spool.parse_line(line.raw)
        except spool.BadLine as exc:
            self._set_aside_line(line, 0, str(exc))
            return True
        try:
            if self.delivery is None:
                self._record_locally(line, received, event)
                return True
            return self._send(line, received, event)
        except (CanonicalizationError, RecursionError) as exc:  # no RFC 8785 form: never jams the queue
            self._set_aside_line(line, received, f"the event has no canonical form: {exc}")
            return True

    def _set_aside_line(self, line: spool.SpoolLine, received: int, reason: str) -> None:
        spool.quarantine(self.dir, line.raw)
        log_error(self.dir, "flush", f"moved a bad spool line to {REJECTED}: {reason}")
        self._gap(line.end, received, reason, line.raw, REJECTED, member_text(line.raw[:_TOOL_SCAN], TOOL_MEMBERS))

    def _gap(self, spool_end: int, received: int, reason: str, data: bytes, kept_in: str, tool: str | None) -> None:
        """A signed gap entry in place of what was set aside (it does not move the chain head)."""
        seq = self.state.seq + 1
        head = self.state.prev_chain_hash
        entry = ledger.gap_entry(seq, spool_end, received, head, reason, data, kept_in, self.key, tool=tool)
        self.pending.append(ledger.encode_entry(entry))
        self.state = state.ChainState(head, seq, spool_end, self.state.gaps + 1)
        if self.delivery is not None:
            self._commit()

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
        gaps = self.state.gaps + state.is_gap(entry)
        self.state = state.ChainState(record["chain_hash"], self.state.seq + 1, line.end, gaps)

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
        if self.delivery.add_candidate(outbox, payload, self.state.prev_chain_hash) is None:
            return False
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
        from . import deliver  # as above

        assert self.delivery is not None
        outcome = self.delivery.deliver(outbox)
        if outcome.response is not None and outcome.kind != deliver.ACCEPTED:
            self.health["last_refusal"] = {"code": outcome.code, "seq": outbox["seq"], "at": int(time.time())}
        if outcome.kind == deliver.REJECTED:
            self._reject(outbox, outcome)
            return True
        if outcome.kind == deliver.AGENT_STOPPED:
            self.health["stopped"] = outcome.code
            health.note_stopped(self.dir, f"the server refuses this agent's records ({outcome.code})")
            return False
        if outcome.kind != deliver.ACCEPTED:
            return False
        assert outcome.candidate is not None
        self._accepted(outbox, outcome.candidate, outcome.receipt)
        return True

    def _reject(self, outbox: dict[str, Any], outcome: deliver.Outcome) -> None:
        """Quarantine a record the server refused for good, with its answer; a gap entry takes its place."""
        assert outcome.response is not None and outcome.candidate is not None
        kept = {
            "seq": outbox["seq"],
            "spool_end": outbox["spool_end"],
            "received_at": outbox["received_at"],
            "rejected_at": int(time.time()),
            "answer": {"status": outcome.response.status, "body": outcome.response.body},
            "record": outcome.candidate,
            "full_payload": outbox.get("full_payload"),
        }
        data = (json.dumps(kept, separators=(",", ":")) + "\n").encode("ascii")
        _append(os.path.join(self.dir, REJECTED_RECORDS), data)
        reason = f"the server refused the record for good ({outcome.code})"
        data, tool = canonicalize(outcome.candidate), outcome.candidate["action"].get("tool")
        self._gap(outbox["spool_end"], outbox["received_at"], reason, data, REJECTED_RECORDS, tool)
        state.remove_outbox(self.dir)

    def _accepted(self, outbox: dict[str, Any], accepted: dict[str, Any], receipt: dict[str, Any] | None) -> None:
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
        entry["receipt"] = receipt
        if receipt is None:  # accepted earlier, its answer lost (PREV_HASH_MISMATCH named this candidate)
            entry["receipt_missing"] = ledger.ANSWER_LOST
        ledger.append(self.ledger_path, [ledger.encode_entry(entry)])
        gaps = self.state.gaps + state.is_gap(entry)
        self.state = state.ChainState(accepted["chain_hash"], outbox["seq"], outbox["spool_end"], gaps)
        state.save(self.dir, self.state)
        state.remove_outbox(self.dir)
        self.health["last_accepted"] = {"seq": outbox["seq"], "operation_id": accepted["operation_id"]}
        self.health["last_accepted"]["at"] = int(time.time())
        if "stopped" not in self.health:  # once per run: delivery works again
            self.health["stopped"] = None
            health.note_stopped(self.dir, None)

    def _save_jwks(self) -> None:
        """Keep the server's receipt keys once, so ``audit verify`` can check receipts (best effort)."""
        from . import client

        path = os.path.join(self.dir, SERVER_JWKS)
        if self.config.base_url is None or os.path.lexists(path):
            return
        try:
            response = client.get_jwks(self.config.base_url)
        except client.TransportError:
            return
        if response.ok and isinstance(response.body, dict):
            files.write_atomic(path, (json.dumps(response.body) + "\n").encode("ascii"), mode=0o600)

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


def _append(path: str, data: bytes) -> None:
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | _platform.O_NOFOLLOW | _platform.O_CLOEXEC
    fd = _platform.open_at(path, flags, 0o600)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.fsync(fd)
    finally:
        os.close(fd)


class FlushError(ConfigError):
    """The flusher could not run (``Error: <file>: <problem>`` at the CLI)."""
