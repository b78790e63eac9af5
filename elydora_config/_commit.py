"""The commit protocol (see docs/transactions.md for the crash analysis).

1. Under the state lock, re-verify every snapshot.
2. Prepare: write the journal (every target, its old snapshot, new hash, temp and artifact names), hard-link
   (or copy) each original into ``transactions/`` as its rollback artifact, fsync the journal and that
   directory. From here on recovery knows everything; no temp file exists yet.
3. Stage: create missing directories, write every temp file, then fsync them all.
4. Apply: re-verify each target immediately before its ``rename`` (or ``unlink``), then fsync every touched
   directory once. When that returns, the transaction is durable.
5. Retire: rename the journal to ``.done`` and prune old transactions beyond the retention bound.

A failure in 2 or 3 removes what was created; a failure in 4 restores the applied entries from their
artifacts, refusing (``RollbackIncompleteError``) to overwrite anything another program wrote meanwhile.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from collections.abc import Iterable
from dataclasses import dataclass, field

from . import _sysio
from ._undo import NEW, OLD, entry_state, preserve, restore
from .errors import ConcurrentModificationError, RecoveryNeededError, RollbackIncompleteError
from .files import remove_quietly, temp_name
from .journal import (
    DONE_SUFFIX,
    JOURNAL_SUFFIX,
    TRANSACTIONS_DIR,
    Entry,
    Journal,
    artifact_name,
    belongs_to,
    new_txid,
    write_new,
)
from .lock import StateLock
from .paths import ensure_directory, open_directory
from .snapshot import Snapshot, take_at, verify_at


@dataclass
class Change:
    path: str
    kind: str  # "write" | "remove"
    data: bytes | None = None
    mode: int | None = None


@dataclass
class Plan:
    state_dir: str
    snapshots: dict[str, Snapshot]
    changes: list[Change]
    dirs: list[tuple[str, int]]
    allow_links: bool = False
    lock_timeout: float = 10.0
    retention: int = 10
    expected: dict[str, Snapshot] = field(default_factory=dict)


class DirCache:
    """Open directory descriptors, one per directory, closed together."""

    def __init__(self, allow_links: bool) -> None:
        self.allow_links = allow_links
        self.fds: dict[str, int] = {}

    def fd(self, directory: str) -> int:
        if directory not in self.fds:
            self.fds[directory] = open_directory(directory, allow_links=self.allow_links)
        return self.fds[directory]

    def of(self, path: str) -> tuple[int, str]:
        return self.fd(os.path.dirname(path)), os.path.basename(path)

    def close(self) -> None:
        for fd in self.fds.values():
            _sysio.close(fd)
        self.fds.clear()


def pending_journals(txdir: str) -> list[str]:
    try:
        names = os.listdir(txdir)
    except FileNotFoundError:
        return []
    return sorted(n for n in names if n.endswith(JOURNAL_SUFFIX))


def commit(plan: Plan) -> str | None:
    """Run the protocol; returns the transaction id, or ``None`` when nothing needed writing."""
    ensure_directory(plan.state_dir, mode=0o700, allow_links=plan.allow_links)
    txdir = os.path.join(plan.state_dir, TRANSACTIONS_DIR)
    ensure_directory(txdir, mode=0o700, allow_links=plan.allow_links)
    with StateLock(plan.state_dir, timeout=plan.lock_timeout):
        if pending_journals(txdir):
            raise RecoveryNeededError(txdir, "holds an interrupted transaction; run recovery before writing again")
        dirs = DirCache(plan.allow_links)
        try:
            return _commit_locked(plan, txdir, dirs)
        finally:
            dirs.close()


def _missing_dirs(plan: Plan) -> list[tuple[str, int]]:
    return [(d, mode) for d, mode in plan.dirs if not os.path.isdir(d)]


def _commit_locked(plan: Plan, txdir: str, dirs: DirCache) -> str | None:
    for snap in plan.snapshots.values():
        _verify_snapshot(dirs, snap)
    txid = new_txid()
    entries = _entries(plan, txid)
    missing = _missing_dirs(plan)
    if not entries and not missing:
        return None
    journal = Journal(txid, entries, [d for d, _ in missing])
    txfd = dirs.fd(txdir)
    _prepare(plan, journal, txfd, dirs)
    try:
        fds = _stage(plan, journal, missing, dirs)
        _sync_and_close(fds)
    except BaseException:
        _discard(journal, txfd, dirs, applied=[])
        raise
    _apply(plan, journal, txfd, dirs, txdir)
    _retire(journal, txfd, plan.retention)
    return journal.txid


def _verify_snapshot(dirs: DirCache, snap: Snapshot) -> None:
    try:
        dfd, name = dirs.of(snap.path)
    except FileNotFoundError:
        if snap.exists:
            raise ConcurrentModificationError(snap.path, "was removed by another program after it was read") from None
        return
    verify_at(dfd, name, snap, allow_links=dirs.allow_links)


def _entries(plan: Plan, txid: str) -> list[Entry]:
    entries: list[Entry] = []
    for change in plan.changes:
        old = plan.snapshots[change.path]
        if change.kind == "remove":
            if old.exists:
                entries.append(Entry(change.path, "remove", old))
            continue
        assert change.data is not None
        mode = change.mode if change.mode is not None else (old.mode if old.exists else 0o600)
        digest = hashlib.sha256(change.data).hexdigest()
        if old.exists and old.sha256 == digest and old.mode == mode:
            continue
        entries.append(Entry(change.path, "write", old, digest, mode, temp_name(os.path.basename(change.path))))
    for index, entry in enumerate(entries):
        if entry.old.exists:
            entry.artifact = artifact_name(txid, index)
    return entries


def _prepare(plan: Plan, journal: Journal, txfd: int, dirs: DirCache) -> None:
    jfd = write_new(txfd, journal.txid + JOURNAL_SUFFIX, journal.encode())
    try:
        for entry in journal.entries:
            if entry.old.exists:
                dfd, _ = dirs.of(entry.path)
                preserve(dfd, txfd, entry)
                plan.expected[entry.path] = _recheck_after_link(dirs, entry.old)
        _sysio.fsync(jfd)
    except BaseException:
        _sysio.close(jfd)
        _remove_transaction_files(txfd, journal.txid)
        raise
    _sysio.close(jfd)
    _sysio.fsync_dir(txfd)


def _recheck_after_link(dirs: DirCache, old: Snapshot) -> Snapshot:
    """Linking changed the original's ctime only; anything else means another writer got in."""
    dfd, name = dirs.of(old.path)
    now, _ = take_at(dfd, name, old.path, max_bytes=max(old.size, 1), allow_links=dirs.allow_links)
    diff = [d for d in old.differences(now) if d != "ctime_ns"]
    if diff:
        raise ConcurrentModificationError(
            old.path, f"was changed by another program after it was read ({', '.join(diff)} differs)"
        )
    return now


