"""``elydora hook``: answer one hook call read from stdin (the guard's decision, and an audit record).

``--contract neutral-v1`` (or ``ELYDORA_HOOK_CONTRACT=neutral-v1``) selects the provider-neutral contract:
one JSON document on stdout, exit 0 for allow and 1 for deny; a refused request or unreadable agent state
is one ``Error:`` line on stderr, nothing on stdout, exit 1. Without a contract the answer follows the
agent's own protocol (``--provider``): its deny exit code and output, its failure mode. Any other selector
fails before stdin is read. See ``docs/neutral.md``.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from typing import Any

from ..neutral import engine
from ..neutral.contract import MAX_INPUT_BYTES, selected_contract


def register(sub: Any) -> None:
    parser = sub.add_parser(
        "hook",
        help="answer one agent hook call from stdin (guard decision + audit record)",
        description="Read one hook event (at most 1 MiB of JSON) from stdin, decide it as the guard does, "
        "record it as the audit hook does, and answer in the neutral contract or the agent's protocol.",
    )
    parser.add_argument(
        "--contract",
        default="",
        metavar="SELECTOR",
        help="'neutral-v1' for the provider-neutral contract (default: $ELYDORA_HOOK_CONTRACT, else native)",
    )
    parser.add_argument(
        "--provider",
        help="provider id: replaces the request's provider and names the agent (native: the agent's protocol)",
    )
    parser.add_argument("--agent-id", help="agent id (default: the provider id)")
    parser.epilog = (
        "examples:\n"
        "  elydora hooks sample claude PreToolUse | elydora hook --provider claude; echo $?\n"
        "  elydora hook --contract neutral-v1 < request.json"
    )
    parser.set_defaults(func=run, data_output=True)


def run(args: argparse.Namespace) -> int:
    started = time.perf_counter()
    neutral = selected_contract(args.contract, os.environ) is not None
    state_root = os.path.abspath(args.state_root or args.root or os.path.expanduser("~"))
    selection = engine.Selection(state_root, os.path.abspath(sys.executable), args.provider, args.agent_id)
    data = sys.stdin.buffer.read(MAX_INPUT_BYTES + 1)
    answer = engine.run_neutral(data, selection, started) if neutral else engine.run_native(data, selection)
    if answer.stdout:
        sys.stdout.buffer.write(answer.stdout)
        sys.stdout.flush()
    if answer.stderr:
        sys.stderr.flush()
        sys.stderr.buffer.write(answer.stderr)
        sys.stderr.flush()
    return answer.exit_code
