"""Recognising the hook entries Elydora wrote: by the install manifest and by exact shape.

A handler is ours when it is exactly a value some install recorded in a manifest, or when regenerating the
handler from what its command names (interpreter, agent id, role, timeout) gives back exactly the same
object. Comments are never used (agents strip them), and the interpreter is read from the entry, not
assumed, so a reinstall from another Python still finds the old entries.

With ``--hook-command`` the entries run a supervisor instead of the runtime: :func:`runtime_argv` (the one
place every command form is built from) gives the supervisor's argv plus ``--provider <id>`` (and
``--agent-id <id>`` when the agent id is not the provider id). An entry running the supervisor of the current
flag, or of one an earlier install recorded in its manifest, is recognised by the same exact regeneration.
For an agent whose entries other agents also run (:func:`hosted`), the entries name the argument-free
launcher ``<state>/.elydora/<id>/supervisor.py`` instead, which holds the supervisor's argv
(:func:`supervisor_runtime`); an agent that drops ``args`` then still runs the host check.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from elydora_config.records import record

from .. import catalog
from ..neutral.hookcommand import parse_hook_command
from ..runtime.generate import SCRIPT_MODE, supervisor_launcher
from ..statefiles import AUDIT_SCRIPT, GUARD_SCRIPT, SUPERVISOR_SCRIPT
from .cmdforms import looks_like_python, parse_encoded_powershell, parse_posix, parse_powershell_call
from .context import RUNTIME_FLAGS, Context

if TYPE_CHECKING:
    from typing import Any

GUARD, AUDIT = "guard", "audit"
DEFAULT_SCRIPTS: Mapping[str, str] = {GUARD_SCRIPT: GUARD, AUDIT_SCRIPT: AUDIT}


@record(frozen=True)
class Ref:
    """What one of our handlers points at."""

    agent_id: str
    role: str
    python: str
    timeout: Any = None


def script_path(ctx: Context, agent_id: str, role: str, scripts: Mapping[str, str] = DEFAULT_SCRIPTS) -> Path:
    name = next(n for n, r in scripts.items() if r == role)
    return ctx.runtime_file(agent_id, name)


def runtime_argv(ref: Ref, ctx: Context) -> list[str]:
    """How an agent runs our hook for ``ref``: the runtime script, or the ``--hook-command`` supervisor (through
    its argument-free launcher when other agents run this agent's entries, see :func:`hosted`)."""
    if launches_supervisor(ctx):
        return [ref.python, *RUNTIME_FLAGS, str(ctx.agent_dir(ref.agent_id) / SUPERVISOR_SCRIPT)]
    if ctx.hook_command:
        return supervisor_argv(ctx.hook_command, ctx, ref.agent_id)
    return [ref.python, *RUNTIME_FLAGS, str(script_path(ctx, ref.agent_id, ref.role))]


def hosted(provider: str | None) -> bool:
    """Whether other agents run this provider's entries, so its runtime checks which agent sent the event
    (catalog ``host``); its supervisor entries then go through the launcher that does the same check."""
    return provider is not None and catalog.provider(provider).host is not None


@functools.lru_cache(maxsize=64)
def command_words(command: str) -> tuple[str, ...]:
    """The argv of a checked hook command (``env`` and its assignments included)."""
    return parse_hook_command(command).argv


def supervisor_argv(command: str, ctx: Context, agent_id: str) -> list[str]:
    """The supervisor's words, then ``--provider <id>`` (the agent whose protocol it must answer in) and, for
    an agent id other than the provider id, ``--agent-id <id>``."""
    if ctx.provider is None:
        raise ValueError("a supervisor entry needs the provider id (Context.provider)")
    extra = ["--provider", ctx.provider] + (["--agent-id", agent_id] if agent_id != ctx.provider else [])
    return [*command_words(command), *extra]


def launches_supervisor(ctx: Context) -> bool:
    """Whether the entries run the supervisor through its launcher: a ``--hook-command`` install of a
    :func:`hosted` provider on a POSIX system (the launcher, like the runtime, is POSIX-only; on Windows the
    entries run the supervisor itself)."""
    return bool(ctx.hook_command) and _launcher_form(ctx)


def _launcher_form(ctx: Context) -> bool:
    """Whether this provider's supervisor entries, under any hook command, go through the launcher."""
    return not ctx.windows and hosted(ctx.provider)


def supervisor_exec(command: str, ctx: Context, agent_id: str) -> tuple[list[str], dict[str, str]]:
    """:func:`supervisor_argv` as an exec needs it: the argv without the ``env`` prefix, and its assignments."""
    parsed = parse_hook_command(command)
    words = supervisor_argv(command, ctx, agent_id)
    return words[parsed.executable_index :], parsed.environment


def supervisor_runtime(ctx: Context, agent_id: str) -> dict[str, tuple[bytes, int]]:
    """The supervisor launcher (``supervisor.py``, 0700) of a ``--hook-command`` install of a :func:`hosted`
    provider; nothing otherwise (an ``extra_runtime`` of the agent modules)."""
    if not (ctx.hook_command and launches_supervisor(ctx)):
        return {}
    assert ctx.provider is not None  # hosted() says so
    argv, env = supervisor_exec(ctx.hook_command, ctx, agent_id)
    launcher = supervisor_launcher(ctx.provider, ctx.agent_dir(agent_id), ctx.python, argv, env)
    return {SUPERVISOR_SCRIPT: (launcher, SCRIPT_MODE)}


def _launcher_agent(argv: list[str], ctx: Context) -> str | None:
    """The agent id when ``argv`` runs a supervisor launcher: ``<state>/.elydora/<id>/supervisor.py`` alone or
    after an interpreter and the runtime flags."""
    if not (len(argv) == 1 or (len(argv) == 2 + len(RUNTIME_FLAGS) and looks_like_python(argv[0]))):
        return None
    found = split_script(argv[-1], ctx, {SUPERVISOR_SCRIPT: GUARD})
    return found[0] if found else None


def _agent_named(rest: list[str], provider: str) -> str | None:
    """The agent id the words after the supervisor's own name (``--provider <id> [--agent-id <id>]``)."""
    if rest[:2] != ["--provider", provider]:
        return None
    if len(rest) == 2:
        return provider
    agent = rest[3] if len(rest) == 4 and rest[2] == "--agent-id" else ""
    plain = agent not in ("", ".", "..", provider) and not re.search(r"[\\/\x00-\x1f]", agent)
    return agent if plain else None


def _argv_candidates(value: Any) -> Iterator[list[str]]:
    if isinstance(value, str):
        for argv in _command_forms(value):
            yield list(argv)


@functools.lru_cache(maxsize=256)
def _command_forms(value: str) -> tuple[tuple[str, ...], ...]:
    """The argv of ``value`` in each command form that parses it (a pure function of the text: status asks
    for the same handlers' commands several times per agent)."""
    parsed = (parse(value) for parse in (parse_encoded_powershell, parse_powershell_call, parse_posix))
    return tuple(tuple(argv) for argv in parsed if argv)


def handler_argvs(handler: Mapping[str, Any]) -> list[list[str]]:
    """Every argv a handler's fields could run: each string parsed in each command form, and the exec form."""
    argvs = [argv for value in handler.values() for argv in _argv_candidates(value)]
    command, args = handler.get("command"), handler.get("args")
    if isinstance(command, str) and isinstance(args, list) and all(isinstance(a, str) for a in args):
        argvs.append([command, *args])
    return argvs


def split_script(path: str, ctx: Context, scripts: Mapping[str, str] = DEFAULT_SCRIPTS) -> tuple[str, str] | None:
    """(agent id, role) when ``path`` is ``<state>/.elydora/<id>/<script>``."""
    prefix = str(ctx.runtime_root).rstrip("/\\")
    if not path.startswith(prefix):
        return None
    rest = path[len(prefix) :].lstrip("/\\").replace("\\", "/").split("/")  # split at either separator
    if len(rest) != 2 or rest[1] not in scripts:
        return None
    return rest[0], scripts[rest[1]]


def refs_in(handler: Mapping[str, Any], ctx: Context, scripts: Mapping[str, str] = DEFAULT_SCRIPTS) -> Iterator[Ref]:
    """Every (interpreter, agent, role) a handler's command fields could name."""
    for argv in handler_argvs(handler):
        found = split_script(argv[-1], ctx, scripts)
        if found is None:
            continue
        python = argv[0] if len(argv) > 1 else ctx.python
        if len(argv) == 1 or looks_like_python(python):
            yield Ref(found[0], found[1], python)


def supervisor_refs(handler: Mapping[str, Any], ctx: Context) -> Iterator[tuple[Ref, Context]]:
    """``(ref, context to regenerate it in)`` for a handler running a known supervisor: the current
    ``--hook-command`` or one recorded by an earlier install. The same command serves both roles, so each
    match yields a guard and an audit ref; regenerating the handler tells which (or either) it is."""
    commands = dict.fromkeys(c for c in (ctx.hook_command, *ctx.known_hook_commands) if c)
    if ctx.provider is None or not commands:
        return
    for argv in map(list, dict.fromkeys(map(tuple, handler_argvs(handler)))):  # one path parsed two ways: once
        launched = _launcher_agent(argv, ctx) if _launcher_form(ctx) else None
        for command in commands:
            if launched is not None:
                scoped = ctx.with_options(hook_command=command)
                python = argv[0] if len(argv) > 1 else ctx.python
                for role in (GUARD, AUDIT):
                    yield Ref(launched, role, python), scoped
                continue
            words = list(command_words(command))
            agent = _agent_named(argv[len(words) :], ctx.provider) if argv[: len(words)] == words else None
            if agent is not None:
                scoped = ctx.with_options(hook_command=command)
                for role in (GUARD, AUDIT):
                    yield Ref(agent, role, ctx.python), scoped


def runtime_context(ctx: Context) -> Context:
    """``ctx`` without a supervisor: the context in which runtime entries are regenerated."""
    return ctx.with_options(hook_command=None) if ctx.hook_command else ctx


HandlerFactory = Callable[[Ref, Context], dict[str, "Any"]]


def owner(
    handler: Any,
    ctx: Context,
    make: HandlerFactory,
    *,
    timeout_key: str = "timeout",
    recorded: list[Any] | None = None,
    scripts: Mapping[str, str] = DEFAULT_SCRIPTS,
    legacy: Callable[[Mapping[str, Any], Context], Ref | None] | None = None,
) -> Ref | None:
    """The :class:`Ref` of ``handler`` when it is ours, else ``None``."""
    if not isinstance(handler, dict):
        return None
    plain = runtime_context(ctx)
    candidates = [(ref, plain) for ref in refs_in(handler, ctx, scripts)]
    candidates += supervisor_refs(handler, ctx)
    for ref, context in candidates:
        timed = Ref(ref.agent_id, ref.role, ref.python, handler.get(timeout_key))
        if make(timed, context) == handler:
            return timed
        if recorded and handler in recorded:
            return timed
    return legacy(handler, plain) if legacy else None
