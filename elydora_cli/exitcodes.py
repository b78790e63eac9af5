"""The CLI's exit codes (documented in the README), the usage error and the mapping of errors to codes.

Kept here, below the entry point, so that commands and the installer raise :class:`UsageError` without
importing ``main``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from elydora_config import errors
from elydora_config.errors import ConfigError, RecoveryNeededError

from .optins import hint_for
from .pathtext import shown, undecodable
from .recovery_hint import command_for_journal

if TYPE_CHECKING:
    from typing import Any

OK = 0
UNHEALTHY = 1  # unhealthy status, refused operation, or an error in a file
USAGE = 2  # bad flags or arguments
CONFLICT = 3  # a concurrent change was detected or the state lock is held
RECOVERY = 4  # an interrupted transaction needs `elydora recover`
INTERRUPTED = 130
PIPE_CLOSED = 141  # the reader of stdout went away (`elydora ... | head`): 128 + SIGPIPE, as a shell shows git's


class UsageError(Exception):
    """A bad flag or argument combination detected after parsing."""


def exit_code_for(exc: BaseException) -> int:
    if isinstance(exc, (errors.ConcurrentModificationError, errors.LockTimeoutError)):
        return CONFLICT
    if isinstance(exc, (errors.RecoveryNeededError, errors.RollbackIncompleteError)):
        return RECOVERY
    if isinstance(exc, UsageError):  # the commands turn an unknown provider id they were given into one
        return USAGE
    return UNHEALTHY


def describe_error(exc: BaseException) -> str:
    """The error in the user's words, on one line (a path's undecodable bytes and control characters escaped)."""
    return shown(_described(exc))


def _described(exc: BaseException) -> str:
    if isinstance(exc, ConfigError):
        if isinstance(exc, RecoveryNeededError) and "elydora recover" not in str(exc):
            return f"{exc.path}: is an interrupted transaction; run `{command_for_journal(str(exc.path))}` first"
        return str(exc) + hint_for(exc)
    if isinstance(exc, UsageError):
        return str(exc)
    if isinstance(exc, OSError):
        where = f"{exc.filename}: " if exc.filename else ""
        return f"{where}{exc.strerror or exc}"
    return f"{type(exc).__name__}: {exc}"


def failure(provider: str | None, exc: BaseException) -> dict[str, Any]:
    """One failure as every ``--json`` output lists it: provider, file and message (a file whose path is not UTF-8
    as :func:`~.pathtext.shown` writes it: a lone surrogate escape is not valid JSON text for strict readers)."""
    path = getattr(exc, "path", None) or getattr(exc, "filename", None)
    file = None if path is None else str(path)
    if file is not None and undecodable(file):
        file = shown(file)
    return {"provider": provider, "file": file, "message": describe_error(exc)}


def suggestion(word: str, choices: Sequence[str]) -> str:
    """`` (did you mean 'x'?)`` for a near miss of ``choices``, else an empty string."""
    import difflib

    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""
