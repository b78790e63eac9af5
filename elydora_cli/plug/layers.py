"""A switch read across ordered settings layers: the first (or last) file that sets it explicitly decides.

Several agents merge a setting from system, user, project and folder files (Droid ``hooksDisabled``: the first
explicit value wins; Qwen ``disableAllHooks``, Copilot...: the last one wins). A provider lists its layers in
the agent's order as :class:`Layer` values and asks :func:`first_explicit` or :func:`last_explicit`; a layer that
sets the switch to a value of the wrong type is an error naming the file, never silently skipped.

What ``status`` reports of such a switch is one shape for every agent: :func:`switched_off` for a settings
layer, :class:`EnvSwitch` (an agent module's ``ENV_SWITCHES``) for a variable the agent reads from its
environment; both are findings of severity ``off`` naming the file or variable and the fix.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from elydora_config.errors import MalformedConfigError
from elydora_config.records import record

from .. import managed
from .context import Context
from .contract import Finding
from .documents import Documents
from .schema import BOOL, Check

if TYPE_CHECKING:
    from typing import Any

Key = str | Sequence[str]
"""A top-level key, or a path of keys into nested objects (``("security", "folderTrust", "enabled")``)."""


@record(frozen=True)
class Layer:
    path: Path
    value: Any
    """The file's parsed top-level value; ``None`` when the file is absent."""


@record(frozen=True)
class Setting:
    """Where a switch was set explicitly, and to what."""

    path: Path
    value: Any
    key: str

    def describe(self) -> str:
        return f"{self.key} is {_literal(self.value)} in {self.path}"


def _literal(value: Any) -> str:
    if value is None or isinstance(value, bool):
        return {True: "true", False: "false", None: "null"}[value]
    return value if isinstance(value, str) else repr(value)


def _keys(key: Key) -> tuple[str, ...]:
    return (key,) if isinstance(key, str) else tuple(key)


def lookup(value: Any, key: Key) -> tuple[bool, Any]:
    """``(True, value)`` when ``key`` is present in ``value``, else ``(False, None)``."""
    for part in _keys(key):
        if not isinstance(value, dict) or part not in value:
            return False, None
        value = value[part]
    return True, value


def explicit(layers: Iterable[Layer], key: Key, check: Check = BOOL) -> list[Setting]:
    """Every layer that sets ``key``, in layer order (a value failing ``check`` raises, naming the file)."""
    name = ".".join(_keys(key))
    found = []
    for layer in layers:
        present, value = lookup(layer.value, key)
        if not present:
            continue
        if not check.test(value):
            raise MalformedConfigError(layer.path, f"{name} must be {check.what}")
        found.append(Setting(layer.path, value, name))
    return found


def first_explicit(layers: Iterable[Layer], key: Key, check: Check = BOOL) -> Setting | None:
    settings = explicit(layers, key, check)
    return settings[0] if settings else None


def last_explicit(layers: Iterable[Layer], key: Key, check: Check = BOOL) -> Setting | None:
    settings = explicit(layers, key, check)
    return settings[-1] if settings else None


def layer(docs: Documents, path: Path) -> Layer:
    """The layer at ``path``: a target as it was read (before this operation's edits) or a read-only source.

    A read-only source must be named in ``Sources.depend_formats`` so that it arrives parsed.
    """
    if path in docs.targets:
        return Layer(path, docs.original_value(path))
    source = docs.depends.get(path)
    if isinstance(source, str):
        raise TypeError(f"{path} is a read-only source without a format; name it in Sources.depend_formats")
    return Layer(path, None if source is None else source.value)


def layers(docs: Documents, paths: Iterable[Path]) -> list[Layer]:
    return [layer(docs, path) for path in paths]


def on_macos() -> bool:
    """Whether this is macOS (its own managed paths; tests stand in for it by replacing this function)."""
    return sys.platform == "darwin"


_WINDOWS_FOLDERS = {"ProgramFiles": "C:\\Program Files", "ProgramData": "C:\\ProgramData"}


def system_file(ctx: Context, *, posix: str, macos: str, windows: str) -> Path:
    """A machine-wide file by platform, placed below ``--root``.

    ``windows`` starts with ``%ProgramFiles%`` or ``%ProgramData%`` (the variable's value, else its default).
    """
    if ctx.windows:
        _, variable, rest = windows.split("%", 2)
        folder = ctx.env_value(variable) or _WINDOWS_FOLDERS[variable]
        return ctx.place(folder.rstrip("\\") + rest)
    return ctx.place(macos if on_macos() else posix)


def managed_file(ctx: Context, provider_id: str) -> Path:
    """The agent's managed layer on this platform (``--scope system``), placed below ``--root``."""
    found = managed.layer(provider_id)
    if found.windows is None and ctx.windows:
        raise managed.ScopeError(
            None, f"{provider_id}: --scope system: the agent's managed layer on Windows is not known"
        )
    return system_file(ctx, posix=found.path, macos=found.macos, windows=found.windows or "")


# -- what status reports of a switch ------------------------------------------------------------------------

OFF = "off"
"""The severity of a finding that says the agent runs none of our hooks because of a setting or a variable."""


def switched_off(setting: Setting, agent: str, fix: str) -> Finding:
    """``setting`` switches our hooks off: the finding names the file (its path), the key, its value and ``fix``."""
    return Finding(f"{agent} runs none of our hooks: {setting.key} is {_literal(setting.value)} here; {fix}",
                   setting.path, severity=OFF)


def truthy(value: str) -> bool:
    """The agents' common reading of a flag variable: ``1``, ``true``, ``yes`` or ``on``, any case, trimmed."""
    return value.strip().lower() in ("1", "true", "yes", "on")


def exactly(text: str) -> Callable[[str], bool]:
    """A variable that counts only when it is exactly ``text``."""
    return lambda value: value == text


@record(frozen=True)
class EnvSwitch:
    """An environment variable with which the agent runs none of our hooks (its safe mode, bare mode...)."""

    name: str
    meaning: str
    """What the agent calls the mode the variable turns on (``"safe mode"``)."""
    on: Callable[[str], bool] = truthy
    system: bool = True
    """Whether it also switches off the hooks of a ``--scope system`` install (Claude Code's safe mode keeps
    managed hooks)."""


def env_findings(ctx: Context, switches: Iterable[EnvSwitch], agent: str) -> list[Finding]:
    """The switches set in the environment ``status`` runs in (the one an agent started from this shell gets)."""
    found = []
    for switch in switches:
        value = ctx.env_value(switch.name)
        if value is None or not switch.on(value) or (ctx.system and not switch.system):
            continue
        found.append(Finding(
            f"{agent} runs none of our hooks in {switch.meaning}, which {switch.name}={value!r} in this "
            f"environment turns on: unset {switch.name} before starting {agent}",
            severity=OFF,
        ))
    return found


def same_file(a: Path, b: Path) -> bool:
    """Whether two paths name one file (the agent reads it once, as the layer it reaches first)."""
    return os.path.realpath(a) == os.path.realpath(b)
