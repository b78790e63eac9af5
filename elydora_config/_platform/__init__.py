"""Everything in the library that differs between operating systems, behind one set of names.

``_posix`` (Linux, macOS and the other Unixes) and ``_windows`` define the same names; this module re-exports
the half for the running system, and no other module of the library calls an operating-system-specific
function. The rest of the library is the same code everywhere: it speaks POSIX's ``*at`` vocabulary (a
directory descriptor plus a name), which Windows gets from a small emulation in ``_windows``.

What each half gives (docs/transactions.md, "Platforms", says what each promise becomes on each system):

* opening: ``open_at`` (``os.open`` with ``dir_fd``; our ``O_NOFOLLOW`` and ``O_DIRECTORY``), ``open_no_links``
  (Linux ``openat2(RESOLVE_NO_SYMLINKS)``), ``stat_at``, ``listdir``, ``close``, ``is_link``;
* changing names: ``rename_at`` (replace), ``rename_noreplace``, ``exchange``, ``unlink_at``, ``link_at``,
  ``mkdir_at``, ``rmdir``, ``chown_at``; ``UNSUPPORTED``, the errnos that say a rename flavour is missing;
* durability: ``fsync`` (``F_FULLFSYNC`` on macOS), ``fsync_dir``;
* modes and owners: ``file_mode``, ``kept_mode``, ``is_private``, ``may_write``, ``fchmod``, ``fchown``,
  ``user_id``, ``is_superuser``, ``owned_by_caller``;
* the inter-process lock: in :mod:`.locking` (``flock`` with ``LOCK_EX_NB`` and ``LOCK_UN``, ``pread``,
  ``pwrite``), apart, so that only the state lock loads ``fcntl`` (a read-only command does not);
* reading: ``pread`` (Windows: a seek and a read);
* processes: ``is_closed_pipe`` (a write to a pipe its reader closed, as each system reports it),
  ``pid_alive``, ``flock_held`` (whether a process holds a lock on a file, where the system says without
  taking it), ``after_fork_in_child``, ``spawn_detached`` (a background process that outlives
  its starter), ``NEW_SESSION`` and ``kill_session`` (a child in a process group of its own, killed with
  what it started); ``OPEN_FILES_PIN_NAMES``: whether a file we hold open
  keeps others from deleting or replacing its name (Windows), so that no descriptor may be kept idle;
* names: ``split_root``, ``name_key`` (Windows names are case-insensitive).
"""

from __future__ import annotations

import sys

if sys.platform == "win32":
    from ._windows import (
        NEW_SESSION,
        O_BINARY,
        O_CLOEXEC,
        O_DIRECTORY,
        O_NOFOLLOW,
        O_NONBLOCK,
        OPEN_FILES_PIN_NAMES,
        UNSUPPORTED,
        after_fork_in_child,
        chown_at,
        close,
        exchange,
        fchmod,
        fchown,
        file_mode,
        flock_held,
        fsync,
        fsync_dir,
        is_closed_pipe,
        is_link,
        is_private,
        is_superuser,
        kept_mode,
        kill_session,
        link_at,
        listdir,
        may_write,
        mkdir_at,
        name_key,
        open_at,
        open_no_links,
        owned_by_caller,
        pid_alive,
        pread,
        rename_at,
        rename_noreplace,
        rmdir,
        spawn_detached,
        split_root,
        stat_at,
        unlink_at,
        user_id,
    )
else:
    from ._posix import (
        NEW_SESSION,
        O_BINARY,
        O_CLOEXEC,
        O_DIRECTORY,
        O_NOFOLLOW,
        O_NONBLOCK,
        OPEN_FILES_PIN_NAMES,
        UNSUPPORTED,
        after_fork_in_child,
        chown_at,
        close,
        exchange,
        fchmod,
        fchown,
        file_mode,
        flock_held,
        fsync,
        fsync_dir,
        is_closed_pipe,
        is_link,
        is_private,
        is_superuser,
        kept_mode,
        kill_session,
        link_at,
        listdir,
        may_write,
        mkdir_at,
        name_key,
        open_at,
        open_no_links,
        owned_by_caller,
        pid_alive,
        pread,
        rename_at,
        rename_noreplace,
        rmdir,
        spawn_detached,
        split_root,
        stat_at,
        unlink_at,
        user_id,
    )

__all__ = [
    "NEW_SESSION",
    "OPEN_FILES_PIN_NAMES",
    "O_BINARY",
    "O_CLOEXEC",
    "O_DIRECTORY",
    "O_NOFOLLOW",
    "O_NONBLOCK",
    "UNSUPPORTED",
    "after_fork_in_child",
    "chown_at",
    "close",
    "exchange",
    "fchmod",
    "fchown",
    "file_mode",
    "flock_held",
    "fsync",
    "fsync_dir",
    "is_closed_pipe",
    "is_link",
    "is_private",
    "is_superuser",
    "kept_mode",
    "kill_session",
    "link_at",
    "listdir",
    "may_write",
    "mkdir_at",
    "name_key",
    "open_at",
    "open_no_links",
    "owned_by_caller",
    "pid_alive",
    "pread",
    "rename_at",
    "rename_noreplace",
    "rmdir",
    "spawn_detached",
    "split_root",
    "stat_at",
    "unlink_at",
    "user_id",
]
