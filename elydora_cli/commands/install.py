"""``elydora install`` and ``elydora uninstall``."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from .. import exitcodes
from .options import add_hook_flags, context_from, selected_providers


def register(sub: Any) -> None:
    install = sub.add_parser("install", help="install Elydora's guard and audit hooks into agents")
    add_hook_flags(install)
    install.add_argument("--dry-run", action="store_true", help="print a unified diff of every change; write nothing")
    install.add_argument("--json", action="store_true", help="machine-readable output")
    install.add_argument("--python", metavar="PATH", help="the interpreter the hooks run (default: this one)")
    install.set_defaults(func=run_install)
    uninstall = sub.add_parser("uninstall", help="remove Elydora's hooks and runtime files from agents")
    add_hook_flags(uninstall)
    uninstall.add_argument("--dry-run", action="store_true", help="print a unified diff of every change; write nothing")
    uninstall.add_argument("--json", action="store_true", help="machine-readable output")
    uninstall.set_defaults(func=run_uninstall)


def run_install(args: argparse.Namespace) -> int:
    return _run(args, "install")


def run_uninstall(args: argparse.Namespace) -> int:
    return _run(args, "uninstall")


def _run(args: argparse.Namespace, verb: str) -> int:
    from ..main import describe_error, exit_code_for
    from ..providers import operations
    from ..stateroots import refuse_if_elsewhere

    ctx = context_from(args)
    providers = selected_providers(args)
    warnings: list[str] = []
    if verb == "install":
        ctx, warnings = _interpreter(args, ctx)
    if verb == "install" and ctx.hook_command and args.all:
        providers = _accepting_hook_commands(providers)
    action = operations.install if verb == "install" else operations.uninstall
    results, code = [], exitcodes.OK
    for pid in providers:
        try:
            if verb == "uninstall":
                refuse_if_elsewhere(pid, ctx)
            outcome = action(pid, ctx, dry_run=args.dry_run)
        except Exception as exc:  # one agent's failure does not stop the others; each is all-or-nothing
            if len(providers) == 1 or args.verbose >= 2:
                raise
            sys.stderr.write(f"Error: {pid}: {describe_error(exc)}\n")
            code = max(code, exit_code_for(exc))
            continue
        outcome.notes = [*(f"warning: {w}" for w in warnings), *outcome.notes]
        results.append(outcome)
        if not args.json:
            _print(outcome, verb, args.dry_run)
    if args.json:
        rows = [
            {"provider": o.provider, "agent_id": o.agent_id, "changed": o.changed, "notes": o.notes,
             **({"diff": o.diff} if args.dry_run else {})}
            for o in results
        ]
        print(json.dumps({"action": verb, "dry_run": args.dry_run, "results": rows}, indent=2))
    return code


def _interpreter(args: argparse.Namespace, ctx: Any) -> tuple[Any, list[str]]:
    """``--python`` checked, and why the interpreter may not outlive the install (shown as notes)."""
    from .. import interpreter

    if args.python is not None:
        ctx = ctx.with_options(python=interpreter.choose(args.python))
    return ctx, [] if ctx.hook_command else interpreter.warnings(ctx.python)


def _accepting_hook_commands(providers: list[str]) -> list[str]:
    """``--all`` with ``--hook-command``: the providers a supervisor can be configured for (others noted)."""
    from ..providers.registry import load

    kept = []
    for pid in providers:
        refused = getattr(load(pid), "HOOK_COMMAND_REFUSED", None)
        if refused:
            sys.stderr.write(f"note: {pid}: skipped, --hook-command does not apply ({refused})\n")
        else:
            kept.append(pid)
    return kept


def _print(outcome: Any, verb: str, dry_run: bool) -> None:
    if dry_run:
        sys.stdout.write(outcome.diff or f"{outcome.provider}: nothing to change\n")
        return
    done = "installed" if verb == "install" else "uninstalled"
    who = "all agents" if outcome.agent_id == "*" else f"agent {outcome.agent_id}"
    what = f"{len(outcome.changed)} file(s) changed" if outcome.changed else "already up to date"
    print(f"{outcome.provider}: {done} for {who} ({what})")
    for note in outcome.notes:
        print(f"  note: {note}")
