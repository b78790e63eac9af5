"""Where single-target commits stage temp files, so that recovery can find what a crash left there.

A single-target commit writes no journal (see ``_single``), so nothing would tell recovery in which directory a
killed commit left its temp file. ``transactions/temp-dirs`` lists every directory in which this state
directory's single-target commits ever staged one, one JSON string per line; a directory is added (file and
``transactions/`` fsynced) before the first temp file is created in it, so the list is durable before any temp
file it covers can exist. It only grows, and it changes only on the first commit into a new directory; a
process that has read it sees from one ``stat`` whether it is still that version (then it is not read again).

Temp files of single-target commits carry the state directory's *tag* (a hash of its real path) after the
PID: ``.<name>.elydora-tmp-<pid>-<tag>-<random>``. Every such commit holds the state lock while its temp file
exists, so under that lock recovery removes every tagged temp file in the listed directories, whatever its PID
(after a power cut PIDs are reused), and untagged ones only when their process is gone (``write_atomic``
calls, other state directories).
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
from collections.abc import Iterable

from . import _platform, _sysio
from .errors import PathLike
from .files import TEMP_MARKER

TEMP_DIRS = "temp-dirs"
"""In ``transactions/``: the directories where single-target commits stage temp files."""

_MAX_BYTES = 1 << 20

_Identity = tuple[int, int, int, int, int]
_seen: dict[tuple[int, int], tuple[_Identity, frozenset[bytes]]] = {}
"""By device and inode: the lines of the list as this process last read it, with the file's identity then
(device, inode, size, modification and change times); an unchanged list is not read again on every commit."""


def state_tag(state_dir: str, *, resolved: bool = False) -> str:
    """A short tag naming this state directory (from its real path, whichever links lead to it).

    ``resolved``: ``state_dir`` is known to be its real path already (an absolute path whose components were
    opened without following links), which saves resolving it again on every commit.
    """
    return _tag_of(state_dir if resolved else os.path.realpath(state_dir))


@functools.lru_cache(maxsize=64)
def _tag_of(real: str) -> str:
    """The tag of a real path (a pure function of it: the last few are kept)."""
    return hashlib.blake2b(os.fsencode(real), digest_size=4).hexdigest()


def _identity(info: os.stat_result) -> _Identity:
    return (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)


def _read(txfd: int) -> bytes | None:
    try:
        fd = _sysio.open_file(TEMP_DIRS, os.O_RDONLY | _sysio.O_NOFOLLOW, dir_fd=txfd)
    except FileNotFoundError:
        return None
    try:
        identity = _identity(os.fstat(fd))
        data = os.read(fd, min(max(identity[2], 0) + 1, _MAX_BYTES))
        if len(data) == identity[2]:
            _seen[identity[:2]] = (identity, frozenset(data.splitlines()))
        return data
    finally:
        _sysio.close(fd)


def _known(txfd: int, line: bytes) -> bool:
    """Whether the list, unchanged since this process last read it, already holds ``line`` (one ``stat``)."""
    try:
        info = _platform.stat_at(TEMP_DIRS, dir_fd=txfd, follow_symlinks=False)
    except OSError:
        return False
    identity = _identity(info)
    seen = _seen.get(identity[:2])
    return seen is not None and seen[0] == identity and line in seen[1]


def listed(txfd: int) -> list[str]:
    """The directories of the list; a torn last line (power lost during an append) is skipped."""
    found = []
    for line in (_read(txfd) or b"").splitlines():
        with contextlib.suppress(ValueError):
            value = json.loads(line)
            if isinstance(value, str):
                found.append(value)
    return found


@functools.lru_cache(maxsize=64)
def _line_of(directory: str) -> bytes:
    """The list's line for ``directory`` (a pure function of the name: the last few are kept)."""
    return json.dumps(directory).encode("ascii")


def register(txfd: int, directory: str) -> None:
    """Make sure ``directory`` is durably on the list before a temp file is created in it."""
    line = _line_of(directory)
    if _known(txfd, line):
        return
    data = _read(txfd)
    if data is not None and line in data.splitlines():
        return
    prefix = b"\n" if data and not data.endswith(b"\n") else b""  # never glue onto a torn line
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | _sysio.O_NOFOLLOW
    fd = _sysio.open_file(TEMP_DIRS, flags, 0o600, dir_fd=txfd)
    try:
        _sysio.write_all(fd, prefix + line + b"\n")
        _sysio.fsync(fd)
    finally:
        _sysio.close(fd)
    _sysio.fsync_dir(txfd)  # the file's own entry too (it may have been created now, or by a killed commit)


def tagged_temp_name(final_name: str, tag: str) -> str:
    """A fresh temp name beside ``final_name`` that recovery can attribute to this state directory."""
    return f".{final_name[:80]}{TEMP_MARKER}{os.getpid()}-{tag}-{os.urandom(6).hex()}"


def remove_stale_temps(scan_dirs: Iterable[PathLike], tag: str | None = None) -> None:
    """Remove ``*.elydora-tmp-<pid>-*`` files whose process is gone, and (under the state lock) every temp
    file carrying ``tag``."""
    for directory in scan_dirs:
        try:
            names = os.listdir(directory)
        except (FileNotFoundError, NotADirectoryError):
            continue
        for name in names:
            _, marker, rest = name.partition(TEMP_MARKER)
            pid, _, tail = rest.partition("-")
            if not marker or not pid.isdigit():
                continue
            ours = tag is not None and tail.startswith(tag + "-")
            if ours or not _platform.pid_alive(int(pid)):
                with contextlib.suppress(OSError):
                    _sysio.unlink(os.path.join(os.fspath(directory), name))
