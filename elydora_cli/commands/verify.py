"""``elydora verify``: run each agent's installed hooks as the agent would; exit 1 when any check fails.

See :mod:`elydora_cli.installer.verify` and ``docs/verify.md``.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from elydora_config.errors import ConfigError

from .. import exitcodes
from ..installer import operations
from ..installer.verify import Check, verify
from ..introspect import probe_for
from ..plug.agentprobe import AGENT
from . import options


def register(sub: Any) -> None:
    parser = sub.add_parser(
        "verify",
        help="run the installed hooks the way each agent runs them and check the answers",
        description="Read each agent's installed Elydora entries back from its config, run every one as the "
        "agent would (its shell or exec form, timeout and stdin) against a scratch status (active, then "
        "frozen) and check the agent's allow and block answers; the real state and ledger are not touched.",
    )
    parser.epilog = (
        "examples:\n"
        "  elydora verify --all                           # every installed agent's entries\n"
        "  elydora verify claude --json                   # one agent, machine-readable (failures included)"
    )
    options.add_hook_flags(
        parser,
        all_help="every installed agent",
        every_help="every supported agent (one not installed fails)",
    )
    parser.set_defaults(func=run)


def _line(check: Any, widths: tuple[int, int], sources: bool) -> str:
    verdict = "OK" if check.ok else f"FAIL {check.reason}"
    where = f" [{check.source}]" if sources and check.source else ""
    return f"{check.provider:<{widths[0]}}  {check.event:<{widths[1]}}  {check.probe:<5}  {verdict}{where}"


def _installed(providers: list[str], ctx: Any) -> list[str]:
    """``verify --all``: the agents with an install (a broken one included: its status says why)."""
    kept = []
    for pid in providers:
        try:
            installed = operations.status(pid, ctx).installed
        except (ConfigError, OSError):
            installed = True  # an unreadable file is a failure verify reports
        if installed:
            kept.append(pid)
    return kept


def _ask_agents(checks: list[Any], providers: list[str], ctx: Any, args: argparse.Namespace) -> list[str]:
    """Where the agent can say which hooks it loads (Codex: ``codex app-server``), one ``agent`` check per
    agent: our entries listed, enabled and trusted. Without the agent: a note that the check was file-level."""
    notes = []
    for pid in dict.fromkeys(c.provider for c in checks if c.provider in providers):
        scoped = options.remembered(ctx, args, pid)
        probe = probe_for(pid, scoped)
        if probe is None:
            continue
        findings = operations.entry_findings(pid, scoped.with_options(probe=probe))
        if probe.report.check != AGENT:
            notes.append(f"{pid}: {probe.report.note or 'file-level check only'}")
            continue
        problems = [f for f in findings if f.severity in ("error", "pending")]
        checks += [Check(pid, "-", "agent", False, f.render()) for f in problems]
        if not problems:
            checks.append(Check(pid, "-", "agent", True, f"{probe.name}: our hooks are listed, enabled and trusted"))
    return notes


def run(args: argparse.Namespace) -> int:
    ctx = options.context_from(args)
    providers = options.selected_providers(args)
    if args.all:
        providers = _installed(providers, ctx)
    checks = verify(providers, ctx, contexts={pid: options.remembered(ctx, args, pid) for pid in providers})
    if not checks:
        sys.stderr.write("Error: no agent is installed here (see elydora status); nothing to verify\n")
        if args.json:
            print(json.dumps({"ok": False, "checks": [], "failures": [
                {"provider": None, "file": None, "message": "no agent is installed here"}]}, indent=2))
        return exitcodes.UNHEALTHY
    notes = _ask_agents(checks, providers, ctx, args)
    failed = [c for c in checks if not c.ok]
    if args.json:
        failures = [{"provider": c.provider, "file": c.source, "message": c.reason} for c in failed]
        doc = {"ok": not failed, "checks": [c.to_json() for c in checks], "failures": failures, "notes": notes}
        print(json.dumps(doc, indent=2))
    else:
        widths = (max((len(c.provider) for c in checks), default=0), max((len(c.event) for c in checks), default=0))
        files: dict[tuple[str, str], set[str]] = {}
        for check in checks:
            files.setdefault((check.provider, check.event), set()).update([check.source] if check.source else [])
        for check in checks:
            print(_line(check, widths, len(files[(check.provider, check.event)]) > 1))
        for note in notes if args.verbose else []:  # --json always lists them; stdout stays checks + summary
            sys.stderr.write(f"note: {note}\n")
        print(f"{len(failed)} of {len(checks)} checks failed" if failed else f"all {len(checks)} checks passed")
    return exitcodes.UNHEALTHY if failed else exitcodes.OK
