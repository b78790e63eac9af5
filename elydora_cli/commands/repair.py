"""``elydora repair``: install again what is installed, restoring entries an agent or a user removed; and the
opt-in timer that runs it every hour (``--timer on``; see :mod:`elydora_cli.repairtimer`)."""

from __future__ import annotations

import argparse
import json
from typing import Any

from .. import exitcodes, repair, repairlog, repairtimer
from ..managed import SYSTEM
from ..pathtext import shown
from .options import add_location_flags, add_provider_args, add_scope_flag, context_from, selected_providers

EXAMPLES = """examples:
  elydora repair                 # every installed agent: restore what is missing, log it (~/.elydora/repair.log)
  elydora repair --dry-run       # the diff it would apply
  elydora repair --timer on      # every hour, as you (systemd user timer, launchd agent or scheduled task)
  elydora repair --timer off
"""


def register(sub: Any) -> None:
    parser = sub.add_parser("repair", help="restore the hooks an agent or a user removed (and an hourly timer)",
                            epilog=EXAMPLES)
    add_provider_args(parser, all_help=None)
    add_location_flags(parser)
    add_scope_flag(parser)
    parser.add_argument("--dry-run", action="store_true",
                        help="print the diff of what would be restored; write nothing")
    parser.add_argument("--timer", choices=("on", "off"),
                        help="switch the hourly user-level repair timer on or off (user scope only)")
    parser.set_defaults(func=run, all=False, every=False)


def run(args: argparse.Namespace) -> int:
    ctx = context_from(args)
    if args.timer is not None:
        if args.scope == SYSTEM:
            raise exitcodes.UsageError("--timer is a user-level timer: run it without --scope system (a fleet "
                                       "repairs system installs with its own scheduler, docs/fleet.md)")
        if args.timer == "on":
            changed, notes = repairtimer.switch_on(ctx, dry_run=args.dry_run)
        else:
            changed, notes = repairtimer.switch_off(ctx, dry_run=args.dry_run)
        _say(args, {"ok": True, "timer": args.timer, "changed": changed, "notes": notes}, notes)
        return exitcodes.OK
    providers = selected_providers(args) if args.providers else None
    done, diff = repair.repair(ctx, providers, dry_run=args.dry_run)
    if args.dry_run:
        print(diff, end="")
        return exitcodes.OK
    repairlog.append_log(ctx, done.to_json())
    lines = [f"restored {agent}: {', '.join(files)}" for agent, files in done.restored.items()]
    lines += [f"could not repair {agent}: {error}" for agent, error in done.errors.items()]
    if not lines:
        lines = [f"nothing to restore (checked: {', '.join(done.checked) or 'no installed agent'})"]
    _say(args, {"ok": not done.errors, **done.to_json()}, lines)
    return exitcodes.UNHEALTHY if done.errors else exitcodes.OK


def _say(args: argparse.Namespace, doc: dict[str, Any], lines: list[str]) -> None:
    if args.json:
        print(json.dumps(doc, indent=2))
    else:
        for line in lines:
            print(shown(line))
