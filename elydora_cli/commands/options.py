"""Flags shared by the provider commands, and the :class:`Context` they describe.

``--root`` and ``--state-root`` are global flags (:mod:`elydora_cli.main`); the ones here belong to the
commands that work on agents' hooks. Options an install was given (``--hook-timeout-seconds``,
``--hook-command``, ``--python``, ``--follow-symlinks``) are remembered in its manifest: a later command that does
not repeat them uses the remembered values (:func:`remembered`).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from elydora_config.errors import ConfigError, UnsafePathError

from .. import catalog, identity
from ..exitcodes import UsageError
from ..installer.manifest import MANIFEST_NAME, Manifest, read_manifest
from ..managed import SCOPES, STATE_ROOT, SYSTEM, USER, placed, require_root
from ..neutral.hookcommand import HookCommandError, parse_hook_command
from ..optins import (
    ALLOW_READ_ONLY_FLAG,
    FOLLOW_SYMLINKS_FLAG,
    FOLLOW_SYMLINKS_SETTING,
    NO_FOLLOW_SYMLINKS_FLAG,
    allow_read_only,
    follow_symlinks,
    follow_symlinks_decided,
)
from ..pathtext import NOT_UTF8, undecodable
from ..plug.context import DEFAULT_TIMEOUT_SECONDS, Context
from ..providers import implemented_ids, load
from . import Parser

MAX_TIMEOUT_SECONDS = 3600


def add_location_flags(parser: Parser) -> None:
    parser.add_argument("--repo-root", help="the project whose read-only settings are consulted (default: cwd)")
    parser.add_argument("--agent-id", help="agent id (default: the provider id)")
    add_opt_in_flags(parser)


def add_opt_in_flags(parser: Parser) -> None:
    """The opt-ins of :mod:`elydora_cli.optins`: follow symlinks (or refuse them), replace read-only files."""
    follow = parser.add_exclusive_group()
    follow.add_argument(
        FOLLOW_SYMLINKS_FLAG,
        action="store_true",
        help=f"edit the real file a symlinked dotfile points to (setting: {FOLLOW_SYMLINKS_SETTING}=1); "
        "remembered by the install",
    )
    follow.add_argument(
        NO_FOLLOW_SYMLINKS_FLAG, action="store_true", help="refuse links, even where an install remembered following"
    )
    parser.add_argument(ALLOW_READ_ONLY_FLAG, action="store_true", help="replace settings files that are read-only")


def provider_help() -> str:
    return "provider ids or aliases: " + ", ".join(
        p.id + (f" ({'/'.join(p.aliases)})" if p.aliases else "") for p in catalog.providers()
    )


ALL_SUPPORTED = "every supported agent"


def add_provider_args(
    parser: Parser, *, all_help: str | None = ALL_SUPPORTED, every_help: str | None = None
) -> None:
    """Provider ids, ``--all`` (what "all" means for the command) and, where "all" is narrower than every
    supported agent, ``--every`` (the two together are a usage error)."""
    parser.add_argument("providers", nargs="*", metavar="PROVIDER", help=provider_help())
    group = parser.add_exclusive_group() if all_help is not None else parser
    if all_help is not None:
        group.add_argument("--all", action="store_true", help=all_help)
    if every_help is not None:
        group.add_argument("--every", action="store_true", help=every_help)


def add_timeout_flag(parser: Parser) -> None:
    parser.add_argument(
        "--hook-timeout-seconds",
        type=int,
        default=None,
        metavar="N",
        help=f"hook timeout, 1-{MAX_TIMEOUT_SECONDS} s (default: what the install used, else "
        f"{DEFAULT_TIMEOUT_SECONDS}; in each agent's unit)",
    )


def add_hook_command_flag(parser: Parser) -> None:
    parser.add_argument(
        "--hook-command",
        metavar="CMD",
        help="run this supervisor ('[env NAME=value ...] /abs/path hook [args]') instead of the Elydora runtime; "
        "each entry appends --provider <id>; remembered by the install (status, verify, uninstall reuse it)",
    )
    parser.add_argument(
        "--no-hook-command",
        action="store_true",
        help="the Elydora runtime, even where an earlier install remembered a --hook-command",
    )


def add_hook_flags(
    parser: Parser, *, all_help: str | None = ALL_SUPPORTED, every_help: str | None = None
) -> None:
    """The flags of the commands that work on agents' hooks: providers, locations, timeout, hook command."""
    add_provider_args(parser, all_help=all_help, every_help=every_help)
    add_location_flags(parser)
    add_timeout_flag(parser)
    add_hook_command_flag(parser)
    add_scope_flag(parser)


