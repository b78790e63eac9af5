"""Deciding where one journal entry stands, and putting its original back.

Shared by the in-process rollback of a failed commit and by crash recovery. Both decide by content, not by
metadata: linking a rollback artifact changes the original's ``ctime``, and after a crash the only thing that
matters is whether the file holds the old bytes, our new bytes, or somebody else's.
"""

from __future__ import annotations

import errno
import hashlib
import os

from . import _platform, _sysio
from .files import create_temp, read_at, remove_quietly, temp_name
from .journal import Entry

OLD, NEW, FOREIGN = "old", "new", "foreign"


def entry_state(dfd: int, entry: Entry, *, allow_links: bool = False) -> str:
    """``old``, ``new`` or ``foreign``: what the target named by ``entry`` now holds."""
    name = os.path.basename(entry.path)
    current = read_at(dfd, name, entry.path, max(entry.old.size, 1) * 4 + (1 << 30), allow_links)
    digest = hashlib.sha256(current.data).hexdigest() if current is not None else None
    if entry.kind == "remove":
        if current is None:
            return NEW
    elif digest is not None and digest == entry.new_sha256:
        # A mode-only change keeps the bytes: then only the mode tells our file from the original.
        same_bytes = entry.old.exists and entry.old.sha256 == entry.new_sha256
        if not same_bytes or (current is not None and _platform.file_mode(current.stat.st_mode) == entry.mode):
            return NEW
    if entry.old.exists:
        return OLD if digest == entry.old.sha256 else FOREIGN
    return OLD if current is None else FOREIGN


def restore(dfd: int, txfd: int, entry: Entry) -> None:
    """Put the original of ``entry`` back in place of our new version (or delete the file we created)."""
    name = os.path.basename(entry.path)
    if not entry.old.exists:
        _sysio.unlink(name, dir_fd=dfd)
        return
    assert entry.artifact is not None
    tmp = temp_name(name)
    try:
        _sysio.link(entry.artifact, tmp, src_dir_fd=txfd, dst_dir_fd=dfd)
    except OSError as exc:
        if exc.errno not in (errno.EXDEV, errno.EPERM, errno.EMLINK, errno.ENOTSUP):
            raise
        original = read_at(txfd, entry.artifact, entry.artifact, 1 << 40)
        if original is None:
            raise
        tmp = create_temp(dfd, name, original.data, entry.old.mode)
    try:
        _sysio.rename(tmp, name, src_dir_fd=dfd, dst_dir_fd=dfd)
    except BaseException:
        remove_quietly(dfd, tmp)
        raise


def preserve(dfd: int, txfd: int, entry: Entry) -> bool:
    """Keep the original as a rollback artifact; returns True when it had to be copied (and needs fsync)."""
    assert entry.artifact is not None
    name = os.path.basename(entry.path)
    try:
        _sysio.link(name, entry.artifact, src_dir_fd=dfd, dst_dir_fd=txfd)
        return False
    except OSError as exc:
        if exc.errno not in (errno.EXDEV, errno.EPERM, errno.EMLINK, errno.ENOTSUP):
            raise
    original = read_at(dfd, name, entry.path, max(entry.old.size, 1))
    if original is None:
        raise FileNotFoundError(errno.ENOENT, "file vanished before it could be preserved", entry.path)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _sysio.O_NOFOLLOW
    fd = _sysio.open_file(entry.artifact, flags, 0o600, dir_fd=txfd)
    try:
        _sysio.write_all(fd, original.data)
        _sysio.fsync(fd)
    finally:
        _sysio.close(fd)
    return True
