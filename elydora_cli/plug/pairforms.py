"""Entries older Elydora installers wrote: ``<python> <script>`` (no interpreter flags) in their quotings.

An agent describes each old entry shape as an :class:`OldShape` (exact key set, the key holding the command,
the quotings that key may use, exact values of the other keys); :func:`recogniser` turns the shapes into an
ownership recogniser (``HookMap.legacy``). The command is parsed only to learn which interpreter and script it
names; the entry is ours when rendering that pair in one of the allowed quotings gives back exactly the same
string, so a look-alike (an extra argument, other quoting, another directory) stays the user's.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING

from elydora_config.records import field, record

from .cmdforms import (
    encoded_powershell,
    looks_like_python,
    parse_encoded_powershell,
    parse_msvc,
    parse_posix,
    parse_powershell_call,
    posix_command,
    powershell_call,
)
from .context import Context
from .ownership import Ref, script_path, split_script
from .schema import Check

if TYPE_CHECKING:
    from typing import Any


def _joined(pair: list[str]) -> str:
    """The words quoted only where a shell needs it."""
    return shlex.join(pair)


def _msvc(pair: list[str]) -> str:
    import subprocess  # only for this form: status and hooks never load it otherwise

    return subprocess.list2cmdline(pair)


Render = Callable[[list[str], Mapping[str, str]], str]
FORMS: Mapping[str, Render] = {
    "posix": lambda pair, env: posix_command(pair),  # '<python>' '<script>'
    "joined": lambda pair, env: _joined(pair),  # quotes only where a shell needs them
    "msvc": lambda pair, env: _msvc(pair),  # Microsoft C runtime quoting
    "call": lambda pair, env: powershell_call(pair),  # & '<python>' '<script>'; exit $LASTEXITCODE
    "encoded": lambda pair, env: encoded_powershell(pair, env),  # "<powershell.exe>" ... -EncodedCommand
    "quoted": lambda pair, env: f'"{pair[0]}" {pair[1]}',  # "<python>" <script>
    "dquoted": lambda pair, env: " ".join(f'"{a}"' for a in pair),  # "<python>" "<script>"
    "bare": lambda pair, env: pair[-1],  # the script path alone (the agent runs it directly)
}
SAME = "same"
"""In :attr:`OldShape.also`: the key holds exactly the command itself."""


def exactly(value: Any) -> Check:
    """Equal to ``value`` and of its type (``1``, ``1.0`` and ``True`` differ)."""
    return Check(lambda v: type(v) is type(value) and v == value, f"exactly {value!r}")


@record(frozen=True)
class Pair:
    ref: Ref
    argv: list[str]
    """``[python, script]`` (or ``[script]`` for the bare form)."""


@record(frozen=True)
class OldShape:
    keys: frozenset[str]
    command: str
    """The key whose string names the interpreter and the script."""
    forms: tuple[str, ...]
    """Names in :data:`FORMS` the command may be rendered in."""
    checks: Mapping[str, Check] = field(default_factory=dict)
    """Tests of other keys' values (``{"timeoutSec": exactly(5)}``)."""
    also: Mapping[str, str] = field(default_factory=dict)
    """Other keys rendering the same pair: key -> form name, or :data:`SAME`."""
    any_interpreter: bool = False
    """Accept any quoted interpreter (else: an absolute ``python``/``pypy`` path)."""


def _parses(command: str) -> Iterator[list[str]]:
    for parse in (parse_encoded_powershell, parse_powershell_call, parse_posix, parse_msvc):
        argv = parse(command)
        if argv and len(argv) <= 2:
            yield argv


def pair_in(command: Any, ctx: Context, forms: tuple[str, ...], *, any_interpreter: bool = False) -> Pair | None:
    """The pair ``command`` renders in one of ``forms``, else ``None``."""
    if not isinstance(command, str):
        return None
    for argv in _parses(command):
        found = split_script(argv[-1], ctx)
        if found is None or (len(argv) == 2 and not any_interpreter and not looks_like_python(argv[0])):
            continue
        python = argv[0] if len(argv) == 2 else ctx.python
        pair = [python, str(script_path(ctx, found[0], found[1]))] if len(argv) == 2 else [argv[-1]]
        usable = [f for f in forms if (f == "bare") == (len(pair) == 1)]
        if any(FORMS[f](pair, ctx.env) == command for f in usable):
            return Pair(Ref(found[0], found[1], python), pair)
    return None


def _matches(shape: OldShape, handler: Mapping[str, Any], ctx: Context) -> Ref | None:
    if set(handler) != shape.keys or not all(check.test(handler[k]) for k, check in shape.checks.items()):
        return None
    command = handler[shape.command]
    pair = pair_in(command, ctx, shape.forms, any_interpreter=shape.any_interpreter)
    if pair is None:
        return None
    for key, form in shape.also.items():
        if handler[key] != (command if form == SAME else FORMS[form](pair.argv, ctx.env)):
            return None
    return pair.ref


def recogniser(*shapes: OldShape) -> Callable[[Mapping[str, Any], Context], Ref | None]:
    """A ``HookMap.legacy`` recogniser: the first shape that matches a handler names its owner."""

    def recognise(handler: Mapping[str, Any], ctx: Context) -> Ref | None:
        return next((ref for shape in shapes if (ref := _matches(shape, handler, ctx)) is not None), None)

    return recognise
