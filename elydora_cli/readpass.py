"""How the CLI reads its files: plainly (:data:`DIRECT`, every read goes to the disk), or as one read-only pass
(:class:`ReadPass`) that a command reading many files (``elydora status``) creates and passes down.

Inside a pass every directory is opened once (:class:`elydora_config.paths.DirectoryCache`), every file read
once (a read under another size limit gets the first read's result when the file fits that limit too) and every
value derived from them (:meth:`Reads.kept`) computed once. The status command holds the pass for its run
(``with ReadPass() as reads:``) and hands it down in the context (``ctx.reads``) and as the ``reads`` argument of
the readers below it; what it kept ends with the block. Writers never use one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal, TypeVar, overload

from elydora_config.errors import PathLike
from elydora_config.files import PhysicalRead, decode_text, read_physical_stat, read_split
from elydora_config.paths import DirectoryCache, target_parts

T = TypeVar("T")


class Reads:
    """Plain reads: every file is read again, every value computed again (what any writing command needs)."""

    __slots__ = ()

    def kept(self, key: object, compute: Callable[[], T]) -> T:
        """``compute()`` (a pass computes it once per ``key``)."""
        return compute()

    def read_physical_stat(self, path: PathLike, *, max_bytes: int, allow_links: bool = False) -> PhysicalRead | None:
        """:func:`elydora_config.files.read_physical_stat` (a pass reads each file once)."""
        return read_physical_stat(path, max_bytes=max_bytes, allow_links=allow_links)

    @overload
    def read_physical(
        self, path: PathLike, *, max_bytes: int, text: Literal[False] = ..., allow_links: bool = ...
    ) -> bytes | None: ...
    @overload
    def read_physical(
        self, path: PathLike, *, max_bytes: int, text: Literal[True], allow_links: bool = ...
    ) -> str | None: ...
    def read_physical(
        self, path: PathLike, *, max_bytes: int, text: bool = False, allow_links: bool = False
    ) -> bytes | str | None:
        """:func:`elydora_config.files.read_physical` (a pass reads each file once)."""
        result = self.read_physical_stat(path, max_bytes=max_bytes, allow_links=allow_links)
        if result is None:
            return None
        return decode_text(result.data, path) if text else result.data


DIRECT = Reads()
"""Plain reads: the default of every reader that takes ``reads``."""


class ReadPass(Reads):
    """One read-only pass (``with ReadPass() as reads:``): what a status run shares across agents."""

    __slots__ = ("directories", "files", "values")

    def __init__(self) -> None:
        self.directories = DirectoryCache()
        self.files: dict[tuple[str, bool], PhysicalRead | None] = {}  # (path, allow_links) -> what a read gave
        self.values: dict[object, Any] = {}

    def __enter__(self) -> ReadPass:
        return self

    def __exit__(self, *exc: object) -> None:
        self.files.clear()
        self.values.clear()
        self.directories.__exit__()

    def kept(self, key: object, compute: Callable[[], T]) -> T:
        """``compute()`` once per ``key`` for the rest of the pass."""
        if key not in self.values:
            self.values[key] = compute()
        found: T = self.values[key]
        return found

    def read_physical_stat(self, path: PathLike, *, max_bytes: int, allow_links: bool = False) -> PhysicalRead | None:
        """The file as the pass first read it when that read fits ``max_bytes`` (a read under another limit gives
        the same bytes, or a missing file, whenever the file fits both), else a read under this limit."""
        parent, name, full = target_parts(path)
        key = (full, allow_links)
        if key in self.files:
            known = self.files[key]
            if known is None or len(known.data) <= max_bytes:
                return known
        result = read_split(parent, name, full, max_bytes=max_bytes, allow_links=allow_links, cache=self.directories)
        self.files.setdefault(key, result)
        return result
