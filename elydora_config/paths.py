"""Safe path components and link-refusing directory traversal.

``open_directory`` walks a directory path one component at a time with ``O_NOFOLLOW|O_DIRECTORY``, so a
component that is a symbolic link is refused (unless the caller opts in) and the returned descriptor is the
physical directory that was checked: there is no window in which a link can be swapped in.
"""

from __future__ import annotations

import errno
import os

from . import _platform, _sysio
from .errors import MissingDirectoryError, PathLike, SymlinkRefusedError, UnsafePathError

TRANSACTIONS_DIR = "transactions"
JOURNAL_SUFFIX = ".journal"
"""The state directory's sub-directory of transaction journals and rollback copies."""

_WINDOWS_DEVICES = frozenset(
    ["CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$"]
    + [f"COM{i}" for i in "123456789¹²³"]
    + [f"LPT{i}" for i in "123456789¹²³"]
)
_FORBIDDEN = frozenset(chr(code) for code in range(0x20)) | frozenset('\x7f<>:"|?*/\\')
"""Characters no safe name holds: control characters, path separators and what Windows reserves."""
_DIR_FLAGS = os.O_RDONLY | _sysio.O_DIRECTORY | _sysio.O_CLOEXEC


def check_safe_name(name: str, *, what: str = "name") -> str:
    """Return ``name`` when it is one safe path component on every platform, else raise UnsafePathError."""
    reason = unsafe_name_reason(name)
    if reason:
        raise UnsafePathError(None, f"unsafe {what} {name!r}: {reason}")
    return name


def unsafe_name_reason(name: str) -> str | None:
    """Why ``name`` is not a safe single path component, or ``None`` when it is."""
    if not name:
        return "it is empty"
    if name in (".", ".."):
        return "it is a relative directory reference"
    if not _FORBIDDEN.isdisjoint(name):
        char = next(c for c in name if c in _FORBIDDEN)
        if char in "/\\":
            return "it contains a path separator"
        if ord(char) < 0x20 or char == "\x7f":
            return "it contains a control character"
        return f"it contains the reserved character {char!r}"
    if name[-1] in ". ":
        return "it ends with a dot or a space"
    stem = name.split(".", 1)[0].rstrip(" ").upper()
    if stem in _WINDOWS_DEVICES:
        return "it is a reserved Windows device name"
    return None


def _components(path: str) -> tuple[str, list[str]]:
    return _platform.split_root(os.path.abspath(path))


def open_directory(path: PathLike, *, allow_links: bool = False, one_call: bool = False) -> int:
    """Open the directory ``path`` and return its descriptor (caller closes it).

    Without ``allow_links`` every component is opened relative to its parent with ``O_NOFOLLOW``; a
    component that is a symbolic link raises :class:`UnsafePathError` naming it. ``one_call``: first try
    Linux ``openat2`` with ``RESOLVE_NO_SYMLINKS``, the same check in one system call (it loads ``ctypes``:
    for writers, not for read-only commands); on any error the walk runs and reports it precisely.
    """
    text = os.fspath(path)
    if one_call and not allow_links:
        try:
            return _sysio.open_file(text if text[:1] == os.sep else os.path.abspath(text), _DIR_FLAGS, no_links=True)
        except OSError:
            pass
    if allow_links:
        try:
            return _sysio.open_file(text, _DIR_FLAGS)
        except NotADirectoryError:
            raise UnsafePathError(text, "is not a directory") from None
        except FileNotFoundError:
            raise _missing(text, text) from None
    root, parts = _components(text)
    fd = _sysio.open_file(root, _DIR_FLAGS)
    walked = root
    try:
        for part in parts:
            walked = _child(walked, part)
            try:
                child = _sysio.open_file(part, _DIR_FLAGS | _sysio.O_NOFOLLOW, dir_fd=fd)
            except FileNotFoundError:
                raise _missing(text, walked) from None
            except OSError as exc:
                _raise_for_component(exc, walked, part, fd)
                raise
            _sysio.close(fd)
            fd = child
    except BaseException:
        _sysio.close(fd)
        raise
    return fd


