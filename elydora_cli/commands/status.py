"""``elydora status``: each agent checked on its own, for what its hooks will actually do.

Per agent one state word (see ``docs/status.md``, which documents the ``--json`` schema): ``healthy`` (the
guard will enforce and the audit will record), ``not installed``, or what breaks the promise. Exit code: 4
when a transaction awaits ``elydora recover``, else 1 when any installed agent is not healthy, else 0; so
``elydora status --json`` is a compliance probe (0 iff every installed agent is enforced and audited).
"""

from __future__ import annotations

import argparse
import json
import os
from typing import TYPE_CHECKING

from elydora_config.errors import ConfigError

from .. import exitcodes, health, repairlog, stateroots
from ..exitcodes import describe_error
from ..installer import operations
from ..introspect import probe_for
from ..pathtext import shown
from ..plug.layers import OFF
from ..providers import load
from ..readpass import ReadPass, Reads
from ..recovery_hint import pending_recovery
from ..runtime.health import server_health, summary
from ..statefiles import STATUS
from . import options
from .statusrow import error_row
from .systemstatus import run as system_run

if TYPE_CHECKING:
    from typing import Any

SCHEMA = 1
STATES = (
    "healthy",
    "not installed",
    "recovery pending",
    "unhealthy",
    "tampered",
    "switched off",
    "unguarded",
    "unaudited",
    "audit gaps",
    "other state root",
    "awaiting approval",
    "frozen",
    "revoked",
    "error",
)
"""Every state word, in the order of precedence when several apply (``healthy`` only when none does)."""
HEALTHY_STATES = ("healthy", "not installed")


def register(sub: Any) -> None:
    parser = sub.add_parser(
        "status",
        help="check what the installed hooks of each agent will actually do",
        epilog="examples:\n"
        "  elydora status                                 # every agent: healthy, not installed, or what is wrong\n"
        "  elydora status claude codex --json             # two agents, machine-readable (failures included)\n"
        "  elydora status --root ./sandbox                # a sandbox home\n"
        "  sudo elydora status --scope system --json      # the fleet compliance probe (docs/fleet.md)",
    )
    options.add_hook_flags(parser, all_help=None)
    parser.set_defaults(func=run, data_output=True)  # -q: the one-line verdict (see run)


def _one(pid: str, ctx: Any, recovery: dict[str, Any] | None) -> dict[str, Any]:
    probe = probe_for(pid, ctx)
    ctx = ctx.with_options(probe=probe)
    try:
        recovery = recovery if _holds(recovery, pid, ctx) else None
        st = operations.status(pid, ctx)
    except (ConfigError, OSError) as exc:  # one broken file never hides the other agents
        return error_row(pid, exc)
    row: dict[str, Any] = {
        "provider": pid,
        "agent_id": st.agent_id,
        "installed": st.installed,
        "state_root": str(ctx.state_root),
        "interpreter": None,
        "agent_state": None,
        "enforced": None,
        "audited": None,
        "problems": [f.render() for f in st.findings if st.installed],
        "failures": [
            {"provider": pid, "file": None if f.path is None else str(f.path), "message": f.message}
            for f in st.findings
            if st.installed and f.severity in ("error", OFF)
        ],
        "enforcement": [],
        "audit": None,
        "status_cache": None,
        "recovery": recovery,
    }
    if st.installed:
        row["interpreter"] = operations.interpreter_of(pid, ctx)
        found = health.check(str(ctx.agent_dir(st.agent_id)), reads=ctx.reads)
        row.update(agent_state=found.agent_state, enforced=found.enforced, audited=found.audited)
        row["enforcement"] = found.enforcement
        if found.tampered:
            row["problems"].append(found.tampered)
            status_file = str(ctx.agent_dir(st.agent_id) / STATUS)
            row["failures"].append({"provider": pid, "file": status_file, "message": found.tampered})
        row["audit"] = found.audit.to_json()
        row["status_cache"] = found.status_cache
        row["state"] = _word(st, found, recovery)
        _with_server(row, str(ctx.agent_dir(st.agent_id)), ctx.reads)
    else:
        row["state"] = "recovery pending" if recovery else "not installed"
    other = stateroots.elsewhere(pid, ctx)
    for root, agent_ids in other.items():
        row["problems"].append(
            f"hook entries of agent {', '.join(agent_ids)} run the runtime under the state root {root}: "
            f"check them with {stateroots.flags_for(root)}"
        )
    if other and row["state"] in ("healthy", "not installed", "frozen", "revoked", "awaiting approval"):
        row["state"] = "other state root"
    row["elsewhere"] = other
    if probe is not None and st.installed:  # how our entries were checked: by asking the agent, or its files only
        row["check"], row["check_note"] = probe.report.check, probe.report.note
    row["healthy"] = row["state"] == "healthy"
    return row


def _with_server(row: dict[str, Any], agent_dir: str, reads: Reads) -> None:
    """A server-bound agent's delivery and status-query health (``runtime/health.py``) in the audit slot; a
    delivery stopped for good leaves the agent unaudited, a refused status query leaves it unguarded."""
    report = server_health(agent_dir, reads=reads)
    if report is None:
        return
    row["audit"]["server"] = report
    if report["healthy"]:
        return
    row["problems"].extend(report["problems"])
    row["failures"].extend({"provider": row["provider"], "file": None, "message": p} for p in report["problems"])
    if row["state"] in ("healthy", "frozen", "revoked", "awaiting approval"):
        row["state"] = "unaudited" if report["delivery"].get("stopped") else "unguarded"


