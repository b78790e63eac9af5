"""Crash recovery: finish or undo every journal a dead process left behind.

A journal that is torn never reached its fsync, so no temp file was created for it: its artifacts are removed.
A complete journal is resolved by content: when every target already holds its new bytes, the transaction is
complete (its directories are fsynced and the journal retired); otherwise every target that holds our new
bytes gets its original back, so the result is all-old. A target that holds bytes neither old nor ours was
written by somebody else after the crash: its bytes stay in place, and the original and our version are saved
in a recovery folder (see :mod:`._salvage`) that the report names, so recovery always finishes.

Either way the journalled temp names (staged copies, originals swapped out or moved aside) and stale temp
files of dead processes in the targets' directories (an interrupted earlier recovery) are removed before the
journal goes; the journal is removed last. Artifacts without a journal or ``.done`` record (power lost
before the journal became durable) and artifacts of retired transactions are removed, and so are the temp
files single-target commits (no journal, see ``_single``) left in the directories ``_tempdirs`` lists. A
journal records whether its paths may go through links.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable

from . import _platform, _sysio
from ._apply import DirCache
from ._commit import _remove_transaction_files, prune
from ._salvage import Conflict, save_conflicts
from ._tempdirs import TEMP_DIRS, listed, state_tag
from ._tempdirs import remove_stale_temps as _remove_stale_temps
from ._undo import FOREIGN, NEW, OLD, entry_state, restore
from .errors import PathLike
from .files import remove_quietly
from .journal import DONE_SUFFIX, JOURNAL_SUFFIX, TRANSACTIONS_DIR, Entry, Journal, read_journal
from .lock import StateLock
from .paths import opened_directory, pending_journals
from .records import field, record


@record
class PendingTransaction:
    """A transaction a crash left unfinished: its id, its journal, the files it touches, and whether the
    journal itself was torn (written only in part)."""

    txid: str
    journal_path: str
    paths: list[str] = field(default_factory=list)
    torn: bool = False


@record
class RecoveryReport:
    """``conflicts``: targets another program changed after the crash, left in place; ``saved_in``: the folder
    holding their originals and our versions (``None`` when there were none)."""

    txid: str
    outcome: str  # "completed" | "rolled back" | "discarded"
    paths: list[str] = field(default_factory=list)
    conflicts: list[Conflict] = field(default_factory=list)
    saved_in: str | None = None


def pending(state_dir: PathLike) -> list[PendingTransaction]:
    """The interrupted transactions :func:`recover` would resolve (read-only, no lock taken)."""
    txdir = os.path.join(os.fspath(state_dir), TRANSACTIONS_DIR)
    found = []
    for name in pending_journals(txdir):
        journal = read_journal(txdir, name)
        txid = name[: -len(JOURNAL_SUFFIX)]
        paths = [e.path for e in journal.entries] if journal else []
        found.append(PendingTransaction(txid, os.path.join(txdir, name), paths, journal is None))
    return found


def recover(
    state_dir: PathLike,
    *,
    scan_dirs: Iterable[PathLike] = (),
    lock_timeout: float = 10.0,
    retention: int = 10,
    allow_links: bool = False,
) -> list[RecoveryReport]:
    """Resolve every interrupted transaction of ``state_dir``; remove stale temp files in ``scan_dirs``.

    ``allow_links`` lets the path of ``state_dir`` go through symbolic links (as a ``Transaction`` created
    with ``allow_links=True`` may); the target paths of each journal are followed as that journal records.
    """
    state = os.fspath(state_dir)
    txdir = os.path.join(state, TRANSACTIONS_DIR)
    reports: list[RecoveryReport] = []
    if not os.path.isdir(txdir):
        _remove_stale_temps(scan_dirs)
        return reports
    with StateLock(state, timeout=lock_timeout), opened_directory(txdir, allow_links=allow_links) as txfd:
        for name in pending_journals(txdir):
            reports.append(_recover_one(state, txfd, name, retention, allow_links))
        _remove_stale_temps(listed(txfd), state_tag(state))  # what killed single-target commits left
        _remove_orphans(txfd)
        prune(txfd, retention)
        _remove_stale_temps(scan_dirs)
    return reports


def _recover_one(state: str, txfd: int, name: str, retention: int, allow_links: bool) -> RecoveryReport:
    txdir = os.path.join(state, TRANSACTIONS_DIR)
    txid = name[: -len(JOURNAL_SUFFIX)]
    journal = read_journal(txdir, name)
    if journal is None:
        _remove_all(txfd, txid)
        return RecoveryReport(txid, "discarded")
    dirs = DirCache(allow_links=journal.allow_links)
    try:
        states = [_state(dirs, e) for e in journal.entries]
        paths = [e.path for e in journal.entries]
        if all(s == NEW for s in states):
            _remove_temps(dirs, journal.entries)  # originals swapped or moved aside, not yet unlinked
            _remove_stale_temps({os.path.dirname(p) for p in paths})
            _fsync_existing_dirs(dirs, paths)
            _sysio.rename(name, txid + DONE_SUFFIX, src_dir_fd=txfd, dst_dir_fd=txfd)
            prune(txfd, retention)
            return RecoveryReport(txid, "completed", paths)
        report = RecoveryReport(txid, "rolled back", paths)
        foreign = [
            (i, e, _dir_fd(dirs, e))
            for i, (e, s) in enumerate(zip(journal.entries, states, strict=False))
            if s == FOREIGN
        ]
        if foreign:
            report.saved_in, report.conflicts = save_conflicts(state, txfd, journal, foreign, allow_links=allow_links)
            _remove_stale_temps([report.saved_in])
        _undo(journal, dirs, txfd, states)
        _remove_temps(dirs, journal.entries)
        _remove_stale_temps({os.path.dirname(p) for p in paths})
        for directory in reversed(journal.created_dirs):
            with contextlib.suppress(OSError):
                _sysio.rmdir(directory)
        _fsync_existing_dirs(dirs, paths)
        _remove_all(txfd, txid)
        return report
    finally:
        dirs.close()


def _dir_fd(dirs: DirCache, entry: Entry) -> int | None:
    try:
        return dirs.of(entry.path)[0]
    except FileNotFoundError:
        return None


def _state(dirs: DirCache, entry: Entry) -> str:
    try:
        dfd, _ = dirs.of(entry.path)
    except FileNotFoundError:  # the directory is gone (or was never created): the target is absent
        if entry.kind == "remove":
            return NEW
        return FOREIGN if entry.old.exists else OLD
    return entry_state(dfd, entry, allow_links=dirs.allow_links)


def _undo(journal: Journal, dirs: DirCache, txfd: int, states: list[str]) -> None:
    """Put the original back wherever our new version is in place (foreign targets are left alone)."""
    for entry, state in reversed(list(zip(journal.entries, states, strict=False))):
        if state == NEW:
            dfd, _ = dirs.of(entry.path)
            restore(dfd, txfd, entry)


def _remove_temps(dirs: DirCache, entries: list[Entry]) -> None:
    for entry in entries:
        if entry.temp is None:
            continue
        try:
            dfd, _ = dirs.of(entry.path)
        except FileNotFoundError:
            continue
        remove_quietly(dfd, entry.temp)


def _fsync_existing_dirs(dirs: DirCache, paths: list[str]) -> None:
    for directory in sorted({os.path.dirname(p) for p in paths}):
        if os.path.isdir(directory):
            _sysio.fsync_dir(dirs.fd(directory))


def _remove_all(txfd: int, txid: str) -> None:
    _remove_transaction_files(txfd, txid)


def _remove_orphans(txfd: int) -> None:
    """Remove artifacts whose journal never became durable (power lost before the journal's fsync)."""
    names = _platform.listdir(txfd)
    known = {n.rsplit(".", 1)[0] for n in names if n.endswith((JOURNAL_SUFFIX, DONE_SUFFIX))}
    for name in names:
        if name.split(".", 1)[0] not in known and name != TEMP_DIRS:
            remove_quietly(txfd, name)
