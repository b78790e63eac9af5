"""Recognising the hook entries Elydora wrote: by the install manifest and by exact shape.

A handler is ours when it is exactly a value some install recorded in a manifest, or when regenerating the
handler from what its command names (interpreter, agent id, role, timeout) gives back exactly the same
object. Comments are never used (agents strip them), and the interpreter is read from the entry, not
assumed, so a reinstall from another Python still finds the old entries.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .cmdforms import looks_like_python, parse_encoded_powershell, parse_posix, parse_powershell_call
from .context import RUNTIME_FLAGS, Context

GUARD, AUDIT = "guard", "audit"
DEFAULT_SCRIPTS: Mapping[str, str] = {"guard.py": GUARD, "hook.py": AUDIT}


@dataclass(frozen=True)
class Ref:
    """What one of our handlers points at."""

    agent_id: str
    role: str
    python: str
    timeout: Any = None


def script_path(ctx: Context, agent_id: str, role: str, scripts: Mapping[str, str] = DEFAULT_SCRIPTS) -> Path:
    name = next(n for n, r in scripts.items() if r == role)
    return ctx.agent_dir(agent_id) / name


def runtime_argv(ref: Ref, ctx: Context) -> list[str]:
    """How an agent runs our runtime script for ``ref``."""
    return [ref.python, *RUNTIME_FLAGS, str(script_path(ctx, ref.agent_id, ref.role))]


def _argv_candidates(value: Any) -> Iterator[list[str]]:
    if isinstance(value, str):
        for parse in (parse_encoded_powershell, parse_powershell_call, parse_posix):
            argv = parse(value)
            if argv:
                yield argv


def split_script(path: str, ctx: Context, scripts: Mapping[str, str] = DEFAULT_SCRIPTS) -> tuple[str, str] | None:
    """(agent id, role) when ``path`` is ``<state>/.elydora/<id>/<script>``."""
    prefix = str(ctx.elydora_dir).rstrip("/\\")
    if not path.startswith(prefix):
        return None
    rest = re.split(r"[\\/]", path[len(prefix) :].lstrip("/\\"))
    if len(rest) != 2 or rest[1] not in scripts:
        return None
    return rest[0], scripts[rest[1]]


def refs_in(handler: Mapping[str, Any], ctx: Context, scripts: Mapping[str, str] = DEFAULT_SCRIPTS) -> Iterator[Ref]:
    """Every (interpreter, agent, role) a handler's command fields could name."""
    argvs = [argv for value in handler.values() for argv in _argv_candidates(value)]
    command, args = handler.get("command"), handler.get("args")
    if isinstance(command, str) and isinstance(args, list) and all(isinstance(a, str) for a in args):
        argvs.append([command, *args])
    for argv in argvs:
        found = split_script(argv[-1], ctx, scripts)
        if found is None:
            continue
        python = argv[0] if len(argv) > 1 else ctx.python
        if len(argv) == 1 or looks_like_python(python):
            yield Ref(found[0], found[1], python)


HandlerFactory = Callable[[Ref, Context], dict[str, Any]]


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
    for ref in refs_in(handler, ctx, scripts):
        timed = Ref(ref.agent_id, ref.role, ref.python, handler.get(timeout_key))
        if make(timed, ctx) == handler:
            return timed
        if recorded and handler in recorded:
            return timed
    return legacy(handler, ctx) if legacy else None
