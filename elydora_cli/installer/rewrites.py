"""A file changing while an install or uninstall reads it: the operation is run again, a bounded number of times.

An agent may rewrite its own file in place (truncate, then write) just when we read it, and we read an empty
or torn document; another run of ours may replace a file we only read (Kiro CLI's and Kiro IDE's hook files,
each read by the other) before our commit. Nothing was written then, so the operation starts over from its
reads after a short pause, at most :data:`ATTEMPTS` times; a file still changing after that is reported as a
concurrent change (exit 3), never as a malformed file. A file we were about to write that someone else changed
after our read is reported at once (the commit's own check): their edit is theirs to finish.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

from elydora_config.errors import ConcurrentModificationError, MalformedConfigError

from ..plug.contract import Format
from ..plug.documents import parse

if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

    from elydora_config import Transaction

T = TypeVar("T")
ATTEMPTS = 5
PAUSE = 0.05
"""Seconds before the first retry, doubled before each next one (about 1.5 s in all before giving up)."""


class Rewritten(Exception):
    """A file was read while it changed; the operation may simply run again."""

    def __init__(self, error: ConcurrentModificationError) -> None:
        super().__init__(error.message)
        self.error = error


def retried(run: Callable[[], T]) -> T:
    """``run()``, again after a pause each time it raises :class:`Rewritten`; then the last change, reported."""
    last: ConcurrentModificationError | None = None
    for attempt in range(ATTEMPTS):
        if attempt:
            time.sleep(PAUSE * 2 ** (attempt - 1))
        try:
            return run()
        except Rewritten as exc:
            last = exc.error
    assert last is not None
    raise ConcurrentModificationError(
        last.path,
        f"kept changing while it was read ({ATTEMPTS} attempts): another program is rewriting it; nothing was "
        "written, run the command again once it is done",
    )


def read_through(tx: Transaction, read: Callable[[], T]) -> T:
    """``read()``, the reading half of an operation: a file that changed between two reads of it is a rewrite."""
    try:
        return read()
    except ConcurrentModificationError as exc:
        tx.discard()
        raise Rewritten(exc) from None


def parsed(tx: Transaction | None, path: Path, max_bytes: int, text: str, fmt: Format) -> Any:
    """The document of ``text``, just read from ``path``; when it does not parse inside a transaction, the file
    is read again after a pause: one that changed meanwhile was being rewritten (:class:`Rewritten`), one that
    did not is malformed indeed."""
    try:
        return parse(text, fmt, path)
    except MalformedConfigError:
        if tx is None:
            raise
        time.sleep(PAUSE)
        try:
            tx.read(path, max_bytes=max_bytes)
        except ConcurrentModificationError as exc:
            raise Rewritten(exc) from None
        raise


def committed(tx: Transaction, commit: Callable[[], T]) -> T:
    """``commit()``; a concurrent change of a file the transaction only read is a rewrite (nothing was written:
    the commit verifies every snapshot before its first write, and rolls back what it applied otherwise)."""
    staged = set(tx.staged_paths)
    try:
        return commit()
    except ConcurrentModificationError as exc:
        if exc.path is None or exc.path in staged:
            raise
        raise Rewritten(exc) from None
