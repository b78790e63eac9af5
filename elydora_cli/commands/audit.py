"""``elydora audit verify|tail|flush``: inspect and drive an agent's local ledger.

``verify`` checks every entry of ``ledger.jsonl`` (record fields, payload hash, chain hash, Ed25519
signature with the agent's key, sequence, and the link to the previous entry) and reports the first break
(exit 1). ``tail`` prints the last entries; ``flush`` delivers the spooled events now, in this process.
``verify`` and ``tail`` first catch up with events still spooled (:func:`elydora_cli.pending.catch_up`) and
say on stderr how many are still pending when they cannot.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import deque
from typing import Any

from elydora_config import files

from .. import exitcodes, identity
from ..exitcodes import UsageError
from ..identity import LEDGER
from ..pathtext import shown
from ..pending import POLL_SECONDS, WAIT_SECONDS, catch_up
from ..runtime import chaincheck, flush, flushlock, ledger, state, trace
from ..runtime.receipt import jwks_keys
from ..statefiles import ERROR_LOG, FLUSH_LOCK
from .agentargs import add_selection_args, refuse_secrets_in_argv, selected_agent_dir

EXAMPLES = {
    "verify": "examples:\n"
    "  elydora audit verify claude                     # every signature and the whole chain (exit 1: broken)\n"
    "  elydora audit verify --agent-id gemini-ci --json",
    "tail": "examples:\n"
    "  elydora audit tail claude -n 5                  # the last five signed entries (spooled events first)\n"
    "  elydora audit tail claude --json                # {\"ledger\": PATH, \"entries\": [...]}",
    "flush": "examples:\n"
    "  elydora audit flush codex                       # deliver the spooled events now (exit 3: a flusher is busy)\n"
    "  elydora audit flush codex --accept-ledger       # resume after a rollback was reported",
}
"""The examples that end each verb's ``--help``."""


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "audit",
        help="verify, tail or flush an agent's audit ledger",
        epilog="examples:\n"
        "  elydora audit tail claude -n 5                 # the last signed entries (pending events first)\n"
        "  elydora audit verify claude                    # every signature and the whole chain\n"
        "  elydora audit flush codex                      # deliver the spooled events now\n"
        "  elydora audit flush codex --accept-ledger      # resume after a rollback was reported",
    )
    verbs = parser.add_subparsers(dest="audit_command", metavar="VERB", required=True)
    verify = verbs.add_parser(
        "verify", help="check every signature and the whole chain of the local ledger", epilog=EXAMPLES["verify"]
    )
    add_selection_args(verify)
    tail = verbs.add_parser("tail", help="print the last ledger entries", epilog=EXAMPLES["tail"])
    add_selection_args(tail)
    tail.add_argument("-n", "--lines", type=int, default=10, metavar="N", help="how many entries (default 10)")
    tail.set_defaults(data_output=True)
    flush = verbs.add_parser(
        "flush", help="deliver spooled events now (normally done in the background)", epilog=EXAMPLES["flush"]
    )
    add_selection_args(flush)
    flush.add_argument(
        "--accept-ledger",
        action="store_true",
        help="when the chain state and the ledger disagree (entries removed, a restored copy): resume on the"
        " ledger's last entry, with a signed record of what was accepted",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    refuse_secrets_in_argv(args)
    directory = selected_agent_dir(args)
    if args.audit_command == "flush":
        return _flush(args, directory)
    pending = _catch_up(directory)
    code = _verify(args, directory, pending) if args.audit_command == "verify" else _tail(args, directory)
    if pending:
        sys.stderr.write(
            f"note: {pending} event(s) still spooled, not yet in the ledger (elydora audit flush delivers them)\n"
        )
    return code


def _catch_up(directory: str) -> int:
    identity.read_config(directory)  # a missing agent is one clear error, before anything else
    return catch_up(directory)


def _emit(args: argparse.Namespace, data: dict[str, Any], text: str) -> None:
    if args.json:
        sys.stdout.write(json.dumps(data, sort_keys=True) + "\n")
    else:
        sys.stdout.write(text + "\n")


def _verify(args: argparse.Namespace, directory: str, pending: int) -> int:
    config = identity.read_config(directory)
    key = identity.read_private_key(directory)
    path = os.path.join(directory, identity.LEDGER)
    server_keys = _server_keys(directory)
    report = ledger.verify(
        path,
        key.public_key(),
        agent_id=config.agent_id,
        org_id=config.org_id,
        server_keys=server_keys,
        allow_resync=not config.is_local,
        server_bound=not config.is_local,
    )
    if report.ok:
        problem = chaincheck.disagreement(directory)
        if problem is not None:
            report.first_break, report.break_line = chaincheck.describe(problem), report.entries + 1
    gaps = _gap_details(path, sorted(report.gaps + report.gap_records))
    hosts = trace.host_counts(directory)
    data: dict[str, Any] = {
        "ledger": path,
        "ok": report.ok,
        "entries": report.entries,
        "head": report.head,
        "resyncs": report.resyncs,
        "pending": pending,
        "gaps": report.gaps,
        "gap_records": report.gap_records,
        "gap_details": gaps,
        "receipts_checked": report.receipts_checked if server_keys is not None else None,
        "server_entries": report.server_entries if not config.is_local else None,
        "receiptless": report.receiptless,
        "host_check": hosts,
    }
    lines = [f"  gap at line {g['line']}: {g['reason']} ({g['bytes']} bytes, tool {g['tool']})" for g in gaps]
    if report.ok:
        note = f"; re-based on the server's chain at lines {report.resyncs}" if report.resyncs else ""
        note += f"; events set aside (signed gap entries) at lines {report.gaps}" if report.gaps else ""
        note += f"; events recorded as signed gap records at lines {report.gap_records}" if report.gap_records else ""
        if report.receiptless:
            note += f"; server entries without a receipt, for a stated reason, at lines {report.receiptless}"
        if server_keys is not None:
            note += f"; {report.receipts_checked} of {report.server_entries} server receipts verified"
        if any(hosts.values()):
            note += (
                f"; host check: {hosts['foreign']} events of other agents skipped, {hosts['unrecognised']}"
                " without the host's marks recorded (host-check.log)"
            )
        _emit(args, data, "\n".join([f"ledger OK: {report.entries} entries, chain head {report.head}{note}", *lines]))
        trace.mark_reviewed(directory, state.load(directory).gaps, report.last_seq)  # status: gaps shown now
        return 0
    data.update(break_line=report.break_line, reason=report.first_break)
    head = (
        f"ledger BROKEN at line {report.break_line}: {report.first_break} ({report.entries} entries before it verified)"
    )
    _emit(args, data, "\n".join([head, *lines]))
    return 1


def _gap_details(path: str, numbers: list[int]) -> list[dict[str, Any]]:
    """Line, reason, byte count, tool and SHA-256 of each gap entry and gap record (what ``verify`` lists)."""
    wanted, found = set(numbers), []
    for number, line in enumerate(ledger.iter_lines(path) if wanted else (), start=1):
        if number not in wanted:
            continue
        entry = json.loads(line)
        if entry.get("sink") == "gap":
            gap = entry["gap"]
            found.append({"line": number, **{k: gap.get(k) for k in ("reason", "bytes", "tool", "sha256")}})
            continue
        payload = entry["record"]["payload"]
        event = payload.get("event") if isinstance(payload.get("event"), dict) else {}
        facts = {"reason": payload.get("reason"), "tool": event.get("tool_name")}
        found.append({"line": number, **facts, "bytes": event.get("bytes"), "sha256": event.get("sha256")})
    return found


def _server_keys(directory: str) -> Any:
    """The server's receipt keys saved by the flusher (``server-jwks.json``), or ``None``."""
    path = os.path.join(directory, identity.SERVER_JWKS)
    data = files.read_physical(path, max_bytes=identity.CONFIG_LIMIT)
    if data is None:
        return None
    try:
        return jwks_keys(json.loads(data))
    except ValueError:
        raise identity.IdentityError(path, "is not valid JSON") from None


def _tail(args: argparse.Namespace, directory: str) -> int:
    if args.lines < 0:
        raise UsageError("-n must not be negative")
    path = os.path.join(directory, LEDGER)
    last: deque[bytes] = deque(maxlen=args.lines)
    last.extend(ledger.iter_lines(path))
    if args.json:  # one document, also for an empty ledger
        _emit(args, {"ledger": path, "entries": [_entry(line) for line in last]}, "")
        return 0
    for line in last:
        try:
            sys.stdout.write(_summary(json.loads(line)) + "\n")
        except (ValueError, KeyError, TypeError):
            sys.stdout.write("<unreadable entry>\n")
    return 0


def _entry(line: bytes) -> Any:
    """One ledger line as its JSON value (a line that is no JSON: ``{"unreadable": <its text>}``)."""
    try:
        return json.loads(line)
    except ValueError:
        return {"unreadable": line.decode("utf-8", "replace").rstrip("\n")}


def _summary(entry: dict[str, Any]) -> str:
    record = entry["record"]
    when = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(record["issued_at"] / 1000))
    reduced = " (reduced)" if "full_payload" in entry else ""
    return (
        f"#{entry['seq']} {when} {entry.get('sink', '?')} session={record['subject']['session_id']}"
        f" tool={record['action']['tool']} op={record['operation_id']}{reduced}"
    )


