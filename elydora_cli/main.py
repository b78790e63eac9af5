"""The ``elydora`` command: argument parsing, the error boundary and exit codes.

Each sub-command lives in ``elydora_cli/commands/<name>.py`` and exposes ``register(subparsers)``; the module
must stay cheap to import (heavy imports go inside the command's ``run`` function).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from typing import NoReturn

from . import __version__, exitcodes
from .exitcodes import UsageError, describe_error, exit_code_for

COMMANDS: dict[str, str] = {
    "install": "install",
    "uninstall": "install",
    "status": "status",
    "recover": "recover",
    "agent": "agent",
    "audit": "audit",
    "hook": "hook",
    "hooks": "hooks",
    "verify": "verify",
}
"""Command name -> the module in ``elydora_cli/commands`` that registers it."""
COMMAND_MODULES: tuple[str, ...] = tuple(dict.fromkeys(COMMANDS.values()))


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        sys.stderr.write(f"Error: {message}\n")
        raise SystemExit(exitcodes.USAGE)


def _modules_for(argv: Sequence[str] | None) -> tuple[str, ...]:
    """Only the module of the command being run (every module for help and errors): start-up stays small."""
    args = list(sys.argv[1:] if argv is None else argv)
    words = [a for a in args if not a.startswith("-")]
    if words and words[0] in COMMANDS and not {"-h", "--help"} & set(args):
        return (COMMANDS[words[0]],)
    return COMMAND_MODULES


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    parser = _Parser(prog="elydora", description="Install and manage Elydora hooks for AI coding agents.")
    parser.add_argument("--version", action="version", version=f"elydora {__version__}")
    parser.add_argument("-v", "--verbose", action="count", default=0, help="more log output (repeatable)")
    parser.add_argument("--log-json", action="store_true", help="log as JSON lines on stderr")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name in _modules_for(argv):
        module = importlib.import_module(f"elydora_cli.commands.{name}")
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser(argv)
    args = parser.parse_args(argv)
    from elydora_config import log

    log.set_options(verbose=args.verbose, json=args.log_json)
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        return exitcodes.USAGE
    try:
        return int(args.func(args))
    except UsageError as exc:
        sys.stderr.write(f"Error: {exc}\n")
        return exitcodes.USAGE
    except KeyboardInterrupt:
        sys.stderr.write("Error: interrupted\n")
        return exitcodes.INTERRUPTED
    except Exception as exc:  # the CLI boundary: one line, no traceback
        if args.verbose >= 2:
            raise
        sys.stderr.write(f"Error: {describe_error(exc)}\n")
        return exit_code_for(exc)
