"""elydora_config: transactional, syntax-preserving editing of configuration files other programs own.

The library knows nothing of AI agents: it offers physical file I/O (:mod:`.files`), snapshots
(:mod:`.snapshot`), a per-state-directory lock (:mod:`.lock`), all-or-nothing multi-file transactions with
crash recovery (:mod:`.transaction`, :mod:`.recovery`), syntax-preserving JSON/JSONC and TOML editors
(:mod:`.jsonc`, :mod:`.toml`), Ed25519 keys (:mod:`.keys`) and safe path handling (:mod:`.paths`).

The editors (:class:`JsoncDocument` and its dialects, :class:`TomlDocument`) and the commit engine
(:class:`Transaction`, :class:`Snapshot`, :func:`recover`, :func:`pending`) are imported the first time one
of their names is used, so that a hook command that edits nothing and a command that only reads load neither;
``dir()``, ``help()`` and type checkers see every name below.
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

if TYPE_CHECKING:
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

_ON_FIRST_USE = {
    "JSONC": "elydora_config.jsonc",
    "JSONC_NO_TRAILING_COMMAS": "elydora_config.jsonc",
    "STRICT_JSON": "elydora_config.jsonc",
    "JsoncDocument": "elydora_config.jsonc",
    "TomlDocument": "elydora_config.toml",
    "Snapshot": "elydora_config.snapshot",
    "Transaction": "elydora_config.transaction",
    "pending": "elydora_config.recovery",
    "recover": "elydora_config.recovery",
}
"""The names of the editors and of the commit engine, with their modules: the library's only imports on first
use, with cryptography (:mod:`.keys`), tomllib, tomlkit and :mod:`datetime` (:mod:`.toml`: a parse outside the
plain subset, the fallback editor, a date value), structlog (:mod:`.log`) and ctypes (:mod:`._sysio`); each is
measured in ``benchmarks/README.md``."""


def __getattr__(name: str) -> Any:
    """A name of the editors or the commit engine (PEP 562), imported on first use and kept."""
    home = _ON_FIRST_USE.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = globals()[name] = getattr(importlib.import_module(home), name)
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
