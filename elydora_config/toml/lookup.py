"""A TOML document's data read by path: the one rule of the editor (:class:`.document.TomlDocument`) and of the
read-only document (:mod:`~elydora_config.toml.readonly`), in a module that loads neither of them.

Paths are tuples of keys (``str``) and array indexes (``int``, negative counts from the end).
"""

from __future__ import annotations

from elydora_config.readonlydoc import copy_data
from elydora_config.typecheck import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from .values import Key, Path

MISSING: Any = object()
"""The default of :func:`get` that means "none": a missing path raises."""


class MissingPathError(KeyError, IndexError):
    """A path names nothing: caught by ``except KeyError`` and by ``except IndexError`` alike."""


def resolve(data: Any, path: Sequence[Key]) -> tuple[Path, int]:
    """Normalise ``path`` (negative indexes) in ``data`` and count how many of its steps exist.

    A step of the wrong kind (an index into a table, a key into an array, anything under a
    scalar) raises :class:`MissingPathError`: nothing can be there.
    """
    if isinstance(path, str | bytes):
        raise TypeError("a path is a sequence of keys and indexes, not a string")
    steps = tuple(path)
    node: Any = data
    norm: list[Key] = []
    for position, step in enumerate(steps):
        if type(node) is dict:
            if not isinstance(step, str):
                raise MissingPathError(steps[: position + 1])
            if step not in node:
                return (*norm, *steps[position:]), position
            node = node[step]
        elif type(node) is list:
            if isinstance(step, bool) or not isinstance(step, int):
                raise MissingPathError(steps[: position + 1])
            if step < 0:
                step += len(node)
            if not 0 <= step < len(node):
                return (*norm, step, *steps[position + 1 :]), position
            node = node[step]
        else:
            raise MissingPathError(steps[: position + 1])  # nothing lies under a scalar
        norm.append(step)
    return tuple(norm), len(norm)


def missing(norm: Path, found: int) -> MissingPathError:
    """The error for ``norm``, of which the first ``found`` steps exist: it names the path to the first
    missing step."""
    return MissingPathError(norm[: found + 1])


def lookup(data: Any, norm: Path) -> Any:
    """The value at the normalised, existing path ``norm`` (``data``'s own, not a copy)."""
    node = data
    for key in norm:
        node = node[key]
    return node


def get(data: Any, path: Sequence[Key], default: Any = MISSING) -> Any:
    """The value at ``path`` (a copy); ``default`` when absent, else :class:`MissingPathError`."""
    try:
        norm, found = resolve(data, path)
        if found < len(norm):
            raise missing(norm, found)
    except MissingPathError:
        if default is MISSING:
            raise
        return default
    return copy_data(lookup(data, norm))


def has(data: Any, path: Sequence[Key]) -> bool:
    """Whether ``path`` names an existing value."""
    try:
        norm, found = resolve(data, path)
    except MissingPathError:
        return False
    return found == len(norm)
