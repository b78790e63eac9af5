"""Physical reads and owner-only durable writes.

* :func:`read_physical` opens with ``O_NOFOLLOW`` relative to a link-checked parent, accepts only regular
  files, compares the opened file's identity (``fstat``) with the directory entry (``lstat``) and enforces the
  caller's size cap.
* :func:`write_atomic` writes a same-directory temporary file created ``0600`` with ``O_EXCL|O_NOFOLLOW``,
  fsyncs it, sets the kept or requested mode and the kept owner and group, renames it over the target and
  fsyncs the directory.
* :func:`append_private` appends to an owner-only file with ``O_APPEND|O_NOFOLLOW`` in one ``write``.
"""

from __future__ import annotations

import errno
import os
import stat
from typing import Literal, overload

from . import _platform, _sysio
from .errors import (
    ConcurrentModificationError,
    FileTooLargeError,
    MalformedConfigError,
    PathLike,
    SymlinkRefusedError,
    UnsafePathError,
)
from .paths import DirectoryCache, opened_directory, split_target, target_parts
from .records import record

TEMP_MARKER = ".elydora-tmp-"
"""Every temporary file the library creates has this in its name; recovery removes stale ones."""

_READ_FLAGS = os.O_RDONLY | _sysio.O_NOFOLLOW | _sysio.O_NONBLOCK
_FOLLOW_FLAGS = _READ_FLAGS & ~_sysio.O_NOFOLLOW


@record(frozen=True)
class PhysicalRead:
    """The bytes of a regular file together with the ``fstat`` of the very descriptor they came from."""

    data: bytes
    stat: os.stat_result


def temp_name(final_name: str) -> str:
    """A fresh, unpredictable temporary name in the target's directory."""
    # os.urandom is what secrets.token_hex reads; the secrets module itself (random, hmac) costs the
    # detached flusher a few ms on every start
    return f".{final_name[:80]}{TEMP_MARKER}{os.getpid()}-{os.urandom(6).hex()}"


def _refuse_non_regular(path: str, mode: int) -> None:
    if stat.S_ISLNK(mode):
        raise SymlinkRefusedError(path, "is a symbolic link; refusing to follow it")
    if stat.S_ISDIR(mode):
        raise UnsafePathError(path, "is a directory, expected a regular file")
    if not stat.S_ISREG(mode):
        raise UnsafePathError(path, "is not a regular file (FIFO, socket or device)")


def read_physical_stat(
    path: PathLike, *, max_bytes: int, allow_links: bool = False, cache: DirectoryCache | None = None
) -> PhysicalRead | None:
    """Read ``path`` physically; ``None`` when it does not exist. See the module docstring. ``cache``: the
    directories of a read-only pass (:class:`~elydora_config.paths.DirectoryCache`)."""
    return read_split(*target_parts(path), max_bytes=max_bytes, allow_links=allow_links, cache=cache)


def read_split(
    parent: str, name: str, full: str, *, max_bytes: int, allow_links: bool = False, cache: DirectoryCache | None = None
) -> PhysicalRead | None:
    """:func:`read_physical_stat` of a path given as its :func:`~elydora_config.paths.target_parts` (for a caller
    that split it already: a read-only pass keys its reads by the whole normalised path)."""
    try:
        with opened_directory(parent, allow_links=allow_links, cache=cache) as dfd:
            return read_at(dfd, name, full, max_bytes, allow_links)
    except FileNotFoundError:
        return None


_READ_ATTEMPTS = 5


def read_at(
    dfd: int, name: str, full: str, max_bytes: int, allow_links: bool = False, *, same_entry: bool = True
) -> PhysicalRead | None:
    """Like :func:`read_physical_stat` for ``name`` inside the already opened directory ``dfd``.

    A file atomically replaced by another program while we read it is read again (the bytes must come from
    the file the name points to); one that keeps changing raises :class:`ConcurrentModificationError`.
    ``same_entry=False``: the caller judges the file by the returned ``fstat`` (its inode, size) and the hash
    of the bytes against what it expects, so whether the name still points to it after the read is not asked
    (one ``stat`` less), and a first read that returns exactly the ``fstat`` size is taken as the whole file
    (no read more to see the end: any other outcome differs from what the caller expects anyway).
    """
    for _ in range(_READ_ATTEMPTS):
        try:
            return _read_once(dfd, name, full, max_bytes, allow_links, same_entry)
        except _Replaced:
            continue
    raise ConcurrentModificationError(full, "kept being replaced by another program while it was being read")


