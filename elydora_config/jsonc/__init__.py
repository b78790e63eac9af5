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
    "JSONC": "elydora_config.jsonc.dialect",
    "JSONC_NO_TRAILING_COMMAS": "elydora_config.jsonc.dialect",
    "STRICT_JSON": "elydora_config.jsonc.dialect",
    "Dialect": "elydora_config.jsonc.dialect",
    "MISSING": "elydora_config.jsonc.document",
    "JsoncDocument": "elydora_config.jsonc.document",
    "Edit": "elydora_config.jsonc.edits",
    "Splice": "elydora_config.jsonc.edits",
}
"""The module of each exported name."""

__getattr__ = _lazy_exports(globals(), _HOMES)


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
