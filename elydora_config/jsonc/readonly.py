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

from typing import TYPE_CHECKING

from ..readonlydoc import ReadOnlyDocument
from .refusals import strict_decoder, unique_object

if TYPE_CHECKING:  # names for annotations only: a reader's start-up builds none of them, nor imports typing
    from collections.abc import Sequence
    from typing import Any

    from ..errors import PathLike
    from .dialect import Dialect
    from .document import JsoncDocument


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


class ReadOnlyJson(ReadOnlyDocument):
    """A JSON document's data (see :class:`~elydora_config.readonlydoc.ReadOnlyDocument`), paths resolved by
    :func:`lookup`, with the editor of its dialect, a :class:`.JsoncDocument`, built only when needed."""

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

    def _found(self, path: Sequence[str | int]) -> Any:
        return lookup(self._data, path)
