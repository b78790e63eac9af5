"""The error hierarchy of elydora_config: every error names a path and carries a one-line message.

``str(err)`` is the whole line a program shows: ``<path>: <message>`` (a parse error adds ``:<line>:<column>``
to the path); :attr:`ConfigError.message` is the problem alone, so that a front end that shows the file in a
field of its own (``{"file": ..., "message": ...}``) does not name it twice."""

from __future__ import annotations

import os

PathLike = str | os.PathLike[str]  # a union of types, not a string: nothing to resolve at run time


class ConfigError(Exception):
    """Base of every error the library raises on purpose.

    ``path`` is the file the problem is about (may be ``None`` for errors not tied to one file);
    ``reason`` is a short, secret-free, single-line description. ``opt_in`` names the library option that
    would have allowed what was refused (``None``: there is none), so a front end can name its own flag.
    ``str(err)`` is ``<path>: <reason>`` (the reason alone when there is no path).
    """

    opt_in: str | None = None

    def __init__(self, path: PathLike | None, reason: str) -> None:
        self.path = os.fspath(path) if path is not None else None
        self.reason = " ".join(str(reason).split())
        super().__init__(self._place() + self.reason)

    @property
    def message(self) -> str:
        """The problem in one line, without the file it is about (that is ``path``; ``str(err)`` gives
        both): the same text as ``reason``."""
        return self.reason

    def _place(self) -> str:
        """What ``str(err)`` puts before the message: ``<path>: ``, or nothing without a path."""
        return "" if self.path is None else f"{self.path}: "


class MalformedConfigError(ConfigError):
    """A configuration text could not be parsed (or an edit would make it invalid).

    ``str(err)`` is ``<path>:<line>:<column>: <reason>`` (``<text>`` stands for the path of an unnamed text;
    ``line`` and ``column`` are 1-based, 0 when the problem has no one place).
    """

    def __init__(self, path: PathLike | None, reason: str, *, line: int = 0, column: int = 0) -> None:
        self.line = line
        self.column = column
        super().__init__(path, reason)

    def _place(self) -> str:
        where = self.path if self.path is not None else "<text>"
        if self.line:
            where = f"{where}:{self.line}:{self.column}"
        return f"{where}: "


class ConcurrentModificationError(ConfigError):
    """A file changed between the moment we read it and the moment we were about to replace it."""


class UnsafePathError(ConfigError):
    """A path is a link, not a regular file, has an unsafe name, or is otherwise refused."""


class MissingDirectoryError(ConfigError, FileNotFoundError):
    """A directory that a file is read from or written into does not exist; the library never creates one
    implicitly (create it first: ``mkdir -p``, :func:`elydora_config.paths.ensure_directory` or
    :meth:`elydora_config.transaction.Transaction.mkdir`).

    Also a :class:`FileNotFoundError`, so code that treats an absent file as ``except FileNotFoundError``
    keeps working.
    """


class SymlinkRefusedError(UnsafePathError):
    """A path component or the file itself is a symbolic link and links are not followed."""

    opt_in = "follow_symlinks"


class ReadOnlyFileError(UnsafePathError):
    """The file's permission bits do not let the caller write it; it is not replaced without an opt-in."""

    opt_in = "allow_read_only"


class ForeignOwnerError(UnsafePathError):
    """Writing here would leave files owned by the caller in a tree that belongs to another user."""


class FileTooLargeError(ConfigError):
    """A file exceeds the size cap the caller gave."""


class LockTimeoutError(ConfigError):
    """The state-directory lock could not be taken in time."""

    def __init__(self, path: PathLike | None, reason: str, *, holder_pid: int | None = None) -> None:
        self.holder_pid = holder_pid
        super().__init__(path, reason)


class RollbackIncompleteError(ConfigError):
    """A rollback step could not be done safely; the artifacts to finish by hand are kept."""

    def __init__(self, path: PathLike | None, reason: str, *, recovery_path: PathLike | None = None) -> None:
        self.recovery_path = os.fspath(recovery_path) if recovery_path is not None else None
        super().__init__(path, reason)


class RecoveryNeededError(ConfigError):
    """A journal from an interrupted transaction exists; run recovery first."""


class InvalidKeyError(ConfigError):
    """A key encoding is not canonical or not a valid Ed25519 seed."""
