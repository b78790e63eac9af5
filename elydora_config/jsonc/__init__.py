"""Syntax-preserving JSON and JSONC: scan, locate, minimal text edits.

``JsoncDocument.parse(text, dialect)`` validates a text in one of the dialects :data:`STRICT_JSON`,
:data:`JSONC` or :data:`JSONC_NO_TRAILING_COMMAS`; ``set``, ``insert`` and ``remove`` edit it by splicing as
little text as possible, keeping comments, indentation and line endings.  See ``docs/editors.md``.

The names below are imported on first use, so that a reader that needs only data (:mod:`.readonly`) does not
load the editor.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .dialect import JSONC, JSONC_NO_TRAILING_COMMAS, STRICT_JSON, Dialect
    from .document import MISSING, JsoncDocument
    from .edits import Edit, Splice

__all__ = [
    "JSONC",
    "JSONC_NO_TRAILING_COMMAS",
    "MISSING",
    "STRICT_JSON",
    "Dialect",
    "Edit",
    "JsoncDocument",
    "Splice",
]

_HOMES = {
    "JSONC": "dialect",
    "JSONC_NO_TRAILING_COMMAS": "dialect",
    "STRICT_JSON": "dialect",
    "Dialect": "dialect",
    "MISSING": "document",
    "JsoncDocument": "document",
    "Edit": "edits",
    "Splice": "edits",
}
"""The module of each exported name (``elydora_config.jsonc.<module>``)."""


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value  # later reads are plain attribute reads
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