def _child(directory: str, name: str) -> str:
    """``os.path.join(directory, name)`` for a normalised directory and a plain name (a walk's next step)."""
    return directory + name if directory[-1] == os.sep else directory + os.sep + name


def _missing(requested: str, first_missing: str) -> MissingDirectoryError:
    full = os.path.abspath(requested)
    where = "" if os.path.abspath(first_missing) == full else f" ({os.path.abspath(first_missing)} is missing)"
    return MissingDirectoryError(
        full, f"no such directory{where}; create it first (mkdir -p, or Transaction.mkdir before the write)"
    )


def _raise_for_component(exc: OSError, walked: str, part: str, parent_fd: int) -> None:
    if exc.errno not in (errno.ELOOP, errno.ENOTDIR):
        return
    try:
        info = _platform.stat_at(part, dir_fd=parent_fd, follow_symlinks=False)
    except OSError:
        return
    if _platform.is_link(info):
        raise SymlinkRefusedError(walked, "is a symbolic link; refusing to follow it") from None
    raise UnsafePathError(walked, "is not a directory") from None


class DirectoryCache:
    """Directories opened once, for a read-only pass over many files (``elydora status``): the caller holds it
    (``with DirectoryCache() as cache:``) and hands it to each read (:class:`opened_directory`,
    :func:`~elydora_config.files.read_physical`).

    Every directory a read walks link-free stays open until the block ends, and a later walk continues from the
    deepest one already open, so each directory is opened once (with ``O_NOFOLLOW``, relative to its checked
    parent) instead of once per file read in it. A descriptor is the physical directory that was checked when
    first opened: a link swapped in later is never followed. A walk that finds a directory missing raises what
    :func:`open_directory` raises, and that directory (with every one below it) is missing for the rest of the
    block; a walk that fails otherwise falls back to :func:`open_directory`, which reports the failure
    precisely. Writers never use one."""

    __slots__ = ("_fds", "_gone", "_missing")

    def __init__(self) -> None:
        self._fds: dict[str, int] = {}  # open directories, by absolute path
        self._missing: dict[str, tuple[str | None, str]] = {}  # path -> the MissingDirectoryError of its walk
        self._gone: set[str] = set()  # directories a walk found missing (absolute paths)

    def __enter__(self) -> DirectoryCache:
        return self

    def __exit__(self, *exc: object) -> None:
        fds, self._fds = self._fds, {}
        self._missing.clear()
        self._gone.clear()
        for fd in fds.values():
            _sysio.close(fd)

    def open(self, path: str, one_call: bool) -> tuple[int, bool]:
        """A descriptor of the directory ``path`` and whether the caller must close it: the kept one (walked
        and kept now if need be), or, when the kept walk fails other than on a missing directory, one from
        :func:`open_directory`, which reports the failure precisely. A missing directory raises what
        :func:`open_directory` raises, without a second walk, and stays missing for the block (with every
        directory below it)."""
        missing = self._missing.get(path)
        if missing is not None:  # a walk of this block found it missing: it stays so for the block
            raise MissingDirectoryError(*missing)
        fd = self._walk(path)
        if fd is not None:
            return fd, False
        try:
            return open_directory(path, one_call=one_call), True
        except MissingDirectoryError as exc:
            self._missing[path] = (exc.path, exc.reason)
            raise

    def _walk(self, path: str) -> int | None:
        """The kept descriptor of ``path``, walking (and keeping) what is not open yet; ``None`` on an error
        other than a missing directory, which raises what :func:`open_directory` raises and is remembered."""
        fds = self._fds
        fd = fds.get(path)  # most callers pass a normalised absolute path, as the walk keeps them
        if fd is not None:
            return fd
        absolute = os.path.abspath(path)
        fd = fds.get(absolute)
        if fd is not None:
            return fd
        walked, parts = _platform.split_root(absolute)
        try:
            fd = fds.get(walked)
            if fd is None:
                fd = fds[walked] = _sysio.open_file(walked, _DIR_FLAGS)
            for part in parts:
                parent, walked = walked, _child(walked, part)
                child = fds.get(walked)
                if child is None:
                    if walked in self._gone:
                        raise self._missing_below(path, walked)
                    try:
                        child = _sysio.open_file(part, _DIR_FLAGS | _sysio.O_NOFOLLOW, dir_fd=fd)
                    except FileNotFoundError:
                        if not _still_named(parent, fd):  # the kept parent was moved away: walk afresh
                            return None
                        self._gone.add(walked)
                        raise self._missing_below(path, walked) from None
                    fds[walked] = child
                fd = child
        except MissingDirectoryError:
            raise
        except OSError:
            return None
        return fd

    def _missing_below(self, path: str, gone: str) -> MissingDirectoryError:
        """The error of :func:`open_directory` for ``path`` whose walk found ``gone`` missing, remembered."""
        error = _missing(path, gone)
        self._missing[path] = (error.path, error.reason)
        return error


