"""The owner-only, size-bounded ``error.log`` shared by every runtime component.

Lines are ``<UTC ISO time> [elydora-hook] <component>: <message>``. When the file exceeds 1 MiB it is
renamed to ``error.log.1`` (replacing the previous one) before the next append, so the two files never hold
more than about 2 MiB. Messages never contain secrets: callers pass only paths, codes and server messages.
"""

from __future__ import annotations

import os
import time

from elydora_config import _platform

from ..statefiles import ERROR_LOG

LIMIT = 1 << 20
_FLAGS = os.O_WRONLY | os.O_APPEND | os.O_CREAT | _platform.O_NOFOLLOW | _platform.O_CLOEXEC


def format_line(component: str, message: str, now: float | None = None) -> bytes:
    stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(now))
    text = " ".join(f"{component}: {message}".split())
    return f"{stamp} [elydora-hook] {text}\n".encode("utf-8", "replace")


def log_error(agent_dir: str, component: str, message: str) -> None:
    """Append one line (best effort: a broken error log must not stop the runtime)."""
    path = os.path.join(agent_dir, ERROR_LOG)
    try:
        try:
            if os.stat(path, follow_symlinks=False).st_size > LIMIT:
                os.replace(path, path + ".1")
        except FileNotFoundError:
            pass
        fd = _platform.open_at(path, _FLAGS, 0o600)
        try:
            if _platform.is_private(os.fstat(fd)):
                os.write(fd, format_line(component, message))
        finally:
            os.close(fd)
    except OSError:
        pass
