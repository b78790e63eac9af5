"""Agent files with more than one name (hard links) are refused, not split.

Every write replaces a file by renaming a new one over it (that is what makes a commit all-or-nothing), so a
file that also lives under another name would keep its old content there: the two names, one file until then,
would silently become two. An install or uninstall that would change such a file refuses it and says how to
go on: make the other name a symbolic link (then ``--follow-symlinks``) or a copy.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from elydora_config.errors import UnsafePathError

if TYPE_CHECKING:
    from pathlib import Path


def refuse_hard_linked(path: Path, *, follow_symlinks: bool) -> None:
    """Raise :class:`UnsafePathError` when the existing file at ``path`` has other names."""
    try:
        links = (os.stat if follow_symlinks else os.lstat)(path).st_nlink
    except OSError:
        return  # absent (or unreadable: the transaction reports that)
    if links > 1:
        raise UnsafePathError(
            path,
            f"has {links} hard links (the same file under {links - 1} other name{'s' if links > 2 else ''}); "
            "rewriting it would give this name a new file and leave the other names with the old content. "
            "Replace the other name by a symbolic link to this one (then pass --follow-symlinks) or by a copy, "
            "and run the command again",
        )
