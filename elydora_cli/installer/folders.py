"""The folders an install creates for the agent's files, and their removal when an uninstall leaves them empty.

An install that writes a file into a folder the agent does not have yet (OpenCode's and Kilo's ``plugins/``,
Pi's ``extensions/``, Cline's ``hooks/``...) creates the missing folders; the manifest records them, and the
uninstall removes those that are empty once our files are gone, innermost first. A folder that holds anything
else (the agent's or the user's files) stays. The removal is best effort after the commit: an empty folder
changes nothing the agent reads.
"""

from __future__ import annotations

import os
from collections.abc import Iterable


def missing_folders(files: Iterable[os.PathLike[str] | str]) -> set[str]:
    """The folders that do not exist yet above each of ``files`` (the ones a commit writing them creates)."""
    missing: set[str] = set()
    for path in files:
        folder = os.path.dirname(os.fspath(path))
        while folder != os.path.dirname(folder) and not os.path.lexists(folder):
            missing.add(folder)
            folder = os.path.dirname(folder)
    return missing


def created_by(staged: Iterable[str], own: tuple[str, ...], earlier: Iterable[str]) -> list[str]:
    """The folders an install creates for the ``staged`` files outside the ``own`` roots (Elydora's state, which
    stays), with those ``earlier`` installs created."""
    roots = tuple(os.path.join(root, "") for root in own)
    return sorted(missing_folders(p for p in staged if not p.startswith(roots)) | set(earlier))


def remove_empty(folders: Iterable[os.PathLike[str] | str]) -> None:
    """Remove each of ``folders`` that is empty, innermost first (one that is not, or is gone, stays as it is)."""
    for folder in sorted({os.fspath(f) for f in folders}, key=lambda f: f.count(os.sep), reverse=True):
        try:  # not contextlib.suppress: status imports the installer, and loads no contextlib
            os.rmdir(folder)
        except OSError:
            continue
