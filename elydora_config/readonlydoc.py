"""A document read for its data, its editor built only when something needs more: the shape JSON
(:mod:`.jsonc.readonly`) and TOML (:mod:`.toml.readonly`) share.

A pass that edits nothing needs only a file's data: ``text`` and its decoded value answer ``get``, ``has``,
``value`` and ``text`` by the editor's own path rule, and anything else (a span, an edit) goes to the editor,
built on first use; from then on the editor answers every read too, so reads after an edit see the edited
text. Importing this module loads no editor.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # names for annotations only: a reader's start-up builds none of them, nor imports typing
    from collections.abc import Callable, Sequence
    from typing import Any, Protocol

    class Editor(Protocol):
        """What a read-only document needs of the editor it hands over to (the JSONC and TOML documents fit)."""

        @property
        def text(self) -> str:
            """The current text."""

        @property
        def value(self) -> Any:
            """The whole document as plain Python data."""

        def get(self, path: Sequence[Any], default: Any = ..., /) -> Any:
            """The value at ``path``; ``default`` if it does not exist, or a ``LookupError`` when none is given."""

        def has(self, path: Sequence[Any], /) -> bool:
            """Whether a value exists at ``path``."""


MISSING: Any = object()
"""The default of :meth:`ReadOnlyDocument.get` that means "none": a missing path raises."""


def copy_data(value: Any) -> Any:
    """A deep copy of plain data (containers copied, immutable scalars shared): what a read hands out, so that
    callers may keep or change it, as the editors' reads allow."""
    kind = type(value)
    if kind is dict:
        return {key: copy_data(item) for key, item in value.items()}
    if kind is list:
        return [copy_data(item) for item in value]
    return value


class ReadOnlyDocument:
    """``text`` and its decoded ``value``, with ``editor`` (called at most once) building the editor of
    ``text``. A format gives :meth:`_found`: its editor's rule for a path."""

    def __init__(self, text: str, value: Any, editor: Callable[[], Editor]) -> None:
        self._text = text
        self._data = value
        self._make_editor = editor
        self._editor: Editor | None = None

    def _found(self, path: Sequence[Any]) -> Any:
        """The value at ``path`` in the data (its own, not a copy); a ``LookupError`` naming what is missing
        when the path names nothing."""
        raise NotImplementedError

    @property
    def text(self) -> str:
        """The current text (the file as read until an edit)."""
        return self._text if self._editor is None else self._editor.text

    @property
    def value(self) -> Any:
        """The whole document as plain Python data (a new object at each access)."""
        return copy_data(self._data) if self._editor is None else self._editor.value

    def get(self, path: Sequence[Any], default: Any = MISSING, /) -> Any:
        """The value at ``path`` (a copy); ``default`` when it does not exist, else the ``LookupError`` of
        :meth:`_found`."""
        editor = self._editor
        if editor is not None:
            return editor.get(path) if default is MISSING else editor.get(path, default)
        try:
            found = self._found(path)
        except LookupError:
            if default is MISSING:
                raise
            return default
        return copy_data(found)

    def has(self, path: Sequence[Any], /) -> bool:
        """Whether a value exists at ``path``."""
        if self._editor is not None:
            return self._editor.has(path)
        try:
            self._found(path)
        except LookupError:
            return False
        return True

    def __getattr__(self, name: str) -> Any:
        """Everything else (spans, edits): the editor's, which from then on answers every read too."""
        if name.startswith("_"):
            raise AttributeError(name)
        if self._editor is None:
            self._editor = self._make_editor()
        return getattr(self._editor, name)
