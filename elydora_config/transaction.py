"""``Transaction``: read many files, stage changes, commit them all-or-nothing.

::

    with Transaction(state_dir) as tx:
        data = tx.read(settings, max_bytes=2 << 20)      # snapshot taken
        tx.depend(policy_file)                           # read-only precondition
        tx.write(settings, new_bytes)                    # staged, nothing on disk yet
        tx.remove(old_script)
    # clean exit: commit (see _commit.py); exception: nothing was written
    tx.txid                                              # the committed transaction's id (None: no change)

A dry run stages the same changes, prints :meth:`Transaction.diff` and calls :meth:`Transaction.discard`.

``follow_symlinks=True`` resolves every path (and the state directory) to the real file its links lead to
(``stow``, ``chezmoi``, home-manager, a symlinked ``/home``): that file is read, snapshotted, rewritten with
its own mode and owner, and the link stays a link. Without it a link anywhere in a path is refused.
``allow_links=True`` is the older, weaker opt-in: paths may go through linked directories but a linked
file itself would be replaced by a regular file.

Every file that is read, depended on or written is snapshotted; the commit re-verifies all of them under the
state lock and each target again right before its rename, so a concurrent writer is detected, never
overwritten.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Callable, Iterable
from types import TracebackType

from . import _platform
from ._commit import Change, Plan, commit
from ._ownership import check_writable
from .errors import ConcurrentModificationError, ConfigError, PathLike, UnsafePathError
from .files import decode_text, read_physical, require_bytes
from .snapshot import DEFAULT_MAX_BYTES, Snapshot, take


class Transaction:
    """Stage file changes and commit them atomically; see the module docstring."""

    def __init__(
        self,
        state_dir: PathLike,
        *,
        lock_timeout: float = 10.0,
        allow_links: bool = False,
        retention: int = 10,
        allow_read_only: bool = False,
        follow_symlinks: bool = False,
    ) -> None:
        self.follow_symlinks = follow_symlinks
        self._spellings: dict[str, str] = {}
        self.state_dir = self._key(state_dir)
        self.lock_timeout = lock_timeout
        self.allow_links = allow_links
        self.retention = retention
        self.allow_read_only = allow_read_only
        self._txid: str | None = None
        self._snapshots: dict[str, Snapshot] = {}
        self._changes: dict[str, Change] = {}
        self._dirs: dict[str, int] = {}
        self._closed = False

    # -- reading -----------------------------------------------------------------------------------------
    def read(self, path: PathLike, *, max_bytes: int = DEFAULT_MAX_BYTES) -> bytes | None:
        """The bytes of ``path`` (``None`` when absent); its snapshot becomes a commit precondition."""
        return self._read(self._key(path), max_bytes, staging=False)

    def _read(self, key: str, max_bytes: int, *, staging: bool) -> bytes | None:
        """``staging``: a write or removal follows, so the directory may be opened the writers' way."""
        if key in self._changes:
            change = self._changes[key]
            return change.data if change.kind == "write" else None
        snap, data = take(key, max_bytes=max_bytes, allow_links=self.allow_links, one_call=staging)
        previous = self._snapshots.get(key)
        if previous is not None and previous.differences(snap):
            raise ConcurrentModificationError(key, "changed between two reads in the same transaction")
        self._snapshots[key] = snap
        return data

    def read_text(self, path: PathLike, *, max_bytes: int = DEFAULT_MAX_BYTES) -> str | None:
        """Like :meth:`read`, strictly decoded as UTF-8."""
        data = self.read(path, max_bytes=max_bytes)
        return None if data is None else decode_text(data, self._key(path))

    def depend(self, path: PathLike, *, max_bytes: int = DEFAULT_MAX_BYTES) -> bytes | None:
        """Snapshot a read-only source that must not change before the commit; returns its bytes."""
        return self.read(path, max_bytes=max_bytes)

    def snapshot(self, path: PathLike) -> Snapshot | None:
        """The snapshot taken when ``path`` was first read or staged (``None``: never touched)."""
        return self._snapshots.get(self._key(path))

    # -- staging -----------------------------------------------------------------------------------------
    def write(self, path: PathLike, data: bytes, *, mode: int | None = None) -> None:
        """Stage new content; ``mode=None`` keeps the existing mode (new files: 0600), the owner and group are
        kept. A file the caller may not write (e.g. 0444) is refused unless ``allow_read_only`` was given."""
        require_bytes(data, "Transaction.write")
        key = self._snapshot_before_staging(path)
        if not self.allow_read_only:
            check_writable(self._snapshots[key])
        self._changes[key] = Change(key, "write", data, mode)

    def remove(self, path: PathLike) -> None:
        """Stage the removal of ``path`` (nothing happens when it does not exist at commit time)."""
        key = self._snapshot_before_staging(path)
        self._changes[key] = Change(key, "remove")

    def mkdir(self, path: PathLike, mode: int = 0o700) -> None:
        """Create the directory (and missing parents, no links) at commit time."""
        self._check_open()
        key = self._key(path)
        if os.path.lexists(key) and not os.path.isdir(key):
            raise UnsafePathError(key, "exists and is not a directory; cannot create a directory there")
        self._dirs[key] = mode

    @property
    def txid(self) -> str | None:
        """The id of the committed transaction, ``None`` before :meth:`commit` (or after :meth:`discard`, or when
        the commit had nothing to change). The same id names the transaction's journal and artifacts under
        ``<state>/transactions/``, :attr:`~elydora_config.recovery.PendingTransaction.txid` if a crash
        interrupts it, and its recovery folder. After ``with Transaction(...) as tx:`` (which commits on a clean
        exit) it is ``tx.txid``."""
        return self._txid

    @property
    def staged_paths(self) -> list[str]:
        """The absolute paths with a staged write or removal, in staging order."""
        return list(self._changes)

    def diff(
        self,
        paths: Iterable[PathLike] | None = None,
        *,
        hidden: Callable[[str], bool] | None = None,
        max_bytes: int = DEFAULT_MAX_BYTES,
    ) -> str:
        """A unified diff (``diff -u``) of every staged change against the file on disk now: what :meth:`commit`
        would write, for a dry run. Call it before :meth:`commit` or :meth:`discard` (both drop the staged
        changes). ``paths``, if given, limits it to those staged paths (in staging order; a path with nothing
        staged adds nothing). A created file is diffed against ``/dev/null``, a removed one to it; bytes that
        are not UTF-8 show as U+FFFD. A path for which ``hidden(path)`` is true (a key, a token) is named with
        one line, ``(created; content not shown)`` or ``(changed; content not shown)``, never its bytes.
        ``max_bytes`` bounds each file read from disk (:class:`~elydora_config.errors.FileTooLargeError` beyond
        it)."""
        chosen = None if paths is None else {self._key(p) for p in paths}
        parts = []
        for path, change in self._changes.items():
            if chosen is not None and path not in chosen:
                continue
            old = read_physical(path, max_bytes=max_bytes, allow_links=self.allow_links)
            new = change.data if change.kind == "write" else None
            if old == new:
                continue
            if hidden is not None and hidden(path):
                what = "created" if old is None else "removed" if new is None else "changed"
                parts.append(f"--- {path}\n+++ {path}\n({what}; content not shown)\n")
                continue
            old_lines = (old or b"").decode("utf-8", "replace").splitlines(keepends=True)
            new_lines = (new or b"").decode("utf-8", "replace").splitlines(keepends=True)
            before, after = path if old is not None else "/dev/null", path if new is not None else "/dev/null"
            parts.append("".join(difflib.unified_diff(old_lines, new_lines, before, after)))
        return "".join(parts)

    # -- outcome -----------------------------------------------------------------------------------------
    def commit(self) -> str | None:
        """Commit every staged change all-or-nothing; returns the transaction id (``None``: nothing to do)."""
        self._check_open()
        self._closed = True
        dirs = sorted(self._dirs.items(), key=lambda item: item[0].count(os.sep))
        plan = Plan(
            self.state_dir,
            dict(self._snapshots),
            list(self._changes.values()),
            dirs,
            allow_links=self.allow_links,
            lock_timeout=self.lock_timeout,
            retention=self.retention,
        )
        self._txid = commit(plan)
        return self._txid

    def discard(self) -> None:
        """Drop every staged change (nothing was written before commit)."""
        self._closed = True
        self._changes.clear()

    def __enter__(self) -> Transaction:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if exc_type is not None:
            self.discard()
        elif not self._closed:
            self.commit()

    # -- helpers -----------------------------------------------------------------------------------------
    def _key(self, path: PathLike) -> str:
        """The absolute path; with ``follow_symlinks`` the real file every link in it leads to. Where names are
        case-insensitive (Windows) two spellings of one file are one key: the first one met."""
        key = os.path.realpath(os.fspath(path)) if self.follow_symlinks else os.path.abspath(os.fspath(path))
        return self._spellings.setdefault(_platform.name_key(key), key)

    def _check_open(self) -> None:
        if self._closed:
            raise ConfigError(self.state_dir, "transaction is already committed or discarded")

    def _snapshot_before_staging(self, path: PathLike) -> str:
        self._check_open()
        key = self._key(path)
        if key not in self._snapshots:
            self._read(key, DEFAULT_MAX_BYTES, staging=True)
        return key

    def __repr__(self) -> str:
        return f"Transaction({self.state_dir!r}, staged={len(self._changes)})"
