"""``elydora help [COMMAND...]`` and ``elydora completion SHELL``: finding one's way around the commands.

Both need the whole command tree: :mod:`elydora_cli.main` loads every command module for them
(``WHOLE_TREE_COMMANDS``) and hands the top-level parser over as ``args.top_parser``.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from .. import exitcodes
from ..completion import SHELLS, script
from ..exitcodes import UsageError, suggestion
from . import Parser

HELP_EXAMPLES = """examples:
  elydora help                       # the commands, the provider ids, the exit codes
  elydora help install               # the same as: elydora install --help
  elydora help agent freeze          # a verb's own page
"""

COMPLETION_EXAMPLES = """examples:
  elydora completion bash > ~/.local/share/bash-completion/completions/elydora
  elydora completion zsh > "${fpath[1]}/_elydora"     # a folder on zsh's $fpath, before compinit
  elydora completion fish > ~/.config/fish/completions/elydora.fish
  eval "$(elydora completion bash)"                  # this shell only (bash, zsh)
"""


def register(sub: Any) -> None:
    helper = sub.add_parser(
        "help",
        help="show the help of a command (elydora help agent freeze)",
        description="Show the help page of a command or verb, the same as COMMAND --help; with no COMMAND, the "
        "overview of every command.",
        epilog=HELP_EXAMPLES,
    )
    helper.add_argument("words", nargs="*", metavar="COMMAND", help="a command and its verb (agent freeze)")
    helper.set_defaults(func=run_help, data_output=True)
    completion = sub.add_parser(
        "completion",
        help="print a completion script for bash, zsh or fish",
        description="Print the script that completes elydora's commands, verbs, options and provider ids in the "
        "given shell. It is generated from this version's commands and runs no Python on Tab: write it again "
        "after an upgrade.",
        epilog=COMPLETION_EXAMPLES,
    )
    completion.add_argument("shell", choices=SHELLS, metavar="SHELL", help=f"one of {', '.join(SHELLS)}")
    completion.set_defaults(func=run_completion, data_output=True)


def run_help(args: argparse.Namespace) -> int:
    parser: Parser = args.top_parser
    path: list[str] = []
    for word in args.words:
        commands = parser.subcommands()
        if word not in commands:
            where = f"elydora {' '.join(path)}".strip()
            if not commands:
                raise UsageError(f"'{where}' has no sub-command {word!r}")
            raise UsageError(f"{where}: unknown command {word!r}{suggestion(word, list(commands))}")
        parser, path = commands[word], [*path, word]
    sys.stdout.write(parser.format_help())
    return exitcodes.OK


def run_completion(args: argparse.Namespace) -> int:
    sys.stdout.write(script(args.shell, args.top_parser))
    return exitcodes.OK
