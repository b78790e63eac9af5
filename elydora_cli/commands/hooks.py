"""``elydora hooks capabilities|sample``: describe the hook interface.

``capabilities`` prints the discovery document (always JSON): the hook contract (``neutral-v1``: events,
effects, input limit), the flags, and one entry per provider adapter; it reads only the catalog and the
package metadata (see :mod:`elydora_cli.neutral.capabilities`). ``sample`` prints the native stdin an agent
sends its hook for one event (the payloads ``elydora verify`` and ``elydora demo`` feed the installed hooks),
with the current directory as the session's ``cwd``.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from .. import catalog
from ..exitcodes import UsageError, suggestion
from ..hookpayloads import payload
from ..neutral.capabilities import render

EXAMPLES = """examples:
  elydora hooks capabilities | python3 -m json.tool
  elydora hooks sample claude                     # Claude Code's PreToolUse stdin
  elydora hooks sample gemini AfterTool > after.json
"""


def register(sub: Any) -> None:
    parser = sub.add_parser(
        "hooks", help="describe the hook interface (capabilities, sample payloads)", epilog=EXAMPLES
    )
    verbs = parser.add_subparsers(dest="hooks_command", metavar="VERB", required=True)
    verbs.add_parser(
        "capabilities", help="print the discovery document (JSON)",
        epilog="examples:\n  elydora hooks capabilities | python3 -m json.tool\n"
        "  elydora hooks capabilities > capabilities.json   # the neutral-v1 contract, flags and adapters",
    )
    sample = verbs.add_parser(
        "sample", help="print an agent's native hook stdin for one event (JSON)",
        epilog="examples:\n  elydora hooks sample claude                     # Claude Code's PreToolUse stdin\n"
        "  elydora hooks sample gemini AfterTool > after.json",
    )
    sample.add_argument("provider", metavar="PROVIDER", help="provider id or alias")
    sample.add_argument("event", nargs="?", metavar="EVENT", help="the agent's event (default: its pre-tool event)")
    parser.set_defaults(func=run, data_output=True)


def run(args: argparse.Namespace) -> int:
    if args.hooks_command == "sample":
        return _sample(args)
    sys.stdout.buffer.write(render())
    sys.stdout.flush()
    return 0


def _sample(args: argparse.Namespace) -> int:
    try:
        facts = catalog.provider(catalog.canonical_id(args.provider))
    except catalog.UnknownProviderError as exc:
        raise UsageError(exc.message) from None
    events = facts.events.hooked
    event = args.event or facts.events.pre_tool
    if event not in events:
        raise UsageError(
            f"{facts.id} has no event {event!r}{suggestion(event, events)} (its events: {', '.join(events)})"
        )
    sys.stdout.buffer.write(payload(facts.id, event, os.getcwd()) + b"\n")
    sys.stdout.flush()
    return 0