def _stage(plan: Plan, journal: Journal, missing: list[tuple[str, int]], dirs: DirCache) -> list[int]:
    for directory, mode in missing:
        ensure_directory(directory, mode=mode, allow_links=plan.allow_links)
    data = {c.path: c.data for c in plan.changes if c.kind == "write"}
    fds: list[int] = []
    try:
        for entry in journal.entries:
            if entry.kind != "write":
                continue
            assert entry.temp is not None and entry.mode is not None
            dfd, _ = dirs.of(entry.path)
            fds.append(write_new(dfd, entry.temp, data[entry.path] or b""))
            if entry.mode != 0o600:
                _sysio.fchmod(fds[-1], entry.mode)
    except BaseException:
        for fd in fds:
            _sysio.close(fd)
        raise
    return fds


def _sync_and_close(fds: list[int]) -> None:
    try:
        for fd in fds:
            _sysio.fsync(fd)
    finally:
        for fd in fds:
            _sysio.close(fd)


def _apply(plan: Plan, journal: Journal, txfd: int, dirs: DirCache, txdir: str) -> None:
    applied: list[Entry] = []
    try:
        for entry in journal.entries:
            dfd, name = dirs.of(entry.path)
            verify_at(dfd, name, plan.expected.get(entry.path, entry.old), allow_links=dirs.allow_links)
            if entry.kind == "write":
                assert entry.temp is not None
                _sysio.rename(entry.temp, name, src_dir_fd=dfd, dst_dir_fd=dfd)
            else:
                _sysio.unlink(name, dir_fd=dfd)
            applied.append(entry)
        _fsync_dirs(dirs, (e.path for e in journal.entries))
    except BaseException:
        _rollback(journal, txfd, dirs, applied, txdir)
        raise


def _fsync_dirs(dirs: DirCache, paths: Iterable[str]) -> None:
    for directory in sorted({os.path.dirname(p) for p in paths}):
        _sysio.fsync_dir(dirs.fd(directory))


def _rollback(journal: Journal, txfd: int, dirs: DirCache, applied: list[Entry], txdir: str) -> None:
    unsafe: list[Entry] = []
    for entry in reversed(applied):
        dfd, _ = dirs.of(entry.path)
        state = entry_state(dfd, entry, allow_links=dirs.allow_links)
        if state == NEW:
            restore(dfd, txfd, entry)
        elif state != OLD:
            unsafe.append(entry)
    _fsync_dirs(dirs, (e.path for e in applied))
    if unsafe:
        first = unsafe[0]
        kept = os.path.join(txdir, first.artifact) if first.artifact else "nowhere (it did not exist before)"
        journal_path = os.path.join(txdir, journal.txid + JOURNAL_SUFFIX)
        raise RollbackIncompleteError(
            first.path,
            f"was changed by another program after our write, so it was left as it is; its original is kept "
            f"at {kept}; the journal {journal_path} records the rest",
            recovery_path=journal_path,
        )
    _discard(journal, txfd, dirs, applied)


def _discard(journal: Journal, txfd: int, dirs: DirCache, applied: list[Entry]) -> None:
    """Remove every trace of a transaction that did not happen (its originals are in place)."""
    done = {e.path for e in applied}
    for entry in journal.entries:
        if entry.temp is not None and entry.path not in done:
            try:
                dfd, _ = dirs.of(entry.path)
            except FileNotFoundError:
                continue
            remove_quietly(dfd, entry.temp)
    for directory in reversed(journal.created_dirs):
        with contextlib.suppress(OSError):
            os.rmdir(directory)
    _remove_transaction_files(txfd, journal.txid)


def _remove_transaction_files(txfd: int, txid: str) -> None:
    for name in os.listdir(txfd):
        if belongs_to(name, txid):
            remove_quietly(txfd, name)


def _retire(journal: Journal, txfd: int, retention: int) -> None:
    _sysio.rename(journal.txid + JOURNAL_SUFFIX, journal.txid + DONE_SUFFIX, src_dir_fd=txfd, dst_dir_fd=txfd)
    prune(txfd, retention)


def prune(txfd: int, retention: int) -> None:
    """Keep the artifacts of the newest ``retention`` committed transactions, remove older ones."""
    names = os.listdir(txfd)
    done = sorted(n[: -len(DONE_SUFFIX)] for n in names if n.endswith(DONE_SUFFIX))
    for txid in done[: max(len(done) - retention, 0)]:
        for name in names:
            if belongs_to(name, txid):
                remove_quietly(txfd, name)