def add_scope_flag(parser: Parser) -> None:
    parser.add_argument(
        "--scope",
        choices=SCOPES,
        default=USER,
        help="user: the agents' user files (default); system: their managed layer (/etc/...), root only, with "
        "root-owned launchers every user runs (see docs/fleet.md)",
    )


def hook_command_from(args: argparse.Namespace) -> str | None:
    """The checked ``--hook-command`` text (``None`` when not given); a refused one is a usage error."""
    text: str | None = getattr(args, "hook_command", None)
    if text is None:
        return None
    if getattr(args, "no_hook_command", False):
        raise UsageError("give --hook-command or --no-hook-command, not both")
    try:
        return parse_hook_command(text).text
    except HookCommandError as exc:
        raise UsageError(f"--hook-command: {exc}") from None


HOME_VARIABLE = "USERPROFILE" if sys.platform == "win32" else "HOME"
"""Where the agents find the user's home: ``$HOME``; on Windows ``%USERPROFILE%`` (Node's ``os.homedir()``, which
the Node-based agents use there, and Python's ``Path.home()``; ``HOME`` is seldom set on Windows)."""


def home_from(args: argparse.Namespace) -> Path:
    """``--root``, else the home (:data:`HOME_VARIABLE`); an empty, unset, relative or undecodable one is refused
    (agent paths never resolve from ``/`` nor from a working directory)."""
    if args.root:
        return Path(os.path.abspath(args.root))
    home = os.environ.get(HOME_VARIABLE, "")
    if not home.strip():
        raise UsageError(f"{HOME_VARIABLE} is empty or unset: give --root DIR (the home whose agent configs to use)")
    if undecodable(home):
        raise UsageError(f"{home}: {NOT_UTF8} (${HOME_VARIABLE})")
    if not os.path.isabs(home):  # an agent started in another folder would look for its settings there
        raise UsageError(f"{HOME_VARIABLE}={home} is not an absolute path: each agent would resolve it from its own "
                         "working directory; set it to an absolute path, or give --root DIR")
    return Path(os.path.abspath(home))


def checked_agent_id(value: str | None) -> str | None:
    """``--agent-id`` when it is a safe directory name; otherwise a usage error (exit 2)."""
    if value is None:
        return None
    try:
        return identity.check_agent_id(value)
    except ConfigError as exc:
        raise UsageError(f"--agent-id: {exc.message}") from None


def working_directory() -> Path:
    """The current directory: the project whose settings layers the agents read, unless ``--repo-root`` names
    one. A usage error when it no longer exists (removed while the shell was in it)."""
    try:
        return Path.cwd()
    except FileNotFoundError:
        raise UsageError(
            "the current directory no longer exists (it was removed or renamed): cd into an existing directory, "
            "or pass --repo-root with the project whose agent settings to use"
        ) from None


def context_from(args: argparse.Namespace) -> Context:
    timeout = getattr(args, "hook_timeout_seconds", None)
    if timeout is not None and not 1 <= timeout <= MAX_TIMEOUT_SECONDS:
        raise UsageError(f"--hook-timeout-seconds must be between 1 and {MAX_TIMEOUT_SECONDS}, not {timeout}")
    hook_command = hook_command_from(args)
    follow = follow_symlinks(args, os.environ)
    resolve = os.path.realpath if follow else os.path.abspath  # a symlinked home: work on the real one
    home = Path(resolve(home_from(args)))
    state_root = Path(resolve(args.state_root)) if args.state_root else home
    repo_root = Path(os.path.abspath(args.repo_root)) if args.repo_root else working_directory()
    system = _system_scope(args)
    if system and not args.state_root:
        state_root = placed(STATE_ROOT, home if args.root else None)
    return Context(
        home=home,
        state_root=state_root,
        repo_root=repo_root,
        env=dict(os.environ),
        python=os.path.abspath(sys.executable),
        timeout_seconds=DEFAULT_TIMEOUT_SECONDS if timeout is None else timeout,
        agent_id=checked_agent_id(args.agent_id),
        windows=os.name == "nt",
        rooted=bool(args.root),
        hook_command=hook_command,
        follow_symlinks=follow,
        allow_read_only=allow_read_only(args),
        system=system,
        lock_down=getattr(args, "lock_down", None),
    )