class _Replaced(Exception):
    """The directory entry no longer points to the file we opened."""


def _read_once(
    dfd: int, name: str, full: str, max_bytes: int, allow_links: bool, same_entry: bool
) -> PhysicalRead | None:
    try:
        fd = _sysio.open_file(name, _FOLLOW_FLAGS if allow_links else _READ_FLAGS, dir_fd=dfd)
    except FileNotFoundError:
        return None
    except IsADirectoryError:  # Windows opens no directory as a file (POSIX does, and fstat tells)
        raise UnsafePathError(full, "is a directory, expected a regular file") from None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise SymlinkRefusedError(full, "is a symbolic link; refusing to follow it") from None
        raise
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            _refuse_non_regular(full, info.st_mode)
        _check_size(full, info.st_size, max_bytes)
        data = _read_fd(fd, full, max_bytes, info.st_size, same_entry)
        if not same_entry:
            return PhysicalRead(data, info)
        try:
            entry = _platform.stat_at(name, dir_fd=dfd, follow_symlinks=allow_links)
        except FileNotFoundError:
            raise _Replaced from None
        if entry.st_ino != info.st_ino or entry.st_dev != info.st_dev:
            raise _Replaced
        return PhysicalRead(data, info)
    finally:
        _sysio.close(fd)


def _check_size(full: str, size: int, max_bytes: int) -> None:
    if size > max_bytes:
        raise FileTooLargeError(full, f"is {size} bytes, larger than the {max_bytes}-byte limit")


def _grew(full: str, max_bytes: int) -> FileTooLargeError:
    return FileTooLargeError(full, f"grew beyond the {max_bytes}-byte limit while being read")


def _read_fd(fd: int, full: str, max_bytes: int, size_hint: int, to_the_end: bool = True) -> bytes:
    """Read to the end: the size ``fstat`` gave plus one byte first (a file that did not grow needs no bigger
    buffer), then 64 KiB at a time; more than ``max_bytes`` raises. Not ``to_the_end``: a first read of
    exactly ``size_hint`` bytes is the result."""
    data = os.read(fd, min(size_hint + 1, max_bytes + 1))
    if not data or (not to_the_end and len(data) == size_hint):
        return data
    chunks = [data]
    total = len(data)
    want = 1 if total == size_hint else 1 << 16  # the expected size: one byte more only tells the end
    while True:
        if total > max_bytes:
            raise _grew(full, max_bytes)
        chunk = os.read(fd, min(want, max_bytes + 1 - total))
        if not chunk:
            break
        chunks.append(chunk)
        total += len(chunk)
        want = 1 << 16
    return b"".join(chunks) if len(chunks) != 1 else data


