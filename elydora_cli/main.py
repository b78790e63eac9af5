"""The ``elydora`` command: argument parsing, the error boundary and exit codes.

Each sub-command lives in ``elydora_cli/commands/<name>.py`` and exposes ``register(subparsers)``; only the
module of the command being run is imported. Modules import at their tops; the few modules imported on first use
are named, with the reason, in ``LAZY`` of ``tests/elydora_cli/commands/test_cmd_import_sets.py``.

The global flags (:data:`GLOBAL_VALUE_FLAGS`, ``-v``, ``-q``, ``--json``, ``--log-json``) are accepted before
and after the sub-command: the top-level parser holds their defaults and every sub-parser repeats them with
``argparse.SUPPRESS`` defaults, so a flag given after the sub-command overrides one given before it.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import io
import json
import os
import re
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from elydora_config import _platform, log

from . import __version__, catalog, exitcodes
from .commands import Parser
from .exitcodes import UsageError, describe_error, exit_code_for, failure, suggestion
from .pathtext import NOT_UTF8, shown, undecodable

if TYPE_CHECKING:
    from typing import Any, NoReturn

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
    "demo": "demo",
    "help": "guide",
    "completion": "guide",
    "profile": "profile",
    "repair": "repair",
}
"""Command name -> the module in ``elydora_cli/commands`` that registers it."""
COMMAND_MODULES: tuple[str, ...] = tuple(dict.fromkeys(COMMANDS.values()))
GLOBAL_VALUE_FLAGS = ("--root", "--state-root")
"""Global flags that take a value (``_modules_for`` skips their values when it looks for the command)."""
WHOLE_TREE_COMMANDS = frozenset({"help", "completion"})
"""Commands that show every other one: all the command modules are loaded for them."""


class _Formatter(argparse.RawDescriptionHelpFormatter):
    """argparse's formatter, given the terminal width as :func:`shutil.get_terminal_size` would find it
    (``COLUMNS``, else the terminal, else 80): argparse would import :mod:`shutil` for that on every run."""

    def __init__(self, prog: str, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("width", _columns() - 2)
        super().__init__(prog, *args, **kwargs)


def _columns() -> int:
    try:
        columns = int(os.environ.get("COLUMNS", "0"))
    except ValueError:
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns if sys.__stdout__ else 0
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns or 80


class _Parser(Parser):
    """A parser of the ``elydora`` tree: help as wide as the terminal; a usage error is one ``Error:`` line (exit 2),
    with a "did you mean" for a misspelt sub-command."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", _Formatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        sys.stderr.write(f"Error: {shown(message)}{self._suggest(message)}\n")
        raise SystemExit(exitcodes.USAGE)

    def _suggest(self, message: str) -> str:
        """A "did you mean" for a misspelt sub-command (argparse names the word and lists the choices)."""
        match = re.match(r"argument \S+: invalid choice: '([^']*)' \(choose from (.*)\)$", message)
        if not match:
            return ""
        return suggestion(match.group(1), re.findall(r"'([^']*)'", match.group(2)) or match.group(2).split(", "))


class _TopParser(_Parser):
    """The top-level parser: its epilog (provider ids, examples) is built only when help is shown."""

    def format_help(self) -> str:
        self.epilog = _epilog()
        return super().format_help()


