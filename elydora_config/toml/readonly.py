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

from ..typecheck import TYPE_CHECKING
from .lookup import MISSING, copy_data, get, has
from .plain import plain_loads

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any

    from ..errors import PathLike
    from .document import TomlDocument
    from .values import Key

BOM = "\ufeff"
"""A byte order mark, which a TOML text may start with (kept, not part of the data)."""


class ReadOnlyToml:
    """A TOML document's data, with the editor built only when something needs it.

    ``editor`` builds the editor of ``text`` (called at most once); from then on the editor answers every
    read too, so reads after an edit see the edited text."""

    def __init__(self, text: str, value: dict[str, Any], editor: Callable[[], TomlDocument]) -> None:
        self._text = text
        self._data = value
        self._make_editor = editor
        self._editor: TomlDocument | None = None

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

    @property
    def text(self) -> str:
        """The current text (the file as read until an edit)."""
        return self._text if self._editor is None else self._editor.text

    @property
    def value(self) -> dict[str, Any]:
        """The whole document as plain Python data (a fresh copy)."""
        if self._editor is not None:
            return self._editor.value
        result: dict[str, Any] = copy_data(self._data)
        return result

    def get(self, path: Sequence[Key], default: Any = MISSING, /) -> Any:
        """The value at ``path`` (a copy); ``default`` when absent, else ``KeyError`` / ``IndexError``."""
        if self._editor is not None:
            return self._editor.get(path, default)
        return get(self._data, path, default)

    def has(self, path: Sequence[Key], /) -> bool:
        """Whether ``path`` names an existing value."""
        return has(self._data, path) if self._editor is None else self._editor.has(path)

    def __getattr__(self, name: str) -> Any:
        """Everything else (spans, edits): the editor's, which from then on answers every read too."""
        if name.startswith("_"):
            raise AttributeError(name)
        if self._editor is None:
            self._editor = self._make_editor()
        return getattr(self._editor, name)
