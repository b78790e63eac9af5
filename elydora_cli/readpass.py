"""The read-only pass of a command that reads many files (``elydora status``): inside one ``with read_pass():``
block, every directory is opened once (:class:`elydora_config.paths.DirectoryCache`), every file read once and
every value derived from them (:func:`kept_value`) computed once.

The pass is the running command's state, kept here: the reads below use it when a block is open and read
plainly otherwise.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal, TypeVar, overload

from elydora_config.errors import PathLike
from elydora_config.files import PhysicalRead, decode_text
from elydora_config.files import read_physical_stat as _read_physical_stat
from elydora_config.paths import DirectoryCache, target_parts

T = TypeVar("T")


class _Pass:
    __slots__ = ("directories", "values")

    def __init__(self) -> None:
        self.directories = DirectoryCache()
        self.values: dict[object, Any] = {}


_current: _Pass | None = None


class read_pass:  # lower case: used as a function, ``with read_pass():``
    """A read-only pass for the length of the block (a nested block is part of the outer one). Writers never
    run inside one."""

    __slots__ = ("_nested",)

    def __enter__(self) -> None:
        global _current
        self._nested = _current is not None
        if not self._nested:
            _current = _Pass()

    def __exit__(self, *exc: object) -> None:
        global _current
        if self._nested:
            return
        done, _current = _current, None
        if done is not None:
            done.directories.__exit__()


def kept_value(key: object, compute: Callable[[], T]) -> T:
    """Inside a pass: ``compute()`` once per ``key`` for the rest of it; outside of one: every time."""
    if _current is None:
        return compute()
    values = _current.values
    if key not in values:
        values[key] = compute()
    found: T = values[key]
    return found


def read_physical_stat(path: PathLike, *, max_bytes: int, allow_links: bool = False) -> PhysicalRead | None:
    """:func:`elydora_config.files.read_physical_stat`, once per file and limit inside a pass."""
    if _current is None:
        return _read_physical_stat(path, max_bytes=max_bytes, allow_links=allow_links)
    cache = _current.directories
    full = target_parts(path)[2]
    return kept_value(
        ("read", full, allow_links, max_bytes),
        lambda: _read_physical_stat(full, max_bytes=max_bytes, allow_links=allow_links, cache=cache),
    )


@overload
def read_physical(
    path: PathLike, *, max_bytes: int, text: Literal[False] = ..., allow_links: bool = ...
) -> bytes | None: ...
@overload
def read_physical(path: PathLike, *, max_bytes: int, text: Literal[True], allow_links: bool = ...) -> str | None: ...
def read_physical(
    path: PathLike, *, max_bytes: int, text: bool = False, allow_links: bool = False
) -> bytes | str | None:
    """:func:`elydora_config.files.read_physical`, once per file and limit inside a pass."""
    result = read_physical_stat(path, max_bytes=max_bytes, allow_links=allow_links)
    if result is None:
        return None
    return decode_text(result.data, path) if text else result.data
