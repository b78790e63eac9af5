"""The commit protocol (see docs/transactions.md for the crash analysis).

A commit that changes exactly one file and creates no directory takes the journal-free path of ``_single``
after step 1; everything below is the journalled protocol of every other commit.

1. Under the state lock, re-verify every snapshot.
2. Prepare: write the journal (every target, its old snapshot, new hash, temp and artifact names), hard-link
   (or copy) each original into ``transactions/`` as its rollback artifact, fsync the journal and that
   directory. From here on recovery knows everything; no temp file exists yet.
3. Stage: create missing directories (missing parents included, all recorded in the journal), write every
   temp file, then fsync them all.
4. Apply, without a race window where Linux ``renameat2`` works: a replaced target is exchanged with its temp
   file and what was swapped out must be the verified original (else it is swapped back:
   ``ConcurrentModificationError``) before it is unlinked; a new file is renamed with ``RENAME_NOREPLACE``; a
   removed file is renamed aside (to its journalled temp name), checked the same way and unlinked. Without
   ``renameat2``: re-verify, then ``rename``/``unlink``. Then fsync every touched directory once: the
   transaction is durable.
5. Retire: rename the journal to ``.done`` (a failure up to here rolls back), then delete the artifacts of
   retired transactions and the ``.done`` records beyond the retention bound (best effort).

A failure in 2 or 3 removes what was created; a failure in 4 or 5 restores the applied entries from their
artifacts, refusing (``RollbackIncompleteError``) to overwrite anything another program wrote meanwhile; when
the rollback itself fails, the journal is kept and ``RollbackIncompleteError`` names it for ``recover``.
OS errors name the file concerned (absolute path).
"""

from __future__ import annotations

import contextlib
import hashlib
import os

from . import _platform, _sysio
from ._apply import DirCache, KeptAside, apply_one, changed, fsync_dirs, named
from ._ownership import check_not_root_in_foreign_tree, keep_owner
from ._single import commit_single
from ._tempdirs import TEMP_DIRS, state_tag
from ._undo import NEW, OLD, entry_state, preserve, restore
from .errors import ConcurrentModificationError, MissingDirectoryError, RecoveryNeededError, RollbackIncompleteError
from .files import remove_quietly, temp_name
from .journal import (
    DONE_SUFFIX,
    JOURNAL_SUFFIX,
    TRANSACTIONS_DIR,
    Entry,
    Journal,
    artifact_name,
    belongs_to,
    blocking_journal,
    keep_new_copies,
    new_txid,
    write_new,
)
from .lock import shared_lock
from .paths import ensure_directory
from .records import field, record
from .snapshot import Snapshot, take_at, verify_at


@record
class Change:
    path: str
    kind: str  # "write" | "remove"
    data: bytes | None = None
    mode: int | None = None


@record
class Plan:
    state_dir: str
    snapshots: dict[str, Snapshot]
    changes: list[Change]
    dirs: list[tuple[str, int]]
    allow_links: bool = False
    lock_timeout: float = 10.0
    retention: int = 10
    expected: dict[str, Snapshot] = field(default_factory=dict)


def commit(plan: Plan) -> str | None:
    """Run the protocol; returns the transaction id, or ``None`` when nothing needed writing. With nothing to
    write and no transactions directory yet (so no interrupted transaction to recover first), the files read are
    checked and nothing is created: not the state directory, nor its lock."""
    txdir = os.path.join(plan.state_dir, TRANSACTIONS_DIR)
    check_not_root_in_foreign_tree(*sorted({plan.state_dir} | {os.path.dirname(c.path) for c in plan.changes}))
    dirs = DirCache(plan.allow_links)
    try:
        entries = _entries(plan)
        if not entries and not _missing_dirs(plan) and not os.path.lexists(txdir):
            for snap in plan.snapshots.values():
                _verify_snapshot(dirs, snap)
            return None
        _open_transactions_dir(plan, txdir, dirs)
        with shared_lock(plan.state_dir, plan.lock_timeout):
            names = _platform.listdir(dirs.fd(txdir))
            journals = [n for n in names if n.endswith(JOURNAL_SUFFIX)]
            blocking = blocking_journal(txdir, sorted(journals), _touched(plan)) if journals else None
            if blocking:
                raise RecoveryNeededError(
                    os.path.join(txdir, blocking), "is an interrupted transaction on these files; run recovery first"
                )
            # Artifacts of retired transactions (a crash before their deletion) are deleted by the next commit.
            housekeeping = any(not n.endswith(_RECORDS) and n != TEMP_DIRS for n in names)
            return _commit_locked(plan, entries, txdir, dirs, housekeeping)
    finally:
        dirs.close()


