"""Finding an executable on a search path, as ``shutil.which`` does, without importing :mod:`shutil` (and
with it the compression modules) into read-only commands that look for agents' executables."""

from __future__ import annotations

import os


def which(name: str, path: str | None = None) -> str | None:
    """The first ``name`` on ``path`` (``os.pathsep``-separated; default ``PATH``) that is an executable
    file, or ``name`` itself when it contains a directory part and is one; ``None`` if there is none."""
    if os.name == "nt":  # PATHEXT and the current-directory rule: the standard library's version
        import shutil

        return shutil.which(name, path=path)
    if os.path.dirname(name):
        return name if _runnable(name) else None
    search = os.environ.get("PATH", os.defpath) if path is None else path
    for folder in search.split(os.pathsep):
        candidate = os.path.join(folder or os.curdir, name)
        if _runnable(candidate):
            return candidate
    return None


def _runnable(path: str) -> bool:
    return os.path.isfile(path) and os.access(path, os.X_OK)
