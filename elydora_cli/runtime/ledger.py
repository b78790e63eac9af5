"""The local ledger ``ledger.jsonl``: one JSON entry per delivered record, in chain order.

Entry: ``{"seq", "spool_end", "received_at", "sink", "record"}`` plus ``"full_payload"`` when the record
carries a reduced payload, ``"resync_from"`` when the chain was re-based on the server's last hash and
``"receipt"`` (the server's signed receipt) for a server record. A **gap entry** (``"sink": "gap"``) stands
for an event that was set aside (a poison spool line, a record the server refused for good): ``{"seq",
"spool_end", "received_at", "sink", "gap": {"reason", "sha256", "bytes", "tool"?, "kept_in", "prev_chain_hash"},
"signature"}``, signed with the agent key over the RFC 8785 form of everything but ``signature``; it does
not move the chain head.
Only the flusher appends (under ``flush.lock``); a torn last line left by a crash is cut off before the next
append. :func:`verify` checks every signature, hash and link and reports the first break.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from elydora_config import _platform
from elydora_config.records import field, record

from ..statefiles import GENESIS
from .jcs import canonicalize
from .ledgertail import last_newline_end, open_regular
from .receipt import check_receipt
from .record import REDUCED_MARKER, b64url, b64url_decode, check_record, reduce_payload
from .state import is_gap

if TYPE_CHECKING:  # only annotations: reading the ledger (audit tail) needs no cryptography
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

ANSWER_LOST = "answer_lost"
"""``receipt_missing`` of a server entry whose acceptance was learnt from ``PREV_HASH_MISMATCH`` naming it."""
CONFIRMED_BY_ID = "confirmed_by_id"
RECEIPTLESS_REASONS = (ANSWER_LOST, CONFIRMED_BY_ID)
"""The stated reasons a server entry may lack its receipt; any other server entry without one breaks the ledger."""
_APPEND = os.O_WRONLY | os.O_APPEND | os.O_CREAT | _platform.O_NOFOLLOW | _platform.O_NONBLOCK | _platform.O_CLOEXEC
_READ = os.O_RDONLY | _platform.O_NOFOLLOW | _platform.O_NONBLOCK | _platform.O_CLOEXEC


def gap_entry(
    seq: int,
    spool_end: int,
    received_at: int,
    head: str,
    reason: str,
    data: bytes,
    kept_in: str,
    key: Ed25519PrivateKey,
    *,
    tool: str | None = None,
) -> dict[str, Any]:
    """A signed gap entry for an event set aside in ``kept_in`` (``data`` = what was set aside: its size and
    SHA-256; ``tool``: the event's tool name when it could be read)."""
    gap: dict[str, Any] = {"reason": reason[:500], "sha256": b64url(hashlib.sha256(data).digest())}
    gap.update(kept_in=kept_in, bytes=len(data))
    if tool is not None:
        gap["tool"] = tool[:200]
    entry: dict[str, Any] = {"seq": seq, "spool_end": spool_end, "received_at": received_at, "sink": "gap"}
    entry["gap"] = dict(gap, prev_chain_hash=head)
    entry["signature"] = b64url(key.sign(canonicalize(entry)))
    return entry


def _check_gap(entry: dict[str, Any], public_key: Ed25519PublicKey) -> str | None:
    gap = entry.get("gap")
    if not isinstance(gap, dict) or not isinstance(entry.get("signature"), str):
        return "the gap entry has no gap description or signature"
    from cryptography.exceptions import InvalidSignature

    try:
        signed = canonicalize({k: v for k, v in entry.items() if k != "signature"})
        public_key.verify(b64url_decode(entry["signature"]), signed)
    except (InvalidSignature, ValueError, TypeError):
        return "the gap entry's signature is not valid"
    return None


def encode_entry(entry: dict[str, Any]) -> bytes:
    return (json.dumps(entry, separators=(",", ":")) + "\n").encode("ascii")


def append(path: str, lines: list[bytes]) -> None:
    """Append complete entry lines and fsync them (the caller holds flush.lock)."""
    fd = open_regular(path, _APPEND)
    try:
        if not _platform.is_private(os.fstat(fd)):
            raise PermissionError(errno.EACCES, "the ledger is accessible by other users", path)
        data = memoryview(b"".join(lines))
        while data:
            data = data[os.write(fd, data) :]
        os.fsync(fd)
    finally:
        os.close(fd)


def repair_tail(path: str) -> int:
    """Cut a torn last line (no trailing newline) left by a crash; returns the bytes removed."""
    try:
        fd = open_regular(path, os.O_RDWR | _platform.O_NOFOLLOW | _platform.O_NONBLOCK | _platform.O_CLOEXEC)
    except FileNotFoundError:
        return 0
    try:
        size = os.fstat(fd).st_size
        if size == 0 or _platform.pread(fd, 1, size - 1) == b"\n":
            return 0
        keep = last_newline_end(fd, size)
        os.ftruncate(fd, keep)
        os.fsync(fd)
        return size - keep
    finally:
        os.close(fd)


def iter_lines(path: str) -> Iterator[bytes]:
    try:
        handle = open(path, "rb", opener=lambda p, _f: open_regular(p, _READ))  # noqa: SIM115 - closed below
    except FileNotFoundError:
        return
    with handle:
        yield from handle


@record
class Report:
    entries: int = 0
    first_break: str | None = None
    break_line: int | None = None
    resyncs: list[int] = field(default_factory=list)
    gaps: list[int] = field(default_factory=list)
    """Lines of gap entries (events set aside)."""
    gap_records: list[int] = field(default_factory=list)
    """Lines of records of ``elydora.gap`` events (an event the audit hook could not spool whole, drops)."""
    receiptless: list[int] = field(default_factory=list)
    """Lines of server entries without a receipt, for a stated reason (:data:`RECEIPTLESS_REASONS`)."""
    server_entries: int = 0
    receipts_checked: int = 0
    head: str = GENESIS
    last_seq: int = 0

    @property
    def ok(self) -> bool:
        return self.first_break is None


def check_entry(entry: Any, public_key: Ed25519PublicKey) -> str | None:
    """Why one ledger entry is not valid on its own (record, signature, reduced payload), else ``None``."""
    if not isinstance(entry, dict) or not isinstance(entry.get("seq"), int):
        return "the entry is not an object with a sequence number"
    if entry.get("sink") == "gap":
        return _check_gap(entry, public_key)
    record = entry.get("record")
    problem = check_record(record, public_key)
    if problem is not None:
        return problem
    assert isinstance(record, dict)
    full = entry.get("full_payload")
    if full is not None:
        if not isinstance(full, dict) or REDUCED_MARKER not in record["payload"]:
            return "full_payload is present but the record's payload is not reduced"
        if reduce_payload(full, canonicalize(full)) != record["payload"]:
            return "the reduced payload does not commit to the full payload"
    elif isinstance(record["payload"], dict) and REDUCED_MARKER in record["payload"]:
        return "the record's payload is reduced but the full payload is missing"
    return None


def verify(
    path: str,
    public_key: Ed25519PublicKey,
    *,
    agent_id: str | None = None,
    org_id: str | None = None,
    server_keys: dict[str, Ed25519PublicKey] | None = None,
    allow_resync: bool = True,
    server_bound: bool = False,
) -> Report:
    """Check every entry and link of the ledger at ``path``; stop at the first break.

    With ``agent_id``/``org_id``, every record must also name that agent and organisation. With
    ``server_keys`` (from the server's JWKS), every stored receipt must be the server's valid receipt. The
    ``resync_from``/``sink`` members that label a re-based link are not signed, so only a server-bound agent
    (``allow_resync``) may have them: in a local ledger a label cannot excuse a missing middle. ``server_bound``:
    every record must be a server entry with its receipt, or state why it has none (:data:`RECEIPTLESS_REASONS`).
    """
    report = Report()
    expected_seq: int | None = None
    for number, line in enumerate(iter_lines(path), start=1):
        problem, entry = _check_line(line, public_key)
        gap = entry is not None and entry.get("sink") == "gap"
        if problem is None and entry is not None and not gap:
            problem = _check_owner(entry["record"], agent_id, org_id)
        if problem is None and entry is not None and not gap and server_bound:
            problem = _check_server_entry(entry, number, report)
        if problem is None and entry is not None and not gap and server_keys is not None:
            problem = _check_stored_receipt(entry, server_keys, report)
        if problem is None and entry is not None:
            problem = _check_link(entry, report, expected_seq, allow_resync)
        if problem is not None:
            report.first_break, report.break_line = problem, number
            return report
        assert entry is not None
        report.entries += 1
        if gap:
            report.gaps.append(number)
        else:
            report.head = entry["record"]["chain_hash"]
            if is_gap(entry):
                report.gap_records.append(number)
        report.last_seq = entry["seq"]
        expected_seq = entry["seq"] + 1
    return report


def _check_server_entry(entry: dict[str, Any], number: int, report: Report) -> str | None:
    """A server-bound agent's record entry must be a server entry with its receipt, or say why it has none: the
    ``sink`` and ``receipt`` members are not signed, so a receipt removed or an entry relabelled local is a break."""
    if entry.get("sink") != "server":
        return f"a record of a server-bound agent is labelled {entry.get('sink')!r}, not 'server'"
    report.server_entries += 1
    if entry.get("receipt") is not None:
        return None
    reason = entry.get("receipt_missing")
    if reason not in RECEIPTLESS_REASONS:
        return "the server entry has no receipt and states no reason (receipt_missing)"
    report.receiptless.append(number)
    return None


def _check_stored_receipt(
    entry: dict[str, Any], server_keys: dict[str, Ed25519PublicKey], report: Report
) -> str | None:
    if entry.get("receipt") is None:
        return None
    problem = check_receipt(entry["receipt"], entry["record"], server_keys)
    report.receipts_checked += problem is None
    return problem


def _check_line(line: bytes, public_key: Ed25519PublicKey) -> tuple[str | None, dict[str, Any] | None]:
    if not line.endswith(b"\n"):
        return "the last entry is incomplete", None
    try:
        entry = json.loads(line)
    except ValueError:
        return "the entry is not valid JSON", None
    problem = check_entry(entry, public_key)
    return problem, entry if problem is None else None


def _check_owner(record: dict[str, Any], agent_id: str | None, org_id: str | None) -> str | None:
    if agent_id is not None and record["agent_id"] != agent_id:
        return f"the record belongs to agent {record['agent_id']!r}"
    if org_id is not None and record["org_id"] != org_id:
        return f"the record belongs to organisation {record['org_id']!r}"
    return None


def _check_link(entry: dict[str, Any], report: Report, expected_seq: int | None, allow_resync: bool) -> str | None:
    if expected_seq is not None and entry["seq"] != expected_seq:
        return f"sequence {entry['seq']} follows {expected_seq - 1}"
    if entry.get("sink") == "gap":
        ok = entry["gap"].get("prev_chain_hash") == report.head
        return None if ok else "the gap entry does not link to the previous entry"
    prev = entry["record"]["prev_chain_hash"]
    if prev == report.head:
        return None
    if allow_resync and entry.get("resync_from") == report.head and entry.get("sink") == "server":
        report.resyncs.append(report.entries + 1)
        return None
    return "prev_chain_hash does not link to the previous entry"


def check_against_state(report: Report, saved_seq: int, saved_head: str) -> str | None:
    """Why the verified ledger is shorter than ``chain-state.json`` says (truncated or emptied), else ``None``.

    The state is written after the ledger lines it describes, so it may lag the ledger after a crash, never
    lead it: a saved sequence beyond the ledger's last one, or a different head at the same one, is a loss.
    """
    if saved_seq > report.last_seq:
        return (
            f"chain-state.json records {saved_seq} entries (head {saved_head}) but the ledger ends at "
            f"{report.last_seq}: entries were removed"
        )
    if saved_seq == report.last_seq and saved_seq > 0 and saved_head != report.head:
        return f"the ledger's head {report.head} is not the head chain-state.json records ({saved_head})"
    return None