def _system_scope(args: argparse.Namespace) -> bool:
    """``--scope system`` (root only; refused with ``--hook-command``, whose supervisor users could edit)."""
    if getattr(args, "scope", None) != SYSTEM:
        if getattr(args, "lock_down", None) is not None:
            raise UsageError("--lock-down and --no-lock-down apply to --scope system only")
        return False
    if getattr(args, "hook_command", None):
        raise UsageError("--hook-command does not apply to --scope system (the hooks run root-owned launchers)")
    require_root(f"elydora {args.command}")
    return True


def remembered(ctx: Context, args: argparse.Namespace, provider: str, notes: list[str] | None = None) -> Context:
    """``ctx`` with the options the install of ``provider`` recorded in its manifest (``--hook-timeout-seconds``,
    ``--hook-command``, ``--python``, ``--follow-symlinks``), where this command's flags do not say otherwise: an
    explicit flag always wins, ``--no-hook-command`` forgets a supervisor and ``--no-follow-symlinks`` the links.
    A remembered interpreter that is gone is not used (``notes`` says so)."""
    manifest = _manifest_of(ctx, provider)
    if manifest is None:
        return ctx
    changes: dict[str, object] = {}
    if getattr(args, "hook_timeout_seconds", None) is None:
        changes["timeout_seconds"] = manifest.timeout_seconds
    if getattr(args, "hook_command", None) is None and not getattr(args, "no_hook_command", False):
        changes["hook_command"] = manifest.hook_command
    if getattr(args, "python", None) is None and manifest.python != ctx.python:
        if os.path.isfile(manifest.python) and os.access(manifest.python, os.X_OK):
            changes["python"] = manifest.python
        elif notes is not None:
            notes.append(f"the interpreter the earlier install chose, {manifest.python}, is gone: the hooks now run "
                         f"{ctx.python} (pass --python to choose another)")
    if manifest.follow_symlinks and not ctx.follow_symlinks and not follow_symlinks_decided(args, ctx.env):
        changes.update(follow_symlinks=True, home=Path(os.path.realpath(ctx.home)),
                       state_root=Path(os.path.realpath(ctx.state_root)))
    return ctx.with_options(**changes)


def _manifest_of(ctx: Context, provider: str) -> Manifest | None:
    """The manifest of ``provider``'s agent, read without following links; when a link is in the way, read
    through it only to learn whether the install remembered ``--follow-symlinks`` (else ``None``: the command
    then reports the link)."""
    path = str(ctx.agent_dir(ctx.agent_id_for(provider)) / MANIFEST_NAME)
    try:
        manifest = read_manifest(path, reads=ctx.reads)  # in a status pass, decoded once for all
    except UnsafePathError:
        try:
            manifest = read_manifest(path, reads=ctx.reads, allow_links=True)
        except (ConfigError, OSError):
            return None
        if manifest is None or not manifest.follow_symlinks:
            return None
    except (ConfigError, OSError):
        return None  # status reports an unreadable manifest on its own
    return manifest if manifest is not None and manifest.provider == provider else None


def selected_providers(args: argparse.Namespace, *, default_all: bool = False) -> list[str]:
    """The provider ids named on the command line (aliases resolved); ``--all``: every implemented one."""
    every = bool(getattr(args, "all", False) or getattr(args, "every", False))
    if every:
        if args.providers:
            raise UsageError("give provider ids or --all, not both")
        return list(implemented_ids())
    if not args.providers:
        if default_all:
            return list(implemented_ids())
        raise UsageError("name at least one provider, or use --all")
    try:
        chosen = list(dict.fromkeys(catalog.canonical_id(name) for name in args.providers))
    except catalog.UnknownProviderError as exc:
        raise UsageError(exc.message) from None
    for pid in chosen:
        load(pid)
    if args.agent_id and len(chosen) > 1:
        raise UsageError("--agent-id applies to one provider at a time")
    return chosen
