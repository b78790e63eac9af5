"""Syntax-preserving JSON and JSONC: scan, locate, minimal text edits.

``JsoncDocument.parse(text, dialect)`` validates a text in one of the dialects :data:`STRICT_JSON`,
:data:`JSONC` or :data:`JSONC_NO_TRAILING_COMMAS`; ``set``, ``insert`` and ``remove`` edit it by splicing as
little text as possible, keeping comments, indentation and line endings.  See ``docs/editors.md``.

The names below are imported on first use, so that a reader that needs only data (:mod:`.readonly`) does not
load the editor.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import _lazy_exports

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
    name: f"{__name__}.{module}"
    for module, names in {
        "dialect": ("JSONC", "JSONC_NO_TRAILING_COMMAS", "STRICT_JSON", "Dialect"),
        "document": ("MISSING", "JsoncDocument"),
        "edits": ("Edit", "Splice"),
    }.items()
    for name in names
}
"""The module of each exported name."""

__getattr__ = _lazy_exports(__name__, _HOMES)


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
