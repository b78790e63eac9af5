"""The single-target commit: no journal, the rename is the commit point (docs/transactions.md, "One target").

With exactly one file to write, create or remove and no directory to create, nothing can be left half done: the
one rename (``RENAME_EXCHANGE`` of the temp file with the target, ``RENAME_NOREPLACE`` of a new file, the
rename aside of a removal) switches the target from its old bytes to its new ones atomically, before and after
any crash. So this path pays the two barriers of a raw durable replace, the temp file's fsync and its
directory's, and none for a journal, rollback artifacts or ``transactions/``:

1. (under the state lock, snapshots verified) make sure the target's directory is on the list of
   ``_tempdirs`` (durable; only the first commit into a directory pays for it);
2. write the temp file (tagged with the state directory), set its owner and mode, fsync it;
3. apply it like the journalled commit (``_apply.apply_one``): what an exchange swapped out must be the
   verified original, else it is swapped back and the commit fails with ``ConcurrentModificationError``;
4. fsync the directory: the commit is durable; then unlink the original that the exchange swapped out.

Until step 4 has returned, the verified original stays reachable (under the temp name), so any failure is
undone by swapping it back (a removal is put back, a created file unlinked), after checking by content that
the target still holds our bytes. When even that fails, a journal describing the entry (with the original
linked in as its artifact) is written then, and ``RollbackIncompleteError`` names it for ``recover``.

What it costs beyond a raw durable replace (open, write, fsync, close, rename, open, fsync, close of the
directory): no further barrier, and these calls, each needed for a documented guarantee:

* staging (``Transaction.write``): the directory opened with ``openat2(RESOLVE_NO_SYMLINKS)``, the target
  opened ``O_NOFOLLOW``, ``fstat``, read to the end (one read more tells the end), ``fstatat`` of the name (the
  bytes came from the file the name points to), closes: the snapshot, which keeps mode and owner and is what
  a concurrent edit is detected against;
* as root only, one ``stat`` per ancestor of the state and target directories (no root-owned files in
  another user's tree);
* ``transactions/`` opened link-free and listed (a pending journal on this file must block the commit;
  leftovers of a crashed journalled commit are swept); ``stat`` of ``temp-dirs`` (the list that lets
  recovery find a killed commit's temp file must still cover this directory);
* the lock: ``stat`` of ``.lock`` (is the kept descriptor still that file?), ``flock``, ``pread`` of the holder
  PID (rewritten only when another process held it last), ``flock(LOCK_UN)``; the descriptor is kept for
  the next commit (``lock``);
* the target's directory opened link-free again (a directory swapped since staging is not written into);
* the temp file: ``fstat`` (its owner and group must become the original's) and ``fchmod`` (created
  ``0600``, so that nobody the target does not admit can read the new bytes before they are in place);
* after the exchange, the displaced original opened, ``fstat``, read once, closed: what was swapped out
  must be the verified original by content, not only by inode and times (a same-size edit within a clock
  tick);
* the ``unlink`` of that original after the directory fsync (a raw replace frees it inside ``rename``).

Not paid: no journal, artifact, ``.new`` copy or ``.done`` record; no open of ``.lock`` per commit; no
``stat`` of the displaced original's name after its read, nor a read more to see its end (its inode, size
and hash are judged); no ``pwrite`` of an unchanged holder PID.
"""

from __future__ import annotations

import contextlib
import os

from . import _sysio
from ._apply import DirCache, apply_one, named, put_back
from ._ownership import keep_owner
from ._tempdirs import TEMP_DIRS, register, tagged_temp_name
from ._undo import FOREIGN, NEW, OLD, entry_state
from .errors import ConcurrentModificationError, ConfigError, RollbackIncompleteError
from .files import remove_quietly
from .journal import JOURNAL_SUFFIX, Entry, Journal, artifact_name, write_new
from .records import record
from .snapshot import Snapshot


@record
class _Target:
    entry: Entry
    dfd: int
    name: str
    txid: str
    txdir: str
    txfd: int
    allow_links: bool


