"""Flags shared by the provider commands, and the :class:`Context` they describe."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from ..exitcodes import UsageError
from ..plug.context import DEFAULT_TIMEOUT_SECONDS, Context

MAX_TIMEOUT_SECONDS = 3600


def add_location_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--root", help="settings root: resolve every agent path as if this were the home directory")
    parser.add_argument("--state-root", help="where .elydora/ lives (default: the settings root)")
    parser.add_argument("--repo-root", help="the project whose read-only settings are consulted (default: cwd)")
    parser.add_argument("--agent-id", help="agent id (default: the provider id)")


def add_provider_args(parser: argparse.ArgumentParser, *, all_flag: bool = True) -> None:
    parser.add_argument("providers", nargs="*", metavar="PROVIDER", help="provider ids (see `elydora status`)")
    if all_flag:
        parser.add_argument("--all", action="store_true", help="every provider")


def add_timeout_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--hook-timeout-seconds",
        type=int,
        default=DEFAULT_TIMEOUT_SECONDS,
        metavar="N",
        help=f"hook timeout, 1-{MAX_TIMEOUT_SECONDS} s (default {DEFAULT_TIMEOUT_SECONDS}; in each agent's unit)",
    )


def add_hook_command_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--hook-command",
        metavar="CMD",
        help="run this supervisor ('[env NAME=value ...] /abs/path hook [args]') instead of the Elydora runtime; "
        "each entry appends --provider <id>; give the same value to install, status, verify and uninstall",
    )


def add_hook_flags(parser: argparse.ArgumentParser, *, all_flag: bool = True) -> None:
    """The flags of the commands that work on agents' hooks: providers, locations, timeout, hook command."""
    add_provider_args(parser, all_flag=all_flag)
    add_location_flags(parser)
    add_timeout_flag(parser)
    add_hook_command_flag(parser)


def hook_command_from(args: argparse.Namespace) -> str | None:
    """The checked ``--hook-command`` text (``None`` when not given); a refused one is a usage error."""
    text: str | None = getattr(args, "hook_command", None)
    if text is None:
        return None
    from ..neutral.hookcommand import HookCommandError, parse_hook_command

    try:
        return parse_hook_command(text).text
    except HookCommandError as exc:
        raise UsageError(f"--hook-command: {exc}") from None


def context_from(args: argparse.Namespace) -> Context:
    timeout = getattr(args, "hook_timeout_seconds", DEFAULT_TIMEOUT_SECONDS)
    if not 1 <= timeout <= MAX_TIMEOUT_SECONDS:
        raise UsageError(f"--hook-timeout-seconds must be between 1 and {MAX_TIMEOUT_SECONDS}, not {timeout}")
    hook_command = hook_command_from(args)
    home = Path(os.path.abspath(args.root)) if args.root else Path.home()
    state_root = Path(os.path.abspath(args.state_root)) if args.state_root else home
    repo_root = Path(os.path.abspath(args.repo_root)) if args.repo_root else Path.cwd()
    return Context(
        home=home,
        state_root=state_root,
        repo_root=repo_root,
        env=dict(os.environ),
        python=os.path.abspath(sys.executable),
        timeout_seconds=timeout,
        agent_id=args.agent_id,
        windows=os.name == "nt",
        rooted=bool(args.root),
        hook_command=hook_command,
    )


def selected_providers(args: argparse.Namespace, *, default_all: bool = False) -> list[str]:
    """The provider ids named on the command line (``--all``: every implemented one)."""
    from ..providers import implemented_ids, load

    if getattr(args, "all", False):
        if args.providers:
            raise UsageError("give provider ids or --all, not both")
        return list(implemented_ids())
    if not args.providers:
        if default_all:
            return list(implemented_ids())
        raise UsageError("name at least one provider, or use --all")
    for pid in args.providers:
        load(pid)
    if args.agent_id and len(args.providers) > 1:
        raise UsageError("--agent-id applies to one provider at a time")
    return list(dict.fromkeys(args.providers))
