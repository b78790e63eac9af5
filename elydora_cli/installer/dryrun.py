"""The dry run's diff: the library's :meth:`~elydora_config.Transaction.diff`, the secret files of the state
directory named, not shown."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from .. import identity

if TYPE_CHECKING:
    from elydora_config import Transaction

SECRET_FILES = {identity.PRIVATE_KEY, identity.CONFIG}

DRY_RUN_MAX_BYTES = 256 << 20
"""The largest file a dry run reads to diff it (the agents' settings files are far smaller)."""


def is_secret(path: str) -> bool:
    """Whether ``path`` is a key or configuration file of a state directory (its bytes are never printed)."""
    return os.path.basename(path) in SECRET_FILES and f"{os.sep}.elydora{os.sep}" in path


def unified_diff(tx: Transaction) -> str:
    """The staged changes of ``tx`` as a unified diff, secrets named only."""
    return tx.diff(hidden=is_secret, max_bytes=DRY_RUN_MAX_BYTES)
