"""Read-only TOML documents: the data of a text in the plain subset, decoded without the editor.

A pass that edits nothing needs only a file's data. When the text is in the subset of :mod:`.plain` (what our
installs write, and many small configs), :class:`ReadOnlyToml` answers ``value``, ``get``, ``has`` and ``text``
from that data by the editor's own rule (:mod:`.lookup`), and hands anything else (a span, an edit) to the
editor, :class:`.document.TomlDocument`, built on first use; any other text is parsed by the editor at once,
which reads the rest of TOML and reports errors with their line and column. As :mod:`..jsonc.readonly` does
for JSON.

Importing this module loads none of the editor's modules (nor :mod:`math`, :mod:`tomllib`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..readonlydoc import ReadOnlyDocument
from .lookup import lookup, missing, resolve
from .plain import plain_loads

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from ..errors import PathLike
    from .document import TomlDocument
    from .values import Key

BOM = "\ufeff"
"""A byte order mark, which a TOML text may start with (kept, not part of the data)."""


class ReadOnlyToml(ReadOnlyDocument):
    """A TOML document's data (see :class:`~elydora_config.readonlydoc.ReadOnlyDocument`), paths resolved by the
    editor's rule (:mod:`.lookup`), with the editor, :class:`.document.TomlDocument`, built only when needed."""

    @classmethod
    def parse(cls, text: str, path: PathLike | None = None) -> ReadOnlyToml:
        """``text`` as a read-only document: decoded by :func:`.plain.plain_loads` when it can be (a text of the
        subset nests two levels at most: the editor's nesting check has nothing to find), else parsed by the
        editor now (which raises :class:`~elydora_config.errors.MalformedConfigError` for an invalid text,
        naming ``path``)."""

        def editor() -> TomlDocument:
            from .document import TomlDocument

            return TomlDocument.parse(text, path=path)

        value = plain_loads(text[len(BOM) :] if text.startswith(BOM) else text)
        if value is not None:
            return cls(text, value, editor)
        doc = cls(text, {}, editor)
        doc._editor = editor()
        return doc

    def _found(self, path: Sequence[Key]) -> Any:
        norm, found = resolve(self._data, path)
        if found < len(norm):
            raise missing(norm, found)
        return lookup(self._data, norm)
