"""Syntax-preserving JSON and JSONC: scan, locate, minimal text edits.

``JsoncDocument.parse(text, dialect)`` validates a text in one of the dialects :data:`STRICT_JSON`,
:data:`JSONC` or :data:`JSONC_NO_TRAILING_COMMAS`; ``set``, ``insert`` and ``remove`` edit it by splicing as
little text as possible, keeping comments, indentation and line endings.  See ``docs/editors.md``.
"""

from __future__ import annotations

from ._dialect import JSONC, JSONC_NO_TRAILING_COMMAS, STRICT_JSON, Dialect
from ._document import MISSING, JsoncDocument
from ._edits import Edit, Splice

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
