"""elydora_config: transactional, syntax-preserving editing of configuration files other programs own.

The library knows nothing of AI agents: it offers physical file I/O (:mod:`.files`), snapshots
(:mod:`.snapshot`), a per-state-directory lock (:mod:`.lock`), all-or-nothing multi-file transactions with
crash recovery (:mod:`.transaction`, :mod:`.recovery`), syntax-preserving JSON/JSONC and TOML editors
(:mod:`.jsonc`, :mod:`.toml`), Ed25519 keys (:mod:`.keys`) and safe path handling (:mod:`.paths`).
Everything but the errors is imported on first use, so that ``import elydora_config`` stays cheap (the hook
commands run on every tool call of the user's agent).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

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

if TYPE_CHECKING:
    from typing import Any

    from .files import append_private, read_physical, write_atomic
    from .jsonc import JSONC, JSONC_NO_TRAILING_COMMAS, STRICT_JSON, JsoncDocument
    from .recovery import pending, recover
    from .snapshot import Snapshot
    from .toml import TomlDocument
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

_LAZY = {
    "append_private": "elydora_config.files",
    "read_physical": "elydora_config.files",
    "write_atomic": "elydora_config.files",
    "pending": "elydora_config.recovery",
    "recover": "elydora_config.recovery",
    "Snapshot": "elydora_config.snapshot",
    "Transaction": "elydora_config.transaction",
    "JsoncDocument": "elydora_config.jsonc",
    "STRICT_JSON": "elydora_config.jsonc",
    "JSONC": "elydora_config.jsonc",
    "JSONC_NO_TRAILING_COMMAS": "elydora_config.jsonc",
    "TomlDocument": "elydora_config.toml",
}


if TYPE_CHECKING:
    from collections.abc import Callable, MutableMapping


def _lazy_exports(namespace: MutableMapping[str, Any], homes: dict[str, str]) -> Callable[[str], Any]:
    """The module ``__getattr__`` (PEP 562) of the module whose globals are ``namespace``: each name of ``homes``
    imported on first use from the module named there, and kept in ``namespace`` (later reads are plain)."""

    def load(name: str) -> Any:
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {namespace['__name__']!r} has no attribute {name!r}")
        import importlib

        value = namespace[name] = getattr(importlib.import_module(home), name)
        return value

    return load


__getattr__ = _lazy_exports(globals(), _LAZY)