_RECORDS = (JOURNAL_SUFFIX, DONE_SUFFIX)


def _open_transactions_dir(plan: Plan, txdir: str, dirs: DirCache) -> None:
    """Open ``<state>/transactions`` (no link on the way), creating it and the state directory when missing."""
    try:
        with named(txdir):
            dirs.fd(txdir)
        return
    except MissingDirectoryError:
        pass
    for directory in (plan.state_dir, txdir):
        with named(directory):
            ensure_directory(directory, mode=0o700, allow_links=plan.allow_links)
    with named(txdir):
        dirs.fd(txdir)


def _touched(plan: Plan) -> set[str]:
    paths = set(plan.snapshots) | {c.path for c in plan.changes} | {d for d, _ in plan.dirs}
    return paths | {os.path.dirname(p) for p in paths}


def _missing_dirs(plan: Plan) -> list[tuple[str, int]]:
    """Every directory the commit will create, missing parents included, outermost first."""
    missing: list[tuple[str, int]] = []
    for directory, mode in plan.dirs:
        chain: list[str] = []
        probe = directory
        while not os.path.lexists(probe) and os.path.dirname(probe) != probe:
            chain.append(probe)
            probe = os.path.dirname(probe)
        missing.extend((d, mode) for d in reversed(chain) if d not in {m for m, _ in missing})
    return missing


def _commit_locked(plan: Plan, entries: list[Entry], txdir: str, dirs: DirCache, housekeeping: bool) -> str | None:
    txid = new_txid()
    missing = _missing_dirs(plan)
    single = entries[0] if len(entries) == 1 and not missing else None
    for snap in plan.snapshots.values():
        # The single target itself is checked when it is applied (what the exchange swaps out, or verify and
        # rename): reading and hashing it here as well would only make the common case slower.
        if single is None or snap.path != single.path:
            _verify_snapshot(dirs, snap)
    if not entries and not missing:
        return None
    txfd = dirs.fd(txdir)
    if single is not None:
        data = next(c.data for c in plan.changes if c.path == single.path)
        tag = state_tag(plan.state_dir, resolved=not plan.allow_links)  # else a link in it was refused
        commit_single(single, data, single.old, txid, txdir, txfd, dirs, tag)
        if housekeeping:
            with contextlib.suppress(OSError):
                prune(txfd, plan.retention)
        return txid
    _name_files(entries, txid)
    journal = Journal(txid, entries, [d for d, _ in missing], plan.allow_links)
    _prepare(plan, journal, txfd, dirs, txdir)
    try:
        fds = _stage(plan, journal, missing, dirs)
        _sync_and_close(fds)
        with named(txdir):
            keep_new_copies(txfd, journal, {c.path: c.data or b"" for c in plan.changes if c.kind == "write"})
    except BaseException:
        _discard(journal, txfd, dirs)
        raise
    _apply(plan, journal, txfd, dirs, txdir)
    with contextlib.suppress(OSError):  # housekeeping only: the transaction is committed and retired
        prune(txfd, plan.retention)
    return journal.txid


def _verify_snapshot(dirs: DirCache, snap: Snapshot) -> None:
    try:
        dfd, name = dirs.of(snap.path)
    except FileNotFoundError:
        if snap.exists:
            raise ConcurrentModificationError(snap.path, "was removed by another program after it was read") from None
        return
    verify_at(dfd, name, snap, allow_links=dirs.allow_links)


