"""elydora_config: transactional, syntax-preserving editing of configuration files other programs own.

The library knows nothing of AI agents: it offers physical file I/O (:mod:`.files`), snapshots
(:mod:`.snapshot`), a per-state-directory lock (:mod:`.lock`), all-or-nothing multi-file transactions with
crash recovery (:mod:`.transaction`, :mod:`.recovery`), syntax-preserving JSON/JSONC and TOML editors
(:mod:`.jsonc`, :mod:`.toml`), Ed25519 keys (:mod:`.keys`) and safe path handling (:mod:`.paths`).

The commit engine (:class:`Transaction`, :class:`Snapshot`, :func:`recover`, :func:`pending`) is imported
the first time one of its names is used, so that a command that only reads never loads it; ``dir()``,
``help()`` and type checkers see every name below.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from .errors import (
    ConcurrentModificationError,
    ConfigError,
    FileTooLargeError,
    ForeignOwnerError,
    InvalidKeyError,
    LockTimeoutError,
    MalformedConfigError,
    MissingDirectoryError,
    ReadOnlyFileError,
    RecoveryNeededError,
    RollbackIncompleteError,
    SymlinkRefusedError,
    UnsafePathError,
)
from .files import append_private, read_physical, write_atomic
from .jsonc import JSONC, JSONC_NO_TRAILING_COMMAS, STRICT_JSON, JsoncDocument
from .toml import TomlDocument

if TYPE_CHECKING:
    from .recovery import pending, recover
    from .snapshot import Snapshot
    from .transaction import Transaction

__all__ = [
    "JSONC",
    "JSONC_NO_TRAILING_COMMAS",
    "STRICT_JSON",
    "ConcurrentModificationError",
    "ConfigError",
    "FileTooLargeError",
    "ForeignOwnerError",
    "InvalidKeyError",
    "JsoncDocument",
    "LockTimeoutError",
    "MalformedConfigError",
    "MissingDirectoryError",
    "ReadOnlyFileError",
    "RecoveryNeededError",
    "RollbackIncompleteError",
    "Snapshot",
    "SymlinkRefusedError",
    "TomlDocument",
    "Transaction",
    "UnsafePathError",
    "append_private",
    "pending",
    "read_physical",
    "recover",
    "write_atomic",
]

_COMMIT_ENGINE = {
    "Snapshot": "elydora_config.snapshot",
    "Transaction": "elydora_config.transaction",
    "pending": "elydora_config.recovery",
    "recover": "elydora_config.recovery",
}
"""The commit engine's public names and their modules: the only names of the package imported on first use."""


def __getattr__(name: str) -> Any:
    """A name of the commit engine (PEP 562), imported on first use and kept."""
    home = _COMMIT_ENGINE.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = globals()[name] = getattr(importlib.import_module(home), name)
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