class _SubParser(_Parser):
    """A sub-command's parser: it accepts the global flags too (without defaults of its own)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        add_global_flags(self, top=False)


def add_global_flags(parser: Parser, *, top: bool) -> None:
    def default(value: object) -> object:
        return value if top else argparse.SUPPRESS

    group = parser.add_group("global options (before or after the command)")
    verbose = "verbose" if top else "verbose_after"  # `-v status -v` counts both (see _main)
    group.add_argument(
        "-v", "--verbose", dest=verbose, action="count", default=default(0), help="more log output (-vv: tracebacks)"
    )
    group.add_argument("-q", "--quiet", action="store_true", default=default(False), help="print errors only")
    group.add_argument("--log-json", action="store_true", default=default(False), help="log as JSON lines on stderr")
    group.add_argument("--json", action="store_true", default=default(False), help="machine-readable output")
    group.add_argument(
        "--root", default=default(None), help="settings root: agent paths resolve as if this were the home directory"
    )
    group.add_argument("--state-root", default=default(None), help="where .elydora/ lives (default: the settings root)")


def _command_word(args: list[str]) -> str | None:
    """The sub-command named in ``args`` (skipping global flags and their values)."""
    skip = False
    for arg in args:
        if skip:
            skip = False
        elif arg in GLOBAL_VALUE_FLAGS:
            skip = True
        elif not arg.startswith("-"):
            return arg
    return None


def _modules_for(argv: Sequence[str] | None) -> tuple[str, ...]:
    """Only the module of the command being run (every module for help and errors, none for ``--version``):
    start-up stays small."""
    args = list(sys.argv[1:] if argv is None else argv)
    word = _command_word(args)
    if word is None and {"-V", "--version"} & set(args) and not {"-h", "--help"} & set(args):
        return ()  # argparse prints the version and exits before it looks for a command
    if word in COMMANDS and word not in WHOLE_TREE_COMMANDS and not {"-h", "--help"} & set(args):
        return (COMMANDS[word],)
    return COMMAND_MODULES


def _epilog() -> str:
    rows = [f"  {p.id:<11} {p.display_name}" + (f" (also: {', '.join(p.aliases)})" if p.aliases else "")
            for p in catalog.providers()]
    return (
        "providers:\n" + "\n".join(rows) + "\n\n"
        "examples:\n"
        "  elydora demo                               # the whole tour in a sandbox home, one table\n"
        "  elydora install --all                      # every agent present on this machine\n"
        "  elydora status -v                          # each agent: healthy / unhealthy / not installed\n"
        "  elydora agent freeze --provider claude     # the guard blocks the agent's next tool call\n"
        "  elydora help agent freeze                  # a command's own page (the same as --help)\n"
        "  elydora completion bash                    # Tab completion for bash, zsh or fish\n"
        "\nexit codes: 0 ok, 1 unhealthy/refused/bad file, 2 usage, 3 concurrent change or lock held,\n"
        "4 recovery needed, 130 interrupted, 141 output pipe closed"
    )


def build_parser(argv: Sequence[str] | None = None) -> Parser:
    parser = _TopParser(prog="elydora", description="Install and manage Elydora hooks for AI coding agents.")
    parser.add_argument("-V", "--version", action="version", version=f"elydora {__version__}")
    add_global_flags(parser, top=True)
    parser.set_defaults(top_parser=parser)  # for `elydora help` and `elydora completion`
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_SubParser)
    for name in _modules_for(argv):
        module = importlib.import_module(f"elydora_cli.commands.{name}")
        module.register(sub)
    return parser


def _report(args: argparse.Namespace, exc: BaseException) -> None:
    sys.stderr.write(f"Error: {describe_error(exc)}\n")
    if getattr(args, "json", False) and args.command != "hook":  # a hook's stdout is the agent's protocol
        provider = getattr(args, "provider", None) or getattr(args, "provider_word", None)
        sys.stdout.write(json.dumps({"ok": False, "failures": [failure(provider, exc)]}, indent=2) + "\n")


def _quiet_stdout(args: argparse.Namespace) -> None:
    """``--quiet``: the command's informational output goes nowhere (its data output and errors stay)."""
    if args.quiet and not getattr(args, "data_output", False):
        sys.stdout = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115 - closed when the command ends


def _usable_standard_streams() -> None:
    """Standard streams every command can write to.

    One its caller closed (``elydora status >&-``) becomes the null device: the command runs and its exit code
    says how it went, as Python's ``print`` writes nothing to a closed stream; and no file the command opens can
    take the free descriptor number, where a child process would write its output. Standard output writes what
    its encoding cannot hold (a path with an ``é`` under ``PYTHONIOENCODING=ascii`` or a non-UTF-8 locale) as
    backslash escapes, as Python's standard error does, rather than failing after the command did its work."""
    for fd, name in enumerate(("stdin", "stdout", "stderr")):
        if getattr(sys, name) is None:
            null = os.open(os.devnull, os.O_RDWR)
            if null != fd:
                os.dup2(null, fd)
                os.close(null)
            setattr(sys, name, open(fd, "r" if fd == 0 else "w", encoding="utf-8", closefd=False))  # noqa: SIM115
    if isinstance(sys.stdout, io.TextIOWrapper) and sys.stdout.errors == "strict":
        sys.stdout.reconfigure(errors="backslashreplace")