def _flush(args: argparse.Namespace, directory: str) -> int:
    from ..runtime.flusher import FlushError

    identity.read_config(directory)
    try:
        outcome = _flush_waiting(directory, accept=args.accept_ledger)
    except (ValueError, RuntimeError, KeyError, TypeError) as exc:  # one line naming the file, never a type name
        raise FlushError(os.path.join(directory, identity.SPOOL), f"delivery failed: {exc}") from None
    if outcome == flushlock.DRAINED:
        _emit(args, {"outcome": outcome}, "every spooled event is delivered")
        return exitcodes.OK
    if outcome == flushlock.BUSY:  # exit 3, as for any lock another process holds
        where, problem, code = FLUSH_LOCK, (
            f"a background flusher is still delivering the spooled events (it held this lock for "
            f"{WAIT_SECONDS:g} s); run the command again to wait for it"
        ), exitcodes.CONFLICT
    else:
        where, problem, code = ERROR_LOG, (
            "delivery stopped for now (this log and elydora status say why); the events stay queued"
        ), exitcodes.UNHEALTHY
    if args.json:
        _emit(args, {"outcome": outcome}, "")
    sys.stderr.write(f"Error: {shown(os.path.join(directory, where))}: {problem}\n")
    return code


def _flush_waiting(directory: str, *, accept: bool = False) -> str:
    """Flush now; while a background flusher holds the lock, wait for it (bounded, as ``tail`` does) and
    flush again, so that a flush right after a hook run finds the events delivered."""
    deadline = time.monotonic() + WAIT_SECONDS
    outcome = flush.flush(directory, accept=accept)
    while outcome == flushlock.BUSY and time.monotonic() < deadline:
        time.sleep(POLL_SECONDS)
        outcome = flush.flush(directory, accept=accept)
    return outcome