def commit_single(
    entry: Entry, data: bytes | None, expected: Snapshot, txid: str, txdir: str, txfd: int, dirs: DirCache, tag: str
) -> None:
    """Commit the one ``entry`` (see the module docstring)."""
    directory, name = os.path.split(entry.path)
    dfd = dirs.fd(directory)
    entry.temp = tagged_temp_name(name, tag)
    with named(f"{txdir}{os.sep}{TEMP_DIRS}"):
        register(txfd, directory)
    if entry.kind == "write":
        _stage(dfd, entry, data or b"")
    displaced: str | None = entry.temp if entry.kind == "remove" or entry.old.exists else None
    try:
        with named(entry.path):
            displaced = apply_one(dfd, name, entry, expected, dirs.allow_links)
    except ConcurrentModificationError:  # nothing of ours is in place (the other program's file is kept)
        if entry.kind == "write":
            remove_quietly(dfd, entry.temp)
        raise
    except BaseException as exc:
        _undo(_Target(entry, dfd, name, txid, txdir, txfd, dirs.allow_links), displaced, exc)  # decided by content
        raise
    try:
        with named(directory):
            _sysio.fsync_dir(dfd)
        if displaced is not None:
            with named(entry.path):
                _sysio.unlink(displaced, dir_fd=dfd)
    except BaseException as exc:
        _undo(_Target(entry, dfd, name, txid, txdir, txfd, dirs.allow_links), displaced, exc)
        raise


def _stage(dfd: int, entry: Entry, data: bytes) -> None:
    assert entry.temp is not None and entry.mode is not None
    with named(entry.path):
        try:
            fd = write_new(dfd, entry.temp, data)
            try:
                keep_owner(fd, entry.old)
                if entry.mode != 0o600:
                    _sysio.fchmod(fd, entry.mode)
                _sysio.fsync(fd)
            finally:
                _sysio.close(fd)
        except BaseException:
            remove_quietly(dfd, entry.temp)
            raise


def _undo(target: _Target, displaced: str | None, cause: BaseException) -> None:
    """Put the target back as it was after a failure at or after the rename (``displaced``: the name that
    holds what the rename swapped out, when there is one)."""
    entry, dfd, name = target.entry, target.dfd, target.name
    assert entry.temp is not None
    original = displaced  # where the verified original is, while it is not back in place
    try:
        try:
            state = entry_state(dfd, entry, allow_links=target.allow_links)
        except (OSError, ConfigError):
            state = NEW if displaced is not None else "unreadable"  # undo our own rename as it was
        if state == FOREIGN:
            raise RollbackIncompleteError(entry.path, "was changed by another program after our write")
        if state == NEW:
            if entry.kind == "remove":
                assert displaced is not None
                put_back(dfd, displaced, name)
                original = None
            elif entry.old.exists:
                if displaced is None:
                    raise RollbackIncompleteError(entry.path, "holds the new content and its original is gone")
                _sysio.exchange(displaced, name, src_dir_fd=dfd, dst_dir_fd=dfd)
                original = None
            else:
                _sysio.unlink(name, dir_fd=dfd)
        elif state != OLD:
            raise RollbackIncompleteError(entry.path, "could not be read back to undo the write")
        if entry.kind == "write":
            with contextlib.suppress(FileNotFoundError):
                _sysio.unlink(entry.temp, dir_fd=dfd)  # ours: never put in place, or swapped back
        _sysio.fsync_dir(dfd)
    except BaseException as failure:
        journal = _keep_for_recovery(target, original)
        where = f"the journal {journal} records it" if journal else f"its original is kept as {original}"
        raise RollbackIncompleteError(
            entry.path,
            f"could not be rolled back after {cause} ({failure}); run recovery: {where}",
            recovery_path=journal,
        ) from cause


def _keep_for_recovery(target: _Target, original: str | None) -> str | None:
    """Write the journal that recovery needs to finish an undo that failed; its path, or ``None``."""
    entry, txid, txfd = target.entry, target.txid, target.txfd
    with contextlib.suppress(OSError):
        if original is not None:
            entry.artifact = artifact_name(txid, 0)
            try:
                _sysio.link(original, entry.artifact, src_dir_fd=target.dfd, dst_dir_fd=txfd)
            except OSError:
                entry.artifact = None
            entry.temp = original
        journal = Journal(txid, [entry], [], target.allow_links)
        fd = write_new(txfd, txid + JOURNAL_SUFFIX, journal.encode())
        try:
            _sysio.fsync(fd)
        finally:
            _sysio.close(fd)
        _sysio.fsync_dir(txfd)
        return os.path.join(target.txdir, txid + JOURNAL_SUFFIX)
    return None
