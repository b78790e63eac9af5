"""Read-only JSON documents: the data of a plain JSON text, decoded by :func:`json.loads` alone.

A pass that edits nothing (``status``) needs only a file's data. When the text is plain JSON (in a JSONC
dialect: plain JSON and whole-line ``//`` comments, as our own installs write), :func:`loads_strict` decodes
it with the checks the JSONC editor makes (duplicate keys, ``NaN`` and ``Infinity``, control characters in
strings); anything it refuses (other comments, trailing commas, a byte order mark, an error) is left to the
editor, which reports it with its line and column. :class:`ReadOnlyJson`
answers ``value``, ``get``, ``has`` and ``text`` from the data, and hands anything else (a span, an edit) to
the editor, built on first use.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any, NoReturn

_MISSING: Any = object()


class _Refused(ValueError):
    pass


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    value = dict(pairs)
    if len(value) != len(pairs):
        raise _Refused("duplicate key")
    return value


def _no_constant(name: str) -> NoReturn:
    raise _Refused(f"{name} is not a JSON number")


_DECODER = json.JSONDecoder(object_pairs_hook=_unique, parse_constant=_no_constant, strict=True)


def _without_comment_lines(text: str) -> str | None:
    """``text`` without its whole-line ``//`` comments (``None`` when it may hold a block comment).

    A line whose first non-blank characters are ``//`` is a comment in any JSONC text that has no ``/*``:
    a JSON string never spans a line break, so no string can hold the start of such a line (a text where
    one seems to is refused with or without the comment, for the raw line break left in the string)."""
    if "/*" in text:
        return None
    import re

    return re.sub(r"(?<![^\r\n])[ \t]*//[^\r\n]*", "", text)


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


def _copy(value: Any) -> Any:
    """A fresh copy of JSON data (the editor returns a new object at each read, so callers may keep it)."""
    if isinstance(value, dict):
        return {key: _copy(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_copy(item) for item in value]
    return value


class ReadOnlyJson:
    """A JSON document's data, with the editor of its dialect built only when something needs it."""

    def __init__(self, text: str, value: dict[str, Any], editor: Callable[[], Any]) -> None:
        self._text = text
        self._data = value
        self._make_editor = editor
        self._editor: Any = None

    @property
    def text(self) -> str:
        return self._text if self._editor is None else str(self._editor.text)

    @property
    def value(self) -> Any:
        return _copy(self._data) if self._editor is None else self._editor.value

    def get(self, path: Sequence[str | int], default: Any = _MISSING, /) -> Any:
        if self._editor is not None:
            return self._editor.get(path) if default is _MISSING else self._editor.get(path, default)
        try:
            return _copy(self._find(tuple(path)))
        except KeyError:
            if default is _MISSING:
                raise
            return default

    def has(self, path: Sequence[str | int], /) -> bool:
        if self._editor is not None:
            return bool(self._editor.has(path))
        try:
            self._find(tuple(path))
        except KeyError:
            return False
        return True

    def _find(self, path: tuple[str | int, ...]) -> Any:
        """The value at ``path``, or ``KeyError`` naming the first part of it that is missing (as the editor)."""
        node: Any = self._data
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
            else:  # a scalar has no members: the editor names the path up to it
                raise KeyError(path[:depth])
        return node

    def __getattr__(self, name: str) -> Any:
        """Everything else (spans, edits): the editor's, which from then on answers every read too."""
        if name.startswith("_"):
            raise AttributeError(name)
        if self._editor is None:
            self._editor = self._make_editor()
        return getattr(self._editor, name)

