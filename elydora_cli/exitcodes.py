"""The CLI's exit codes (documented in the README), the usage error and the mapping of errors to codes.

Kept here, below the entry point, so that commands and the installer raise :class:`UsageError` without
importing ``main``.
"""

from __future__ import annotations

OK = 0
UNHEALTHY = 1  # unhealthy status, refused operation, or an error in a file
USAGE = 2  # bad flags or arguments
CONFLICT = 3  # a concurrent change was detected or the state lock is held
RECOVERY = 4  # an interrupted transaction needs `elydora recover`
INTERRUPTED = 130


class UsageError(Exception):
    """A bad flag or argument combination detected after parsing."""


def exit_code_for(exc: BaseException) -> int:
    from elydora_config import errors

    if isinstance(exc, (errors.ConcurrentModificationError, errors.LockTimeoutError)):
        return CONFLICT
    if isinstance(exc, (errors.RecoveryNeededError, errors.RollbackIncompleteError)):
        return RECOVERY
    if isinstance(exc, UsageError):
        return USAGE
    return UNHEALTHY


def describe_error(exc: BaseException) -> str:
    from elydora_config.errors import ConfigError

    if isinstance(exc, ConfigError):
        return exc.message
    if isinstance(exc, OSError):
        where = f"{exc.filename}: " if exc.filename else ""
        return f"{where}{exc.strerror or exc}"
    return f"{type(exc).__name__}: {exc}"
