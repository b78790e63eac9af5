"""``elydora status --scope system``: the fleet's compliance probe.

One row per agent with a managed layer (or per agent named): whether our entries are in the managed layer
(*covered*), whether the guard can decide from root-owned policy (*enforced*: launchers and policy files
root's only, the policy readable), and whether the audit can deliver (*delivering*: the launchers are what
this version generates and the hook interpreter can run the flusher). Beside the rows, every agent *present*
on the machine (an executable on ``PATH``) that is not covered is listed as "present but unguarded": an
agent installed after the rollout, or one without a managed layer. For an agent bound to a server by
``agent provision``, :func:`bound_users` tells for each binding record whether that user's records are delivered
(:func:`elydora_cli.runtime.health.agent_health`: delivery, and the status query the guard adds to root's
policy for a bound user; a user who has not used the agent yet has no status read, and that is no problem).

Exit code: 4 when a system transaction awaits recovery, else 0 iff every present agent (and every agent
named) is covered, enforced and delivering; a frozen or revoked agent counts as compliant (its guard
blocks, as policy says).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from elydora_config.errors import ConfigError

from .. import catalog, exitcodes, identity, managed
from ..executables import which
from ..exitcodes import UsageError
from ..installer import operations
from ..installer.systemscope import runs_flusher
from ..managed import LAYERS, layer
from ..plug.contract import Finding
from ..plug.layers import OFF, managed_file
from ..providers import claudecode
from ..recovery_hint import pending_recovery
from ..runtime.health import agent_health
from ..runtime.witness import check_users
from .options import selected_providers
from .statusrow import error_row

SCHEMA = 1
COMPLIANT_STATES = ("healthy", "frozen", "revoked")


def present(ctx: Any) -> list[str]:
    """The catalog agents whose executable is on ``PATH`` (the machine's agents, whoever uses them)."""
    search = ctx.env.get("PATH", os.defpath)
    return [p.id for p in catalog.providers() if any(which(name, path=search) for name in p.executables)]


def _policy(ctx: Any, agent_id: str) -> tuple[str | None, dict[str, str]]:
    """The machine-wide status of ``agent_id`` and the per-user ones (``None``: unreadable)."""
    directory = ctx.runtime_dir(agent_id)
    try:
        machine: str | None = identity.read_local_status(directory)
    except Exception:  # reported by the row's findings (missing, unsafe or unreadable policy)
        machine = None
    users: dict[str, str] = {}
    folder = directory / managed.POLICY_USERS
    if folder.is_dir() and not folder.is_symlink():
        for entry in sorted(folder.glob("*.json")):
            try:
                users[entry.stem] = identity.read_status_file(str(entry))
            except Exception:
                users[entry.stem] = "unreadable"
    return machine, users


def row(pid: str, ctx: Any) -> dict[str, Any]:
    facts = layer(pid)
    try:
        st = operations.status(pid, ctx)
    except (ConfigError, OSError) as exc:
        return {**error_row(pid, exc), "covered": False, "enforced": False, "delivering": False}
    errors = [f for f in st.findings if f.severity in ("error", OFF)]  # hooks switched off: not covered
    interpreter = operations.interpreter_of(pid, ctx) if st.installed else None
    machine, users = _policy(ctx, st.agent_id) if st.installed else (None, {})
    covered = st.installed and not errors
    enforced = covered and machine is not None
    delivering = enforced and bool(interpreter and interpreter["present"] and runs_flusher(str(interpreter["path"])))
    if enforced and not delivering:
        errors.append(Finding(f"the hook interpreter {interpreter and interpreter['path']} cannot run the flusher "
                              "(elydora_cli is not importable by it): nothing is delivered"))
    bound = _bound(ctx, st.agent_id) if st.installed else {}  # users root bound to a server (agent provision)
    errors += [Finding(f"user {name}: {problem}") for name, b in bound.items() for problem in b["problems"]]
    rolled_back = _witness(ctx, st.agent_id) if st.installed else {}  # root's record of each user's chain head
    errors += [Finding(f"user {name}: {problem}") for name, problem in rolled_back.items()]
    delivering = delivering and all(b["delivering"] for b in bound.values())
    state = "not installed" if not st.installed else "unhealthy" if errors else (
        machine if machine in ("frozen", "revoked") else "healthy")
    return {
        "provider": pid,
        "agent_id": st.agent_id,
        "installed": st.installed,
        "managed_layer": str(managed_file(ctx, pid)),
        "runtime_dir": str(ctx.runtime_dir(st.agent_id)),
        "state": state,
        "healthy": state in COMPLIANT_STATES,
        "covered": covered,
        "enforced": enforced,
        "delivering": delivering,
        "agent_state": machine,
        "user_states": users,
        "bound_users": bound,
        "rolled_back_users": rolled_back,
        "interpreter": interpreter,
        "lock_down": _lock_down(st.findings, facts),
        "managed_source": _managed_source(pid, ctx, st.agent_id) if st.installed else None,
        "guarantees": facts.promise,
        "problems": [f.render() for f in errors] if st.installed else [],
        "notes": [f.render() for f in st.findings if f.severity == "note"],
        "failures": [{"provider": pid, "file": None if f.path is None else str(f.path), "message": f.message}
                     for f in errors if st.installed],
    }


def _managed_source(pid: str, ctx: Any, agent_id: str) -> dict[str, Any] | None:
    """Which managed source the agent uses where it reads one source only (Claude Code); ``None`` elsewhere."""
    if pid != claudecode.FACTS.id:
        return None
    docs, scoped = operations.read_documents(pid, ctx)
    return claudecode.managed_source(docs, scoped, agent_id)


def _bound(ctx: Any, agent_id: str) -> dict[str, Any]:
    return bound_users(ctx.runtime_dir(agent_id), ctx.home if ctx.rooted else None)


def _witness(ctx: Any, agent_id: str) -> dict[str, str]:
    return check_users(ctx.agent_dir(agent_id), agent_id, ctx.home if ctx.rooted else None)


def _lock_down(findings: list[Any], facts: Any) -> dict[str, Any] | None:
    if facts.lockdown_key is None:
        return None  # the agent has no such switch
    on = any(f.severity == "note" and f.message.startswith(f"lock-down: {facts.lockdown_key}") for f in findings)
    return {"key": facts.lockdown_key, "on": on, "switches_off": facts.lockdown_off if on else None}


def unguarded(rows: list[dict[str, Any]], machine: list[str]) -> list[dict[str, str]]:
    """Present agents that are not covered, each with the reason."""
    by_id = {r["provider"]: r for r in rows}
    found = []
    for pid in machine:
        if pid not in LAYERS:
            found.append({"provider": pid, "reason": "present, but it has no managed layer we can install into"})
        elif pid not in by_id or not by_id[pid]["covered"]:
            why = by_id[pid]["state"] if pid in by_id else "not checked"
            found.append({"provider": pid, "reason": f"present, but not covered by --scope system ({why})"})
    return found


def run(args: argparse.Namespace, ctx: Any) -> int:
    named = _named(args) if args.providers else []
    for pid in named:
        layer(pid)  # refused clearly: an agent without a managed layer
    recovery = pending_recovery(ctx)
    machine = [] if named else present(ctx)
    rows = [row(pid, ctx) for pid in (named or sorted(LAYERS))]
    missing = unguarded(rows, machine) + [
        {"provider": r["provider"], "reason": f"named, but not covered ({r['state']})"}
        for r in rows if named and not r["covered"] and r["state"] not in COMPLIANT_STATES
    ]
    code = exitcodes.RECOVERY if recovery else exitcodes.UNHEALTHY if missing or any(
        r["installed"] and not r["healthy"] for r in rows) else exitcodes.OK
    failures = [f for r in rows for f in r.pop("failures")]
    if args.json:
        doc = {"schema": SCHEMA, "scope": "system", "ok": code == exitcodes.OK, "exit_code": code,
               "recovery": recovery, "present": machine, "unguarded": missing, "providers": rows,
               "failures": failures}
        print(json.dumps(doc, indent=2))
    else:
        _print(rows, missing, recovery)
    return code


def _named(args: argparse.Namespace) -> list[str]:
    return selected_providers(args)


def _flag(row: dict[str, Any], word: str) -> str:
    """``enforced`` says so when a managed source that would replace ours cannot be seen from here."""
    source = row.get("managed_source")
    if word != "enforced" or not source or not source.get("unseen"):
        return word
    if source.get("uncertain"):
        return (f"enforced by {source['used']['name']}, not certain for {', '.join(source['uncertain'])} "
                "(cached server-managed settings)")
    return f"enforced by {source['used']['name']} unless server-managed settings replace it"


def _print(rows: list[dict[str, Any]], missing: list[dict[str, str]], recovery: Any) -> None:
    if recovery:
        print(f"an interrupted transaction is pending; run: {recovery['command']}")
    for r in rows:
        flags = ", ".join(_flag(r, w) for w in ("covered", "enforced", "delivering") if r.get(w))
        print(f"{r['provider']:<12} {r['state']}" + (f" ({flags})" if flags else ""))
        for line in r["problems"] + r.get("notes", []):
            print(f"  - {line}")
    for m in missing:
        print(f"{m['provider']:<12} unguarded: {m['reason']}")


def bound_users(runtime_dir: Path, root: Path | None) -> dict[str, dict[str, Any]]:
    """Per bound user: ``{"agent_dir", "base_url", "delivering", "problems", "delivery"}``."""
    folder = runtime_dir / managed.BINDINGS
    if not folder.is_dir() or folder.is_symlink():
        return {}
    return {entry.stem: _bound_user(entry, root) for entry in sorted(folder.glob("*.json"))}


def _bound_user(marker: Path, root: Path | None) -> dict[str, Any]:
    if sys.platform == "win32":  # a binding record is written under system scope only (POSIX)
        raise UsageError("system scope is not supported on Windows yet")
    import pwd  # POSIX only

    try:
        record = json.loads(marker.read_bytes())
        home = managed.user_home(pwd.getpwnam(marker.stem).pw_dir, root)
        agent_dir = home / identity.STATE_DIR_NAME / str(record["agent_id"])
    except (OSError, ValueError, KeyError, TypeError) as exc:
        return {"agent_dir": None, "delivering": False, "delivery": None,
                "problems": [f"{marker}: unreadable binding record or unknown user ({type(exc).__name__})"]}
    row: dict[str, Any] = {"agent_dir": str(agent_dir), "base_url": record.get("base_url"), "delivery": None}
    try:
        config = identity.read_config(agent_dir)
        bound = (config.agent_id, config.base_url, config.kid) == (record["agent_id"], record["base_url"],
                                                                   record["kid"])
    except (ConfigError, OSError):
        bound = False
    if not bound:
        row["problems"] = [f"the state in {agent_dir} is not the identity root provisioned (deleted or replaced): "
                           "records are not delivered; run elydora agent provision for this user again"]
    else:
        report = agent_health(str(agent_dir))
        row["delivery"] = report["delivery"]
        query = report["status_query"]
        unread = query["status"] is None and query["cached_at"] is None  # not used yet: root's policy decides
        row["problems"] = [p for p in report["problems"] if not (unread and p == query["problem"])]
    row["delivering"] = not row["problems"]
    return row
