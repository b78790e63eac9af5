"""elydora_config: transactional, syntax-preserving editing of configuration files other programs own.

The library knows nothing of AI agents: it offers physical file I/O (:mod:`.files`), snapshots
(:mod:`.snapshot`), a per-state-directory lock (:mod:`.lock`), all-or-nothing multi-file transactions with
crash recovery (:mod:`.transaction`, :mod:`.recovery`), syntax-preserving JSON/JSONC and TOML editors
(:mod:`.jsonc`, :mod:`.toml`), Ed25519 keys (:mod:`.keys`) and safe path handling (:mod:`.paths`).
Editors are imported lazily so that ``import elydora_config`` stays cheap.
"""

from __future__ import annotations

from typing import Any

from .errors import (
    ConcurrentModificationError,
    ConfigError,
    FileTooLargeError,
    InvalidKeyError,
    LockTimeoutError,
    MalformedConfigError,
    RecoveryNeededError,
    RollbackIncompleteError,
    UnsafePathError,
)
from .files import append_private, read_physical, write_atomic
from .recovery import pending, recover
from .snapshot import Snapshot
from .transaction import Transaction

__all__ = [
    "JSONC",
    "STRICT_JSON",
    "ConcurrentModificationError",
    "ConfigError",
    "FileTooLargeError",
    "InvalidKeyError",
    "JsoncDocument",
    "LockTimeoutError",
    "MalformedConfigError",
    "RecoveryNeededError",
    "RollbackIncompleteError",
    "Snapshot",
    "TomlDocument",
    "Transaction",
    "UnsafePathError",
    "append_private",
    "pending",
    "read_physical",
    "recover",
    "write_atomic",
]

_LAZY = {
    "JsoncDocument": "elydora_config.jsonc",
    "STRICT_JSON": "elydora_config.jsonc",
    "JSONC": "elydora_config.jsonc",
    "TomlDocument": "elydora_config.toml",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'elydora_config' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)
