"""``elydora audit verify|tail|flush``: inspect and drive an agent's local ledger.

``verify`` checks every entry of ``ledger.jsonl`` (record fields, payload hash, chain hash, Ed25519
signature with the agent's key, sequence, and the link to the previous entry) and reports the first break
(exit 1). ``tail`` prints the last entries; ``flush`` delivers the spooled events now, in this process.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections import deque
from typing import Any

from .agent import add_selection_args, refuse_secrets_in_argv, selected_agent_dir


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("audit", help="verify, tail or flush an agent's audit ledger")
    verbs = parser.add_subparsers(dest="audit_command", metavar="VERB", required=True)
    verify = verbs.add_parser("verify", help="check every signature and the whole chain of the local ledger")
    add_selection_args(verify)
    tail = verbs.add_parser("tail", help="print the last ledger entries")
    add_selection_args(tail)
    tail.add_argument("-n", "--lines", type=int, default=10, metavar="N", help="how many entries (default 10)")
    flush = verbs.add_parser("flush", help="deliver spooled events now (normally done in the background)")
    add_selection_args(flush)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    refuse_secrets_in_argv(args)
    directory = selected_agent_dir(args)
    if args.audit_command == "verify":
        return _verify(args, directory)
    if args.audit_command == "tail":
        return _tail(args, directory)
    return _flush(args, directory)


def _emit(args: argparse.Namespace, data: dict[str, Any], text: str) -> None:
    if args.json:
        import json

        sys.stdout.write(json.dumps(data, sort_keys=True) + "\n")
    else:
        sys.stdout.write(text + "\n")


def _verify(args: argparse.Namespace, directory: str) -> int:
    from .. import identity
    from ..runtime import ledger

    config = identity.read_config(directory)
    key = identity.read_private_key(directory)
    path = os.path.join(directory, identity.LEDGER)
    report = ledger.verify(
        path, key.public_key(), agent_id=config.agent_id, org_id=config.org_id, allow_resync=not config.is_local
    )
    if report.ok:
        from ..runtime import state

        saved = state.load(directory)
        problem = ledger.check_against_state(report, saved.seq, saved.prev_chain_hash)
        if problem is not None:
            report.first_break, report.break_line = problem, report.entries + 1
    data: dict[str, Any] = {
        "ledger": path,
        "ok": report.ok,
        "entries": report.entries,
        "head": report.head,
        "resyncs": report.resyncs,
    }
    if report.ok:
        note = f"; re-based on the server's chain at lines {report.resyncs}" if report.resyncs else ""
        _emit(args, data, f"ledger OK: {report.entries} entries, chain head {report.head}{note}")
        return 0
    data.update(break_line=report.break_line, reason=report.first_break)
    _emit(
        args,
        data,
        f"ledger BROKEN at line {report.break_line}: {report.first_break}"
        f" ({report.entries} entries before it verified)",
    )
    return 1


def _tail(args: argparse.Namespace, directory: str) -> int:
    import json

    from ..identity import LEDGER
    from ..main import UsageError
    from ..runtime import ledger

    if args.lines < 0:
        raise UsageError("-n must not be negative")
    last: deque[bytes] = deque(maxlen=args.lines)
    last.extend(ledger.iter_lines(os.path.join(directory, LEDGER)))
    for line in last:
        if args.json:
            sys.stdout.write(line.decode("ascii", "replace").rstrip("\n") + "\n")
            continue
        try:
            sys.stdout.write(_summary(json.loads(line)) + "\n")
        except (ValueError, KeyError, TypeError):
            sys.stdout.write("<unreadable entry>\n")
    return 0


def _summary(entry: dict[str, Any]) -> str:
    import time

    record = entry["record"]
    when = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(record["issued_at"] / 1000))
    reduced = " (reduced)" if "full_payload" in entry else ""
    return (
        f"#{entry['seq']} {when} {entry.get('sink', '?')} session={record['subject']['session_id']}"
        f" tool={record['action']['tool']} op={record['operation_id']}{reduced}"
    )


def _flush(args: argparse.Namespace, directory: str) -> int:
    from .. import identity
    from ..runtime import flush

    identity.read_config(directory)
    outcome = flush.flush(directory)
    messages = {
        flush.DRAINED: "every spooled event is delivered",
        flush.BUSY: "a background flusher is running; it delivers the spooled events",
        flush.STOPPED: "delivery stopped for now (see error.log); the events stay queued",
    }
    _emit(args, {"outcome": outcome}, messages[outcome])
    return 1 if outcome == flush.STOPPED else 0
