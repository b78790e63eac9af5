"""Read-only JSON documents: the data of a plain JSON text, decoded by :mod:`json` without the editor.

A pass that edits nothing needs only a file's data. When the text is plain JSON (in a dialect with comments:
plain JSON and whole-line ``//`` comments), :func:`loads_strict` decodes it with the refusals the editor
makes (:mod:`.refusals`: duplicate keys, ``NaN`` and ``Infinity``, control characters in strings); anything
it refuses (other comments, trailing commas, a byte order mark, an error) is left to the editor, which
reports it with its line and column. :class:`ReadOnlyJson` answers ``value``, ``get``, ``has`` and ``text``
from the data (paths resolved by :func:`lookup`, the editor's rule), and hands anything else (a span, an
edit) to the editor, built on first use.

Importing this module loads none of the editor's modules.
"""

from __future__ import annotations

from ..typecheck import TYPE_CHECKING
from .refusals import strict_decoder, unique_object

if TYPE_CHECKING:  # names for annotations only: a reader's start-up builds none of them, nor imports typing
    from collections.abc import Callable, Sequence
    from typing import Any, Protocol

    from ..errors import PathLike
    from .dialect import Dialect
    from .document import JsoncDocument

    class Editor(Protocol):
        """What :class:`ReadOnlyJson` needs of the editor it hands over to (:class:`.JsoncDocument` fits)."""

        @property
        def text(self) -> str:
            """The current text."""

        @property
        def value(self) -> Any:
            """The whole document as plain Python data."""

        def get(self, path: Sequence[str | int], default: Any = ..., /) -> Any:
            """The value at ``path``; ``default`` if it does not exist, or ``KeyError`` when none is given."""

        def has(self, path: Sequence[str | int], /) -> bool:
            """Whether a value exists at ``path``."""


_MISSING: Any = object()

_DECODER = strict_decoder(unique_object)


def _without_comment_lines(text: str) -> str | None:
    """``text`` without its whole-line ``//`` comments (``None`` when it may hold a block comment).

    A line whose first non-blank characters are ``//`` is a comment in any JSONC text that has no ``/*``:
    a JSON string never spans a line break, so no string can hold the start of such a line (a text where
    one seems to is refused with or without the comment, for the raw line break left in the string).
    Lines end at ``\\n`` or ``\\r``; the comment (and the blanks before it) goes, its line break stays. Only
    the places where ``//`` occurs are looked at (no regular expression to compile at each start-up)."""
    if "/*" in text:
        return None
    kept: list[str] = []
    done = 0  # text[:done] is dealt with
    at = text.find("//")
    while at != -1:
        start = max(text.rfind("\n", 0, at), text.rfind("\r", 0, at)) + 1
        if text[start:at].strip(" \t"):  # something before it on its line: not a comment line
            at = text.find("//", at + 2)
            continue
        ends = [end for end in (text.find("\n", at), text.find("\r", at)) if end != -1]
        end = min(ends) if ends else len(text)
        kept.append(text[done:start])
        done = end
        at = text.find("//", end)
    kept.append(text[done:])
    return "".join(kept)


def loads_strict(text: str, *, comments: bool = False) -> dict[str, Any] | None:
    """The data of ``text`` when it is a JSON object the editor accepts, else ``None`` (the editor then
    decides). ``comments``: the dialect allows comments, and whole-line ``//`` comments are skipped."""
    if comments and "//" in text:
        plain = _without_comment_lines(text)
        if plain is None:
            return None
        text = plain
    try:
        value = _DECODER.decode(text)
    except (ValueError, RecursionError):  # JSONDecodeError, a refusal, a huge integer: the editor reports
        return None
    return value if isinstance(value, dict) else None


def lookup(data: Any, path: Sequence[str | int]) -> Any:
    """The value at ``path`` in JSON ``data``, by the rule of :meth:`.JsoncDocument.get`.

    An object's members are named by ``str`` keys, a list's by ``int`` indexes (negative ones count from the
    end; ``bool`` is not an index); a scalar has no members. A path that names nothing raises ``KeyError``
    whose argument is the path up to its first part that is missing (up to the scalar, for a member of a
    scalar). The value returned is ``data``'s own, not a copy."""
    path = tuple(path)
    node = data
    for depth, element in enumerate(path):
        if isinstance(node, dict):
            if not isinstance(element, str) or element not in node:
                raise KeyError(path[: depth + 1])
            node = node[element]
        elif isinstance(node, list):
            index = element + len(node) if isinstance(element, int) and element < 0 else element
            if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < len(node):
                raise KeyError(path[: depth + 1])
            node = node[index]
        else:
            raise KeyError(path[:depth])
    return node


def _copy(value: Any) -> Any:
    """A fresh copy of JSON data (the editor returns a new object at each read, so callers may keep it)."""
    if isinstance(value, dict):
        return {key: _copy(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_copy(item) for item in value]
    return value


class ReadOnlyJson:
    """A JSON document's data, with the editor of its dialect built only when something needs it.

    ``editor`` builds the editor of ``text``, a :class:`.JsoncDocument` (called at most once); from then on the
    editor answers every read too, so reads after an edit see the edited text."""

    def __init__(self, text: str, value: dict[str, Any], editor: Callable[[], Editor]) -> None:
        self._text = text
        self._data = value
        self._make_editor = editor
        self._editor: Editor | None = None

    @classmethod
    def parse(cls, text: str, dialect: Dialect, path: PathLike | None = None) -> ReadOnlyJson:
        """``text`` as a read-only document of ``dialect``: decoded by :func:`loads_strict` when it can be,
        else parsed by the editor now (which raises :class:`~elydora_config.errors.MalformedConfigError`
        for an invalid text, naming ``path``, line and column)."""

        def editor() -> JsoncDocument:
            from .document import JsoncDocument

            return JsoncDocument.parse(text, dialect, path=path)

        value = loads_strict(text, comments=dialect.comments)
        if value is not None:
            return cls(text, value, editor)
        built = editor()
        doc = cls(text, {}, editor)
        doc._editor = built
        return doc

    @property
    def text(self) -> str:
        """The current text (the file as read until an edit)."""
        return self._text if self._editor is None else self._editor.text

    @property
    def value(self) -> Any:
        """The whole document as plain Python data (a new object at each access)."""
        return _copy(self._data) if self._editor is None else self._editor.value

    def get(self, path: Sequence[str | int], default: Any = _MISSING, /) -> Any:
        """The value at ``path`` (a copy); ``default`` if it does not exist, or ``KeyError`` (see :func:`lookup`)."""
        if self._editor is not None:
            return self._editor.get(path) if default is _MISSING else self._editor.get(path, default)
        try:
            return _copy(lookup(self._data, path))
        except KeyError:
            if default is _MISSING:
                raise
            return default

    def has(self, path: Sequence[str | int], /) -> bool:
        """Whether a value exists at ``path``."""
        if self._editor is not None:
            return self._editor.has(path)
        try:
            lookup(self._data, path)
        except KeyError:
            return False
        return True

    def __getattr__(self, name: str) -> Any:
        """Everything else (spans, edits): the editor's, which from then on answers every read too."""
        if name.startswith("_"):
            raise AttributeError(name)
        if self._editor is None:
            self._editor = self._make_editor()
        return getattr(self._editor, name)