def _entries(plan: Plan) -> list[Entry]:
    entries: list[Entry] = []
    for change in plan.changes:
        old = plan.snapshots[change.path]
        if change.kind == "remove":
            if old.exists:
                entries.append(Entry(change.path, "remove", old))
            continue
        assert change.data is not None
        mode = _platform.kept_mode(change.mode if change.mode is not None else (old.mode if old.exists else 0o600))
        digest = hashlib.sha256(change.data).hexdigest()
        if old.exists and old.sha256 == digest and old.mode == mode:
            continue
        entries.append(Entry(change.path, "write", old, digest, mode))
    return entries


def _name_files(entries: list[Entry], txid: str) -> None:
    """The journalled protocol's temp and artifact names (a single-target commit names its one temp file with
    the state directory's tag instead, and keeps no artifact)."""
    for index, entry in enumerate(entries):
        entry.temp = temp_name(os.path.basename(entry.path))
        if entry.old.exists:
            entry.artifact = artifact_name(txid, index)


def _prepare(plan: Plan, journal: Journal, txfd: int, dirs: DirCache, txdir: str) -> None:
    journal_path = os.path.join(txdir, journal.txid + JOURNAL_SUFFIX)
    jfd: int | None = None
    try:
        with named(journal_path):
            jfd = write_new(txfd, journal.txid + JOURNAL_SUFFIX, journal.encode())
        for entry in journal.entries:
            if entry.old.exists:
                dfd, _ = dirs.of(entry.path)
                try:
                    with named(entry.path):
                        preserve(dfd, txfd, entry)
                except FileNotFoundError:
                    if os.path.lexists(entry.path):
                        raise
                    changed(entry, "was removed by another program after it was read")
                plan.expected[entry.path] = _recheck_after_link(dirs, entry.old)
        with named(journal_path):
            _sysio.fsync(jfd)
            fd, jfd = jfd, None
            _sysio.close(fd)
        with named(txdir):
            _sysio.fsync_dir(txfd)
    except BaseException:
        if jfd is not None:
            _sysio.close(jfd)
        _remove_transaction_files(txfd, journal.txid)
        raise


def _recheck_after_link(dirs: DirCache, old: Snapshot) -> Snapshot:
    """Linking changed the original's ctime only; anything else means another writer got in."""
    dfd, name = dirs.of(old.path)
    now, _ = take_at(dfd, name, old.path, max_bytes=max(old.size, 1), allow_links=dirs.allow_links)
    diff = old.changed_besides_ctime(now)
    if diff:
        raise ConcurrentModificationError(
            old.path, f"was changed by another program after it was read ({', '.join(diff)} differs)"
        )
    return now


def _stage(
    plan: Plan, journal: Journal, missing: list[tuple[str, int]], dirs: DirCache
) -> list[tuple[int, str]]:
    for directory, mode in missing:
        with named(directory):
            ensure_directory(directory, mode=mode, allow_links=plan.allow_links)
    data = {c.path: c.data for c in plan.changes if c.kind == "write"}
    fds: list[tuple[int, str]] = []
    try:
        for entry in journal.entries:
            if entry.kind != "write":
                continue
            assert entry.temp is not None and entry.mode is not None
            dfd, _ = dirs.of(entry.path)
            with named(entry.path):
                fds.append((write_new(dfd, entry.temp, data[entry.path] or b""), entry.path))
                keep_owner(fds[-1][0], entry.old)
                if entry.mode != 0o600:
                    _sysio.fchmod(fds[-1][0], entry.mode)
    except BaseException:
        for fd, _ in fds:
            _sysio.close(fd)
        raise
    return fds


def _sync_and_close(fds: list[tuple[int, str]]) -> None:
    try:
        for fd, path in fds:
            with named(path):
                _sysio.fsync(fd)
    finally:
        for fd, _ in fds:
            _sysio.close(fd)


