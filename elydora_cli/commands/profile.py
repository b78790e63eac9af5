"""``elydora profile``: the device-manager artifact of an agent's managed settings (docs/fleet.md, "MDM").

Writes what ``install --scope system`` puts into the agent's managed layer as a ``.mobileconfig`` (macOS:
Jamf, Kandji, Intune), a ``.reg`` file (Windows) or the managed file itself; no root needed, nothing of the
machine's managed layers is read or written.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from .. import exitcodes, mdm
from ..plug.context import DEFAULT_TIMEOUT_SECONDS, Context
from .options import MAX_TIMEOUT_SECONDS, add_timeout_flag, checked_agent_id, home_from, selected_providers

EXAMPLES = """examples:
  elydora profile claude --output elydora-claude.mobileconfig   # upload to Jamf/Kandji/Intune (macOS)
  elydora profile claude --format reg --output elydora.reg      # HKLM\\SOFTWARE\\Policies\\ClaudeCode (Windows)
  elydora profile codex --python /usr/bin/python3               # requirements_toml_base64 for com.openai.codex
"""


def register(sub: Any) -> None:
    parser = sub.add_parser(
        "profile", help="write an agent's managed settings as a device-manager profile (.mobileconfig, .reg)",
        epilog=EXAMPLES,
    )
    parser.add_argument("providers", nargs=1, metavar="PROVIDER", help="claude (claudecode) or codex")
    parser.add_argument("--format", choices=mdm.FORMATS, default=mdm.MOBILECONFIG,
                        help="mobileconfig (macOS, default), reg (Windows registry), file (the managed file itself)")
    parser.add_argument("--output", "-o", metavar="PATH", help="write here (default: standard output)")
    parser.add_argument("--python", metavar="PATH",
                        help="the interpreter the machines' install --scope system uses (default: this one)")
    parser.add_argument("--agent-id", help="agent id (default: the provider id)")
    parser.add_argument("--lock-down", dest="lock_down", action="store_true", default=None,
                        help="also the managed-hooks-only switch, as install --scope system --lock-down sets it")
    add_timeout_flag(parser)
    parser.set_defaults(func=run, all=False, every=False)


def _context(args: argparse.Namespace) -> Context:
    timeout = args.hook_timeout_seconds
    if timeout is not None and not 1 <= timeout <= MAX_TIMEOUT_SECONDS:
        raise exitcodes.UsageError(f"--hook-timeout-seconds must be between 1 and {MAX_TIMEOUT_SECONDS}, not {timeout}")
    root = home_from(args) if args.root else Path("/")
    return Context(
        home=root, state_root=root, repo_root=root, env=dict(os.environ),
        python=os.path.abspath(args.python or sys.executable),
        timeout_seconds=DEFAULT_TIMEOUT_SECONDS if timeout is None else timeout,
        agent_id=checked_agent_id(args.agent_id), rooted=bool(args.root), system=True, lock_down=args.lock_down,
    )


def run(args: argparse.Namespace) -> int:
    (provider,) = selected_providers(args)
    mdm.delivery(provider, args.format)
    ctx = _context(args).with_options(provider=provider)
    data = mdm.artifact(provider, args.format, ctx, ctx.agent_id_for(provider))
    if args.output is None:
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
        return exitcodes.OK
    path = Path(args.output)
    with open(path, "wb") as stream:
        stream.write(data)
    os.chmod(path, 0o644)
    if not args.quiet:
        sys.stderr.write(f"wrote {path} ({args.format} for {provider})\n")
    return exitcodes.OK