def _still_named(path: str, fd: int) -> bool:
    """Whether ``path`` names (without following a link at its end) the directory open as ``fd``."""
    try:
        entry = _platform.stat_at(path, follow_symlinks=False)
        opened = _platform.stat_at(".", dir_fd=fd, follow_symlinks=False)  # the layer's descriptor (fstat on POSIX)
    except OSError:
        return False
    return os.path.samestat(entry, opened)


class opened_directory:  # lower case: used as the function it was, ``with opened_directory(path) as fd``
    """Context manager around :func:`open_directory` (with ``cache``: the cache's kept descriptor, left open).

    A class rather than a :mod:`contextlib` generator: a ``status`` enters one for every file it reads. The
    directory is opened when the ``with`` statement evaluates it."""

    __slots__ = ("_fd", "_owned")

    def __init__(
        self, path: PathLike, *, allow_links: bool = False, one_call: bool = False, cache: DirectoryCache | None = None
    ) -> None:
        if cache is None or allow_links:
            self._fd, self._owned = open_directory(path, allow_links=allow_links, one_call=one_call), True
        else:
            self._fd, self._owned = cache.open(os.fspath(path), one_call)

    def __enter__(self) -> int:
        return self._fd

    def __exit__(self, *exc: object) -> None:
        if self._owned:
            _sysio.close(self._fd)


def ensure_directory(path: PathLike, *, mode: int = 0o700, allow_links: bool = False) -> list[str]:
    """Create ``path`` and any missing parents physically (no component may be a link).

    Returns the directories that were created, outermost first. Each new directory's parent is fsynced so the
    creation is durable.
    """
    text = os.path.abspath(os.fspath(path))
    missing: list[str] = []
    probe = text
    while not os.path.lexists(probe):
        missing.append(probe)
        parent = os.path.dirname(probe)
        if parent == probe:
            break
        probe = parent
    created: list[str] = []
    for directory in reversed(missing):
        parent, name = os.path.split(directory)
        with opened_directory(parent, allow_links=allow_links) as pfd:
            try:
                _sysio.mkdir(name, mode, dir_fd=pfd)
            except FileExistsError:
                pass
            else:
                created.append(directory)
                _sysio.fsync_dir(pfd)
    # Validate the whole chain (including pre-existing parts) without following links.
    with opened_directory(text, allow_links=allow_links):
        pass
    return created


def split_target(path: PathLike) -> tuple[str, str]:
    """Split an absolute-ised file path into (parent directory, safe final name)."""
    parent, name, _ = target_parts(path)
    return parent, name


def target_parts(path: PathLike) -> tuple[str, str, str]:
    """``(parent directory, final name, the whole normalised absolute path)`` of a file path (the last is what
    joining the first two gives)."""
    text = os.path.abspath(os.fspath(path))
    parent, name = os.path.split(text)
    if not name:
        raise UnsafePathError(text, "is a directory path, not a file")
    return parent, name, text


def pending_journals(txdir: str) -> list[str]:
    """The journal file names in a transactions directory, oldest first (none when it does not exist): cheap
    enough for a read-only probe, which then needs :func:`elydora_config.recovery.pending` only if any."""
    try:
        names = os.listdir(txdir)
    except FileNotFoundError:
        return []
    return sorted(n for n in names if n.endswith(JOURNAL_SUFFIX))
