"""Syntax-preserving TOML editing, verified against ``tomllib``.

``TomlDocument.parse(text)`` keeps the text; ``.set``, ``.remove``, ``.insert`` and ``.append_table``
splice the minimal text and re-parse the result to make sure it holds exactly the intended data.
"""

from __future__ import annotations

from ._document import TomlDocument
from ._lookup import MissingPathError

__all__ = ["MissingPathError", "TomlDocument"]