STDOUT = 1
"""The descriptor of standard output: where a pipe its reader closed ends the command quietly."""


def _closed_pipe() -> int:
    """The reader went away (``elydora ... | head``): end quietly, as git and pip do."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())  # the interpreter's final flush must not fail again
    os.close(devnull)
    return exitcodes.PIPE_CLOSED


def main(argv: Sequence[str] | None = None) -> int:
    _usable_standard_streams()
    try:
        return _main(argv)
    except OSError as exc:
        if _platform.is_closed_pipe(exc, STDOUT):
            return _closed_pipe()
        raise


QUICK_EXIT_COMMANDS = frozenset({"status"})
"""Read-only commands that run without the cyclic garbage collector (see :func:`entry`)."""


def entry() -> NoReturn:
    """The ``elydora`` console script: :func:`main`, then exit with its code.

    A command of :data:`QUICK_EXIT_COMMANDS` runs without the cyclic garbage collector: it allocates a few
    megabytes and ends, and each collection would only walk again the objects its imports made."""
    if _command_word(sys.argv[1:]) in QUICK_EXIT_COMMANDS:
        gc.disable()
    raise SystemExit(main())


def _check_root(args: argparse.Namespace) -> None:
    """``--root`` names an existing directory and ``--state-root`` none that is not one, both by a path the agents
    can read (:mod:`.pathtext`): a typo is refused (exit 2), never created nor reported healthy. An empty value
    (``--root "$UNSET"``) is refused too, never taken for the default."""
    for flag, value in (("--root", args.root), ("--state-root", args.state_root)):
        if value is None:
            continue
        if not value:
            raise UsageError(f"{flag} is empty: name a directory (leave the flag out for the default)")
        path = os.path.abspath(value)
        if undecodable(path):
            raise UsageError(f"{path}: {NOT_UTF8} ({flag})")
        try:
            os.stat(path)
        except (FileNotFoundError, NotADirectoryError):
            pass  # said below
        except OSError as exc:  # a name too long, a loop of links, a folder one may not search...
            raise UsageError(f"{path}: {exc.strerror} ({flag})") from None
        if flag == "--root" and not os.path.isdir(path):
            problem = "is not a directory" if os.path.lexists(path) else "no such directory"
            raise UsageError(f"{path}: {problem} (--root names the home directory whose agent configs to use)")
        if flag == "--state-root" and os.path.lexists(path) and not os.path.isdir(path):
            raise UsageError(f"{path}: is not a directory (--state-root names where .elydora/ lives)")


def _main(argv: Sequence[str] | None) -> int:
    parser = build_parser(argv)
    args = parser.parse_args(argv)
    args.verbose += getattr(args, "verbose_after", 0)
    log.set_options(verbose=args.verbose, json=args.log_json)
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        return exitcodes.USAGE
    stdout = sys.stdout
    _quiet_stdout(args)
    try:
        return _run(args)
    finally:
        if sys.stdout is not stdout:  # a caller in the same process (a test, the demo) gets its stream back
            sys.stdout.close()
            sys.stdout = stdout


def _run(args: argparse.Namespace) -> int:
    try:
        _check_root(args)
        code = int(args.func(args))
        sys.stdout.flush()
        return code
    except UsageError as exc:
        _report(args, exc)
        return exitcodes.USAGE
    except KeyboardInterrupt:
        sys.stderr.write("Error: interrupted\n")
        return exitcodes.INTERRUPTED
    except Exception as exc:  # the CLI boundary: one line, no traceback
        if _platform.is_closed_pipe(exc, STDOUT) or args.verbose >= 2:  # main() ends a closed pipe quietly
            raise
        _report(args, exc)
        return exit_code_for(exc)
