"""Who may write a file, and keeping its owner when we rewrite it.

* A file whose permission bits do not let the caller write it (0444, or another user's 0644) was made
  read-only on purpose: :func:`check_writable` refuses to replace it unless the caller opts in.
* A rewrite creates a new inode; :func:`keep_owner` gives it the original's owner and group before it is put
  in place (root can; other users can keep their own uid and a group they belong to). When that is not
  possible the write is refused rather than silently changing the file's owner.
* Running as root in a tree that belongs to another user (``sudo`` with that user's ``HOME``) would leave
  root-owned state there that the user and their agents cannot open: :func:`check_not_root_in_foreign_tree`
  refuses it and says to run as that user.
"""

from __future__ import annotations

import errno
import os

from . import _platform, _sysio
from .errors import ForeignOwnerError, ReadOnlyFileError
from .snapshot import Snapshot


def check_writable(snap: Snapshot) -> None:
    """Raise :class:`ReadOnlyFileError` when the existing file of ``snap`` is not writable by the caller."""
    if snap.exists and snap.uid >= 0 and not _platform.may_write(snap.mode, snap.uid, snap.gid):
        raise ReadOnlyFileError(
            snap.path, f"is read-only (mode {snap.mode:04o}); make it writable or allow replacing read-only files"
        )


def keep_owner(fd: int, snap: Snapshot) -> None:
    """Give the new file open at ``fd`` the owner and group of the file ``snap`` describes."""
    if not snap.exists or snap.uid < 0:
        return
    info = os.fstat(fd)
    if (info.st_uid, info.st_gid) == (snap.uid, snap.gid):
        return
    try:
        _sysio.fchown(fd, snap.uid, snap.gid)
    except OSError as exc:
        if exc.errno != errno.EPERM:
            raise
        raise ForeignOwnerError(
            snap.path,
            f"belongs to uid {snap.uid} gid {snap.gid} and a rewrite by uid {_platform.user_id()} cannot keep that; "
            "run as its owner",
        ) from None


def check_not_root_in_foreign_tree(*paths: str) -> None:
    """As root, refuse to create or change files under any of ``paths`` when it or any existing ancestor
    belongs to another user (``/home/alice/.elydora`` with ``sudo``). Ancestors shared by several paths are
    looked at once."""
    if not _platform.is_superuser():
        return
    seen: set[str] = set()
    for path in paths:
        probe = os.path.abspath(path)
        while probe not in seen:
            seen.add(probe)
            try:
                owner = os.stat(probe).st_uid
            except FileNotFoundError:
                owner = 0
            if owner != 0:
                raise ForeignOwnerError(
                    probe,
                    f"belongs to uid {owner} but this runs as root, which would leave files there that this user "
                    f"cannot open; run it as that user (e.g. sudo -u '#{owner}' ...)",
                )
            if probe == os.sep:
                break
            probe = probe.rpartition(os.sep)[0] or os.sep  # the parent (abspath leaves no trailing separator)
