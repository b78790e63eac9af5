"""The dry run's unified diff of every staged file (secret files of the state directory named, not shown)."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from .. import identity

if TYPE_CHECKING:
    from elydora_config import Transaction

SECRET_FILES = {identity.PRIVATE_KEY, identity.CONFIG}


def unified_diff(tx: Transaction, before: dict[str, bytes | None]) -> str:
    import difflib

    parts = []
    for path in tx.staged_paths:
        new = tx.read(path)
        old = before.get(path)
        name = os.path.basename(path)
        if name in SECRET_FILES and "/.elydora/" in path:
            parts.append(
                f"--- {path}\n+++ {path}\n(secret file {'created' if old is None else 'changed'}; not shown)\n"
            )
            continue
        old_lines = (old or b"").decode("utf-8", "replace").splitlines(keepends=True)
        new_lines = (new or b"").decode("utf-8", "replace").splitlines(keepends=True)
        parts.append(
            "".join(
                difflib.unified_diff(
                    old_lines,
                    new_lines,
                    path if old is not None else "/dev/null",
                    path if new is not None else "/dev/null",
                )
            )
        )
    return "".join(parts)
