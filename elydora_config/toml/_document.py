"""``TomlDocument``: a TOML text with minimal, verified edits.

Parsing and verification use ``tomllib`` (TOML 1.0); a text in the small subset of :mod:`._plain` is
parsed without it, to the same data. Edits are made by the span editor where it can
(minimal splices, bytes outside the edited span untouched) and by tomlkit otherwise. Every edit is
checked: the new text must re-parse with ``tomllib`` to exactly the intended data, else the edit is
refused with :class:`~elydora_config.errors.MalformedConfigError` and the document is unchanged.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from elydora_config._hashlines import detect_newline
from elydora_config._plaindata import copy_data
from elydora_config.errors import MalformedConfigError, PathLike
from elydora_config.nesting import check_nesting
from elydora_config.toml._decoding import decode_error, loads
from elydora_config.toml._lookup import MISSING, MissingPathError, get, has
from elydora_config.toml._plain import plain_loads

if TYPE_CHECKING:
    from elydora_config.toml._editing import Made, TomlEdits
    from elydora_config.toml._values import Key

_AT_LINE = r"\s*\(at line (\d+), column (\d+)\)\s*$"
_AT_END = r"\s*\(at end of document\)\s*$"
"""Where :mod:`tomllib` puts the place in its message; compiled on first use (:mod:`re`'s cache), by an error."""
__all__ = ["MissingPathError", "TomlDocument"]

BOM = "\ufeff"
"""A byte order mark, which a TOML text may start with (kept, not part of the data)."""


def _location(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


class TomlDocument:
    """A TOML document that is edited in place, text-first.

    Paths are tuples of keys (``str``) and array indexes (``int``, negative counts from the end).
    """

    __slots__ = ("_body", "_bom", "_editing", "_history", "_last_engine", "_path", "_value")

    def __init__(self, body: str, value: dict[str, Any], *, bom: str, path: str | None) -> None:
        self._body = body
        self._bom = bom
        self._value = value
        self._path = path
        self._editing: TomlEdits | None = None  # the edits of the current text, made by the first edit
        self._history: list[tuple[str, dict[str, Any]]] = []  # (body, data) before each edit
        self._last_engine: str | None = None  # "span" or "tomlkit": which engine made the last edit

    # -- reading ----------------------------------------------------------------------------------

    @classmethod
    def parse(cls, text: str | bytes, *, path: PathLike | None = None) -> TomlDocument:
        """Parse TOML 1.0 text (``bytes`` must be UTF-8; a leading BOM is kept).

        Raises :class:`MalformedConfigError` with the line and column of the first problem.
        """
        where = None if path is None else str(path)
        if not isinstance(text, str | bytes | bytearray):
            raise TypeError(f"TomlDocument.parse takes the text as str or UTF-8 bytes, not {type(text).__name__}")
        if isinstance(text, bytes | bytearray):
            raw = bytes(text)
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                prefix = raw[: exc.start].decode("utf-8", "replace")
                line, column = _location(prefix, len(prefix))
                raise MalformedConfigError(where, "not valid UTF-8", line=line, column=column) from None
        bom = BOM if text.startswith(BOM) else ""
        body = text[len(bom) :]
        check_nesting(body, where, toml=True)
        value = plain_loads(body)
        if value is None:  # outside the plain subset: tomllib decodes it, or reports where it is wrong
            try:
                value = loads(body)
            except decode_error() as exc:
                raise _decode_error(where, body, exc) from None
        return cls(body, value, bom=bom, path=where)

    @classmethod
    def parse_bytes(cls, data: bytes, *, path: PathLike | None = None) -> TomlDocument:
        """Same as :meth:`parse` for bytes (UTF-8, optional BOM)."""
        if not isinstance(data, bytes | bytearray):
            hint = "; for text use TomlDocument.parse" if isinstance(data, str) else ""
            raise TypeError(f"TomlDocument.parse_bytes takes bytes, not {type(data).__name__}{hint}")
        return cls.parse(bytes(data), path=path)

    def to_bytes(self) -> bytes:
        """The current text as UTF-8."""
        return self.text.encode("utf-8")

    @property
    def text(self) -> str:
        """The current text, byte for byte what was parsed except for the edits made."""
        return self._bom + self._body

    @property
    def newline(self) -> str:
        """The line ending new lines are written with ("\\r\\n" when the first line ends so)."""
        return detect_newline(self._body)

    @property
    def value(self) -> dict[str, Any]:
        """The document's data as ``tomllib`` returns it (a fresh copy)."""
        result: dict[str, Any] = copy_data(self._value)
        return result

    def get(self, path: Sequence[Key], default: Any = MISSING) -> Any:
        """The value at ``path`` (a copy); ``default`` when absent, else ``KeyError`` / ``IndexError``."""
        return get(self._value, path, default)

    def has(self, path: Sequence[Key]) -> bool:
        """Whether ``path`` names an existing value."""
        return has(self._value, path)

    # -- editing (the editing half, :mod:`._editing`, is imported by the first edit) ---------------------------

    def set(self, path: Sequence[Key], value: object, *, before: str | None = None, after: str | None = None) -> None:
        """Set the value at ``path``, creating missing tables on the way.

        An existing value is replaced in place. A new key is added at the end of its table: a key line
        for scalars, arrays and empty tables, a ``[table]`` block for a non-empty table and
        ``[[array]]`` blocks for a non-empty list of tables (inline when the parent is inline).
        ``before`` / ``after`` name a sibling key: the new key line goes right before it (above the comment
        lines right above it) or right after it (``KeyError`` when the table has no such key, ``TypeError``
        when both are given; a new key only: an existing value is replaced where it is). A key line is
        placed so only next to a sibling's own key line in a ``[table]`` or at the top level; anything else
        is refused (``MalformedConfigError``) with the text unchanged.
        """
        self._commit(self._edits().set(path, value, before, after))

    def remove(self, path: Sequence[Key]) -> None:
        """Remove the value at ``path`` (``KeyError`` / ``IndexError`` when absent).

        A key line, an item on a line of its own in a multi-line array, and a table header all take the
        comment lines right above them (no blank line between: they are its own; a comment parted from
        it by a blank line stays), the same rule as in the JSONC and YAML editors (docs/editors.md, "One
        rule per verb"). Removing a table or an ``[[array]]`` entry removes its header, its body, its sub-tables, the
        comment lines directly above the header and the blank-line separation it owns. A container
        left empty that has no text of its own (an ``[[array]]`` or an implicit table such as ``a``
        in ``[a.b]``) disappears with it; an inline ``key = []`` or an explicit ``[table]`` stays.
        """
        self._commit(self._edits().remove(path))

    def insert(self, path: Sequence[Key], index: int, value: object) -> None:
        """Insert ``value`` before item ``index`` of the array at ``path`` (``len`` or ``-1`` appends).

        Works for inline arrays (the new item follows its neighbours' layout) and arrays of tables
        (a new ``[[path]]`` block, separated like the existing entries).
        """
        self._commit(self._edits().insert(path, index, value))

    def append_table(self, path: Sequence[Key], table: Mapping[str, object]) -> None:
        """Append ``table`` to the array of tables at ``path``, creating ``[[path]]`` when absent.

        When ``path`` is an inline array, the table is appended to it as an inline table.
        """
        self._commit(self._edits().append_table(path, table))

    def _edits(self) -> TomlEdits:
        """The edits of the current text: the editing half, imported on first use (a read-only command's document
        never loads it; see ``LAZY`` in tests/elydora_cli/commands/test_cmd_import_sets.py)."""
        from elydora_config.toml._editing import TomlEdits

        if self._editing is None:
            self._editing = TomlEdits(self._body, self._value, self.newline, self._path)
        return self._editing

    def undo(self) -> None:
        """Go back to the text (and data) before the most recent edit; ``IndexError`` when none."""
        if not self._history:
            raise IndexError("nothing to undo")
        self._body, self._value = self._history.pop()
        self._editing = None
        self._last_engine = None

    def _commit(self, made: Made | None) -> None:
        """Keep what an edit made (``None``: the document already held the value, nothing changed)."""
        if made is None:
            self._last_engine = None
            return
        self._history.append((self._body, self._value))
        self._body, self._value, self._last_engine = made
        self._editing = None


def _decode_error(where: str | None, body: str, exc: Exception) -> MalformedConfigError:
    message = str(exc)
    line = int(getattr(exc, "lineno", 0) or 0)
    column = int(getattr(exc, "colno", 0) or 0)
    located = re.search(_AT_LINE, message)
    if located:
        line, column = line or int(located.group(1)), column or int(located.group(2))
        message = message[: located.start()]
    elif re.search(_AT_END, message):
        line, column = _location(body, len(body))
        message = re.sub(_AT_END, "", message)
    message = getattr(exc, "msg", None) or message
    return MalformedConfigError(where, f"invalid TOML: {message}", line=line, column=column)

