"""Syntax-preserving TOML editing, verified against ``tomllib``.

``TomlDocument.parse(text)`` keeps the text; ``.set``, ``.remove``, ``.insert`` and ``.append_table``
splice the minimal text and re-parse the result to make sure it holds exactly the intended data.

The names below are imported on first use, so that a reader that needs only data (:mod:`.readonly`) does not
load the editor.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import _lazy_exports

if TYPE_CHECKING:
    from .document import TomlDocument
    from .lookup import MissingPathError

__all__ = ["MissingPathError", "TomlDocument"]

_HOMES = {
    "MissingPathError": "elydora_config.toml.lookup",
    "TomlDocument": "elydora_config.toml.document",
}
"""The module of each exported name."""

__getattr__ = _lazy_exports(globals(), _HOMES)


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