def decode_text(data: bytes, path: PathLike | None) -> str:
    """Strict UTF-8 decoding; the error names the file, line and column of the first bad byte."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise MalformedConfigError(path, "is not valid UTF-8", line=line, column=column) from None


@overload
def read_physical(
    path: PathLike,
    *,
    max_bytes: int,
    text: Literal[False] = ...,
    allow_links: bool = ...,
    cache: DirectoryCache | None = ...,
) -> bytes | None: ...
@overload
def read_physical(
    path: PathLike, *, max_bytes: int, text: Literal[True], allow_links: bool = ..., cache: DirectoryCache | None = ...
) -> str | None: ...
def read_physical(
    path: PathLike,
    *,
    max_bytes: int,
    text: bool = False,
    allow_links: bool = False,
    cache: DirectoryCache | None = None,
) -> bytes | str | None:
    """The content of a regular file (``None`` when absent), strictly UTF-8 decoded when ``text`` (``cache``: see
    :func:`read_physical_stat`)."""
    result = read_physical_stat(path, max_bytes=max_bytes, allow_links=allow_links, cache=cache)
    if result is None:
        return None
    return decode_text(result.data, path) if text else result.data


def existing_mode(dfd: int, name: str, full: str) -> int | None:
    """Permission bits of an existing regular file (``None`` if absent); links and specials refused."""
    try:
        info = _platform.stat_at(name, dir_fd=dfd, follow_symlinks=False)
    except FileNotFoundError:
        return None
    if _platform.is_link(info):
        raise SymlinkRefusedError(full, "is a symbolic link; refusing to follow it")
    _refuse_non_regular(full, info.st_mode)
    return _platform.file_mode(info.st_mode)


def create_temp(dfd: int, final_name: str, data: bytes, mode: int, *, sync: bool = True) -> str:
    """Create a ``0600`` temp file beside ``final_name``, write ``data``, optionally fsync, set ``mode``.

    Returns the temp file's name. On any failure the temp file is removed again.
    """
    name = temp_name(final_name)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _sysio.O_NOFOLLOW
    fd = _sysio.open_file(name, flags, 0o600, dir_fd=dfd)
    try:
        try:
            _sysio.write_all(fd, data)
            if sync:
                _sysio.fsync(fd)
            if mode != 0o600:
                _sysio.fchmod(fd, mode)
        finally:
            _sysio.close(fd)
    except BaseException:
        remove_quietly(dfd, name)
        raise
    return name


def remove_quietly(dfd: int, name: str) -> None:
    """Best-effort unlink used while cleaning up after another error."""
    try:  # not contextlib.suppress: a read-only command loads no contextlib
        _sysio.unlink(name, dir_fd=dfd)
    except OSError:
        return


def require_bytes(data: object, caller: str) -> None:
    """Refuse anything but ``bytes`` for file content, saying what to pass instead (a programming error)."""
    if not isinstance(data, bytes):
        hint = "; encode the text first, e.g. text.encode('utf-8')" if isinstance(data, str) else ""
        raise TypeError(f"{caller} takes the content as bytes, not {type(data).__name__}{hint}")


def write_atomic(path: PathLike, data: bytes, *, mode: int | None = None, allow_links: bool = False) -> None:
    """Durably replace (or create) ``path`` with ``data``; readers see the old or the new file, never a mix.

    ``mode=None`` keeps an existing file's permission bits; new files get ``0600``.
    """
    require_bytes(data, "write_atomic")
    parent, name = split_target(path)
    full = os.path.join(parent, name)
    with opened_directory(parent, allow_links=allow_links) as dfd:
        kept = existing_mode(dfd, name, full)
        final_mode = mode if mode is not None else (kept if kept is not None else 0o600)
        try:
            tmp = create_temp(dfd, name, data, final_mode)
        except OSError as exc:  # a read-only or full directory: name the file the caller asked for, not our temp
            _raise_naming(exc, full)
            raise
        try:
            _keep_owner_of(dfd, name, tmp)
            _sysio.rename(tmp, name, src_dir_fd=dfd, dst_dir_fd=dfd)
        except BaseException as exc:
            remove_quietly(dfd, tmp)
            if isinstance(exc, OSError):
                _raise_naming(exc, full)
            raise
        _sysio.fsync_dir(dfd)


def _raise_naming(exc: OSError, full: str) -> None:
    """Raise ``exc`` again naming ``full`` when it names a file relative to a directory descriptor (our temp
    file); return when it already names an absolute path (or no error number)."""
    if exc.errno is None or (isinstance(exc.filename, str) and os.path.isabs(exc.filename)):
        return
    raise OSError(exc.errno, exc.strerror, full) from exc


def _keep_owner_of(dfd: int, name: str, tmp: str) -> None:
    """Give ``tmp`` the owner and group of the existing ``name`` (EPERM when the caller may not)."""
    try:
        old = _platform.stat_at(name, dir_fd=dfd, follow_symlinks=False)
    except FileNotFoundError:
        return
    new = _platform.stat_at(tmp, dir_fd=dfd, follow_symlinks=False)
    if (old.st_uid, old.st_gid) != (new.st_uid, new.st_gid):
        _platform.chown_at(tmp, old.st_uid, old.st_gid, dir_fd=dfd, follow_symlinks=False)


def append_private(path: PathLike, line: bytes | str, *, allow_links: bool = False) -> None:
    """Append ``line`` to an owner-only file in a single ``O_APPEND`` write (created ``0600``).

    A ``str`` is UTF-8 encoded. An existing file readable by others is refused, not silently fixed.
    """
    data = line.encode("utf-8") if isinstance(line, str) else line
    parent, name = split_target(path)
    full = os.path.join(parent, name)
    with opened_directory(parent, allow_links=allow_links) as dfd:
        flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | _sysio.O_NOFOLLOW
        try:
            fd = _sysio.open_file(name, flags, 0o600, dir_fd=dfd)
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise SymlinkRefusedError(full, "is a symbolic link; refusing to follow it") from None
            raise
        try:
            info = os.fstat(fd)
            _refuse_non_regular(full, info.st_mode)
            if not _platform.is_private(info):
                raise UnsafePathError(full, "is readable or writable by other users; expected mode 0600")
            written = os.write(fd, data)
            if written != len(data):
                raise OSError(errno.EIO, f"short append to {full}")
        finally:
            _sysio.close(fd)