def _word(st: Any, found: Any, recovery: dict[str, Any] | None) -> str:
    if recovery:
        return "recovery pending"
    if not st.healthy and not st.awaiting_approval and not st.switched_off:
        return "unhealthy"
    if found.tampered:
        return "tampered"
    if st.switched_off:
        return "switched off"
    if not found.enforced:
        return "unguarded"
    if not found.audited:
        return "unaudited"
    if found.audit.gaps_unreviewed:
        return "audit gaps"
    if st.awaiting_approval:
        return "awaiting approval"
    if found.agent_state in ("frozen", "revoked"):
        return str(found.agent_state)
    return "healthy"


def _holds(recovery: dict[str, Any] | None, pid: str, ctx: Any) -> bool:
    """Whether the pending transactions touch a file of this agent: its settings files, or its state or
    runtime folder (a journal that could not be read, or a torn one, may touch any)."""
    if not recovery:
        return False
    if recovery.get("error") or recovery.get("torn"):
        return True
    agent_id = ctx.agent_id_for(pid)
    folders = tuple(os.path.join(str(d), "") for d in (ctx.agent_dir(agent_id), ctx.runtime_dir(agent_id)))
    files = {str(target.path) for target in operations.sources_of(load(pid), ctx).targets}
    return any(path in files or path.startswith(folders) for path in recovery["paths"])


def exit_code(rows: list[dict[str, Any]], recovery: dict[str, Any] | None = None) -> int:
    if recovery or any(r["state"] == "recovery pending" for r in rows):
        return exitcodes.RECOVERY
    if any(r["state"] not in HEALTHY_STATES for r in rows):
        return exitcodes.UNHEALTHY
    return exitcodes.OK


def _print_text(rows: list[dict[str, Any]], recovery: dict[str, Any] | None) -> None:
    if recovery:
        print(f"an interrupted transaction is pending; run: {recovery['command']}")
    for row in rows:
        agent_state = row.get("agent_state")
        extra = f" (agent {agent_state})" if agent_state not in (None, "active", row["state"]) else ""
        print(f"{row['provider']:<12} {row['state']}{extra}")
        for problem in row["problems"] + row.get("enforcement", []):
            print(f"  - {shown(problem)}")
        if row.get("check_note"):
            print(f"  note: {shown(row['check_note'])}")
        audit = row.get("audit")
        if audit:
            for problem in audit["problems"]:
                print(f"  - audit: {shown(problem)}")
            if audit["dropped"]:
                print(f"  - audit: {audit['dropped']} event(s) dropped (disk full); a gap record follows")
            if audit.get("gaps_unreviewed"):
                print(
                    f"  - audit: {audit['gaps_unreviewed']} event(s) recorded only as signed gap records since the"
                    " last `elydora audit verify` (run it to review them)"
                )
            hosts = audit.get("host_check") or {}
            if hosts.get("foreign") or hosts.get("unrecognised"):
                print(
                    f"  - host check: {hosts.get('foreign', 0)} event(s) of other agents skipped,"
                    f" {hosts.get('unrecognised', 0)} without the host's marks recorded (host-check.log)"
                )
            if audit.get("server"):
                print(f"  {summary(audit['server'])}")


def run(args: argparse.Namespace) -> int:
    ctx = options.context_from(args)
    if ctx.system:
        return system_run(args, ctx)
    with ReadPass() as reads:  # ~20 files per agent: each directory walked once, each file read once
        ctx = ctx.with_options(reads=reads)
        recovery = pending_recovery(ctx)
        rows = [
            _one(pid, options.remembered(ctx, args, pid), recovery)
            for pid in options.selected_providers(args, default_all=True)
        ]
    code = exit_code(rows, recovery)
    failures = [f for row in rows for f in row.pop("failures")]
    try:
        repair = repairlog.report(ctx)
    except (ConfigError, OSError) as exc:  # its files' folder is no usable path (XDG_CONFIG_HOME not UTF-8, too long)
        repair = {"timer": None, "last": None, "problems": [f"the repair timer was not checked: {describe_error(exc)}"]}
    if repair and repair["problems"] and code == exitcodes.OK:
        code = exitcodes.UNHEALTHY  # a timer that is not ours byte for byte may run anything under our name
    if args.json:
        doc = {
            "schema": SCHEMA,
            "ok": code == exitcodes.OK,
            "exit_code": code,
            "recovery": recovery,
            "providers": rows,
            "failures": failures,
            "repair": repair,
        }
        print(json.dumps(doc, indent=2))
    elif args.quiet:
        print(verdict(rows, recovery))
    else:
        _print_text(rows, recovery)
        for line in repairlog.describe(repair) if repair else []:
            print(line)
    return code


def verdict(rows: list[dict[str, Any]], recovery: dict[str, Any] | None) -> str:
    """``status -q``: one line, what is wrong and what is healthy (``not installed`` agents left out)."""
    parts = [f"recovery pending (run: {recovery['command']})"] if recovery else []
    wrong = [f"{r['provider']} ({r['state']})" for r in rows if r["state"] not in HEALTHY_STATES]
    healthy = [r["provider"] for r in rows if r["state"] == "healthy"]
    if wrong:
        parts.append("not healthy: " + ", ".join(wrong))
    if healthy:
        parts.append("healthy: " + ", ".join(healthy))
    return "; ".join(parts) or "no agent is installed here"