def _apply(plan: Plan, journal: Journal, txfd: int, dirs: DirCache, txdir: str) -> None:
    """Rename (or unlink) every target, make it durable and retire the journal; roll back on any failure."""
    applied: list[Entry] = []
    journal_name = journal.txid + JOURNAL_SUFFIX
    try:
        for entry in journal.entries:
            dfd, name = dirs.of(entry.path)
            try:
                with named(entry.path):
                    displaced = apply_one(dfd, name, entry, plan.expected.get(entry.path, entry.old), dirs.allow_links)
                    if displaced is not None:
                        _sysio.unlink(displaced, dir_fd=dfd)
            except KeptAside:
                applied.append(entry)
                raise
            except ConcurrentModificationError:
                raise  # nothing of this entry is in place
            except BaseException:
                applied.append(entry)  # it may be in place: the rollback decides by content
                raise
            applied.append(entry)
        fsync_dirs(dirs, (e.path for e in journal.entries))
        with named(os.path.join(txdir, journal_name)):
            _sysio.rename(journal_name, journal.txid + DONE_SUFFIX, src_dir_fd=txfd, dst_dir_fd=txfd)
    except BaseException:
        _rollback(journal, txfd, dirs, applied, txdir)
        raise


def _rollback(journal: Journal, txfd: int, dirs: DirCache, applied: list[Entry], txdir: str) -> None:
    """Restore the applied entries; when one cannot be restored (or made durable) keep the journal and say so."""
    unsafe: list[Entry] = []
    failed: list[tuple[str, Exception]] = []
    for entry in reversed(applied):
        try:
            dfd, _ = dirs.of(entry.path)
            state = entry_state(dfd, entry, allow_links=dirs.allow_links)
            if state == NEW:
                with named(entry.path):
                    restore(dfd, txfd, entry)
            elif state != OLD:
                unsafe.append(entry)
        except Exception as exc:
            failed.append((entry.path, exc))
    try:
        fsync_dirs(dirs, (e.path for e in applied))
    except OSError as exc:
        failed.append((exc.filename or txdir, exc))
    journal_path = os.path.join(txdir, journal.txid + JOURNAL_SUFFIX)
    if unsafe:
        first = unsafe[0]
        kept = os.path.join(txdir, first.artifact) if first.artifact else "nowhere (it did not exist before)"
        raise RollbackIncompleteError(
            first.path,
            f"was changed by another program after our write, so it was left as it is; its original is kept "
            f"at {kept}; the journal {journal_path} records the rest",
            recovery_path=journal_path,
        )
    if failed:
        path, cause = failed[0]
        raise RollbackIncompleteError(
            path,
            f"could not be rolled back ({cause}); run recovery: the journal {journal_path} and the originals are kept",
            recovery_path=journal_path,
        ) from cause
    _discard(journal, txfd, dirs)


def _discard(journal: Journal, txfd: int, dirs: DirCache) -> None:
    """Remove every trace of a transaction that did not happen (its originals are in place)."""
    for entry in journal.entries:
        if entry.temp is not None:
            try:
                dfd, _ = dirs.of(entry.path)
            except FileNotFoundError:
                continue
            remove_quietly(dfd, entry.temp)
    for directory in reversed(journal.created_dirs):
        with contextlib.suppress(OSError):
            _sysio.rmdir(directory)
    _remove_transaction_files(txfd, journal.txid)


def _remove_transaction_files(txfd: int, txid: str) -> None:
    """Remove the artifacts first and the journal last, so a crash in between leaves no orphan artifact."""
    names = sorted(
        (n for n in _platform.listdir(txfd) if belongs_to(n, txid)), key=lambda n: n.endswith(JOURNAL_SUFFIX)
    )
    for name in names:
        remove_quietly(txfd, name)


def prune(txfd: int, retention: int) -> None:
    """Delete the artifacts of every retired transaction; keep only the newest ``retention`` ``.done`` records."""
    names = _platform.listdir(txfd)
    done = sorted(n[: -len(DONE_SUFFIX)] for n in names if n.endswith(DONE_SUFFIX))
    old = set(done[: max(len(done) - retention, 0)])
    retired = set(done)
    for name in names:
        txid = name.split(".", 1)[0]
        if txid in old or (txid in retired and not name.endswith(DONE_SUFFIX)):
            remove_quietly(txfd, name)
