"""``elydora install`` and ``elydora uninstall``."""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

from .. import exitcodes, interpreter
from ..exitcodes import UsageError, exit_code_for, failure
from ..installer import operations
from ..introspect import probe_for
from ..managed import LAYERS
from ..pathtext import NOT_UTF8, shown, undecodable
from ..presence import absence
from ..providers import load
from ..stateroots import refuse_if_elsewhere
from .options import add_hook_flags, context_from, remembered, selected_providers

INSTALL_EXAMPLES = """examples:
  elydora install --all                         # every agent present here; the others are listed as skipped
  elydora install claude codex                  # these two, present or not (aliases work: claude, auggie...)
  elydora install --every --root ./sandbox      # every supported agent into a sandbox home
  elydora install gemini --dry-run              # the unified diff of every file it would change
  sudo elydora install claude codex --scope system   # the agents' managed layer, for every user (docs/fleet.md)
"""
UNINSTALL_EXAMPLES = """examples:
  elydora uninstall --all                       # every agent's entries and runtime files
  elydora uninstall claude --root ./sandbox     # one agent of a sandbox home
"""


def register(sub: Any) -> None:
    install = sub.add_parser(
        "install", help="install Elydora's guard and audit hooks into agents", epilog=INSTALL_EXAMPLES
    )
    add_hook_flags(
        install,
        all_help="every agent present here (its config directory or executable exists); the others are skipped",
        every_help="every supported agent, present or not (sandboxes)",
    )
    install.add_argument("--dry-run", action="store_true", help="print a unified diff of every change; write nothing")
    install.add_argument(
        "--python", metavar="PATH",
        help="the interpreter the hooks run (default: what the install used, else this one); remembered by the install",
    )
    install.add_argument(
        "--trust", action="store_true",
        help="Codex: record Codex's own trust of our hooks in config.toml (asked on a terminal when not given)",
    )
    lock = install.add_exclusive_group()
    lock.add_argument(
        "--lock-down", dest="lock_down", action="store_true", default=None,
        help="--scope system: also make the agent run managed hooks only (allowManagedHooksOnly, "
        "allow_managed_hooks_only); status lists what else that switches off",
    )
    lock.add_argument(
        "--no-lock-down", dest="lock_down", action="store_false",
        help="--scope system: remove the lock-down switch an earlier --lock-down set",
    )
    install.set_defaults(func=run_install)
    uninstall = sub.add_parser(
        "uninstall", help="remove Elydora's hooks and runtime files from agents", epilog=UNINSTALL_EXAMPLES
    )
    add_hook_flags(uninstall)
    uninstall.add_argument("--dry-run", action="store_true", help="print a unified diff of every change; write nothing")
    uninstall.set_defaults(func=run_uninstall)


def run_install(args: argparse.Namespace) -> int:
    return _run(args, "install")


def run_uninstall(args: argparse.Namespace) -> int:
    return _run(args, "uninstall")


def _run(args: argparse.Namespace, verb: str) -> int:
    ctx = context_from(args)
    providers = selected_providers(args)
    skipped: list[dict[str, str]] = []
    if verb == "install":
        ctx = _interpreter(args, ctx)
    if verb == "install" and args.all:
        providers, skipped = _present(providers, ctx)
    if ctx.system and (args.all or getattr(args, "every", False)):
        providers, refused = _with_managed_layer(providers)
        skipped += refused
    if verb == "install" and ctx.hook_command and (args.all or args.every):
        providers, refused = _accepting_hook_commands(providers)
        skipped += refused
    action = operations.install if verb == "install" else operations.uninstall
    results, failures, code = [], [], exitcodes.OK
    for row in skipped:
        if not args.json:
            print(f"{row['provider']}: skipped, {row['reason']}")
    for pid in providers:
        try:
            if verb == "uninstall" and not ctx.system:
                refuse_if_elsewhere(pid, ctx)
            warnings: list[str] = []
            scoped = remembered(ctx, args, pid, warnings)
            if verb == "install" and not scoped.hook_command:
                warnings += interpreter.warnings(scoped.python)
            if verb == "install" and not ctx.system:  # managed hooks are trusted by policy
                scoped = _with_trust(args, scoped, pid)
            outcome = action(pid, scoped, dry_run=args.dry_run)
        except Exception as exc:  # one agent's failure does not stop the others; each is all-or-nothing
            if (len(providers) == 1 and not args.json) or args.verbose >= 2:
                raise
            failures.append(failure(pid, exc))
            sys.stderr.write(f"Error: {pid}: {failures[-1]['message']}\n")
            code = max(code, exit_code_for(exc))
            continue
        outcome.notes = [*(f"warning: {w}" for w in warnings), *outcome.notes]
        results.append(outcome)
        if not args.json:
            _print(outcome, verb, args.dry_run, args.verbose)
    if args.json:
        rows = [{"provider": o.provider, "agent_id": o.agent_id, "changed": o.changed, "notes": o.notes,
                 **(_preview_json(o, args.verbose > 0) if o.preview else {})} for o in results]
        data = {"action": verb, "dry_run": args.dry_run, "results": rows, "skipped": skipped, "failures": failures}
        print(json.dumps(data, indent=2))
    return code


def _interpreter(args: argparse.Namespace, ctx: Any) -> Any:
    """``--python`` checked (an install that does not give it keeps the one the agent's install remembered); the
    Python running elydora, which the flusher the hooks start runs, must have a path the agents can read too."""
    if undecodable(ctx.python):
        raise UsageError(f"{ctx.python}: {NOT_UTF8} (the Python running elydora: the hooks would start it)")
    if args.python is not None:
        ctx = ctx.with_options(python=interpreter.choose(args.python))
        if ctx.system and not ctx.hook_command:
            interpreter.require_flusher(ctx.python)
    return ctx


def _with_trust(args: argparse.Namespace, ctx: Any, pid: str) -> Any:
    """The agent's own introspection, and its trust of our entries with consent: ``--trust``, or yes at the
    prompt on a terminal (only when the agent can be asked: Codex on ``PATH``)."""
    probe = probe_for(pid, ctx)
    if probe is None or not probe.records_trust:
        return ctx
    trust = bool(args.trust) or (not args.json and not args.dry_run and probe.available() and _ask(pid))
    return ctx.with_options(probe=probe, trust=trust)


def _ask(pid: str) -> bool:
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        return False
    answer = input(f"{pid}: trust Elydora's hooks in {pid} now (they do not run until trusted)? [y/N] ")
    return answer.strip().lower() in ("y", "yes")


def _present(providers: list[str], ctx: Any) -> tuple[list[str], list[dict[str, str]]]:
    """``install --all``: the agents present on this machine, and the others with the reason."""
    kept, skipped = [], []
    for pid in providers:
        reason = absence(pid, ctx)
        if reason is None:
            kept.append(pid)
        else:
            skipped.append({"provider": pid, "reason": reason})
    return kept, skipped


def _with_managed_layer(providers: list[str]) -> tuple[list[str], list[dict[str, str]]]:
    """``--all``/``--every`` under ``--scope system``: the agents with a managed layer (the others skipped)."""
    kept = [pid for pid in providers if pid in LAYERS]
    return kept, [{"provider": p, "reason": "no managed layer (--scope system)"} for p in providers if p not in kept]


def _accepting_hook_commands(providers: list[str]) -> tuple[list[str], list[dict[str, str]]]:
    """``--all`` with ``--hook-command``: the providers a supervisor can be configured for (others skipped)."""
    kept, skipped = [], []
    for pid in providers:
        refused = load(pid).HOOK_COMMAND_REFUSED
        if refused:
            skipped.append({"provider": pid, "reason": f"--hook-command does not apply ({refused})"})
        else:
            kept.append(pid)
    return kept, skipped


def _preview_json(outcome: Any, full: bool) -> dict[str, Any]:
    """A dry run's ``--json`` fields: ``diff`` as the text output shows it, ``own_files`` listed one by one."""
    own = [{"path": f.path, "change": f.change, "bytes": f.size} for f in outcome.preview.own]
    return {"diff": outcome.preview.text(outcome.provider, full=full), "own_files": own}


def _print(outcome: Any, verb: str, dry_run: bool, verbose: int) -> None:
    if dry_run:
        text = outcome.preview.text(outcome.provider, full=verbose > 0) if outcome.preview else ""
        sys.stdout.write(text or f"{outcome.provider}: nothing to change\n")
        return
    done = "installed" if verb == "install" else "uninstalled"
    who = "all agents" if outcome.agent_id == "*" else f"agent {outcome.agent_id}"
    if verb == "uninstall" and not outcome.changed:
        print(f"{outcome.provider}: not installed (nothing to remove)")
        return
    what = f"changed: {_files(outcome.changed)}" if outcome.changed else "already up to date"
    print(shown(f"{outcome.provider}: {done} for {who} ({what})"))
    for note in outcome.notes:
        print(f"  note: {shown(note)}")


def _files(paths: list[str]) -> str:
    """The changed agent files by name; Elydora's own state files by number (``--json`` lists every one)."""
    config = [p for p in paths if f"{os.sep}.elydora{os.sep}" not in p]
    state = len(paths) - len(config)
    return ", ".join(config + ([f"{state} Elydora state file(s)"] if state else []))
