"""``TomlDocument``: a TOML text with minimal, verified edits.

Parsing and verification use ``tomllib`` (TOML 1.0); a text in the small subset of :mod:`._plain` is
parsed without it, to the same data. Edits are made by the span editor where it can
(minimal splices, bytes outside the edited span untouched) and by tomlkit otherwise. Every edit is
checked: the new text must re-parse with ``tomllib`` to exactly the intended data, else the edit is
refused with :class:`~elydora_config.errors.MalformedConfigError` and the document is unchanged.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from elydora_config._plaindata import copy_data
from elydora_config.errors import MalformedConfigError, PathLike
from elydora_config.nesting import check_nesting
from elydora_config.toml._decoding import decode_error, loads
from elydora_config.toml._localcheck import NOT_LOCAL, appended_table, swapped_value
from elydora_config.toml._lookup import MISSING, MissingPathError, get, has, lookup, missing, resolve
from elydora_config.toml._plain import plain_loads
from elydora_config.toml._scanner import ScanError, scan
from elydora_config.toml._spans import SpanEditor, Splice, apply_splices
from elydora_config.toml._values import Key, Path, detect_newline, normalize, same

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

    __slots__ = ("_body", "_bom", "_editor", "_history", "_last_engine", "_path", "_value")

    def __init__(self, body: str, value: dict[str, Any], *, bom: str, path: str | None) -> None:
        self._body = body
        self._bom = bom
        self._value = value
        self._path = path
        self._editor: SpanEditor | None = None
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

    # -- editing ----------------------------------------------------------------------------------

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
        if before is not None and after is not None:
            raise TypeError("give before= or after=, not both")
        norm, found = self._resolve(path)
        if not norm:
            raise ValueError("the path is empty: replace the document by parsing new text")
        sibling = before if before is not None else after
        if sibling is not None and found < len(norm):
            holder = self._lookup(norm[:-1]) if found == len(norm) - 1 else None
            if not isinstance(holder, dict) or sibling not in holder:
                raise MissingPathError((*norm[:-1], sibling))
        elif sibling is not None:
            sibling = None  # an existing value is replaced where it is
        new = normalize(value, where=_show(norm))
        if found == len(norm):
            if same(self._lookup(norm), new):
                self._last_engine = None
                return
            self._refuse_non_table_in_table_array(norm[:-1], new)
        elif not isinstance(norm[found], str) or not all(isinstance(k, str) for k in norm[found:]):
            raise missing(norm, found)
        intended = _with_value(self._value, norm, found, new)

        def span(editor: SpanEditor) -> list[Splice] | str:
            if found == len(norm):
                return self._span_replace(editor, norm, new)
            nested: Any = new
            for key in reversed(norm[found + 1 :]):
                nested = {key: nested}
            parent, key = norm[:found], norm[found]
            assert isinstance(key, str)
            if sibling is not None:
                return editor.add(parent, key, nested, before, after)
            return editor.add(parent, key, nested)

        def local(editor: SpanEditor, splices: list[Splice]) -> dict[str, Any] | None:

            leaf = swapped_value(editor, splices, norm, self._lookup(norm), new) if found == len(norm) else NOT_LOCAL
            return None if leaf is NOT_LOCAL else _with_value(self._value, norm, found, leaf)

        if sibling is None:
            self._edit(span, intended, "set", norm, new, local=local)
            return
        editor, body, parsed = self._span_editor(), None, None
        try:
            made = span(editor) if editor is not None else ""
            body = editor.apply(made) if editor is not None and not isinstance(made, str) else None
            parsed = loads(body) if body is not None else None
        except (ScanError, LookupError, ValueError, TypeError, decode_error()):
            parsed = None
        if body is None or parsed is None or not same(parsed, intended):
            where = f"before {sibling}" if before is not None else f"after {sibling}"
            raise MalformedConfigError(self._path, f"cannot place {_show(norm)} {where}: no key line of its own there")
        self._commit(body, parsed, "span")

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
        norm, found = self._resolve(path)
        if not norm:
            raise ValueError("the path is empty")
        if found < len(norm):
            raise missing(norm, found)
        editor = self._span_editor()
        implicit = editor.is_implicit if editor is not None else self._tomlkit_implicit
        intended, pruned = _without(self._value, norm, implicit)

        def span(editor: SpanEditor) -> list[Splice]:
            return editor.remove(norm)

        self._edit(span, intended, "remove", norm, prune=pruned)

    def insert(self, path: Sequence[Key], index: int, value: object) -> None:
        """Insert ``value`` before item ``index`` of the array at ``path`` (``len`` or ``-1`` appends).

        Works for inline arrays (the new item follows its neighbours' layout) and arrays of tables
        (a new ``[[path]]`` block, separated like the existing entries).
        """
        norm, found = self._resolve(path)
        if found < len(norm):
            raise missing(norm, found)
        target = self._lookup(norm)
        if type(target) is not list:
            raise TypeError(f"{_show(norm)} is not an array")
        if isinstance(index, bool) or not isinstance(index, int):
            raise TypeError("the index must be an integer")
        size = len(target)
        position = size if index == -1 else index
        if not 0 <= position <= size:
            raise IndexError(f"index {index} is out of range for {_show(norm)} (length {size})")
        new = normalize(value, where=f"{_show(norm)}[{position}]")
        self._refuse_non_table_in_table_array(norm, new)
        intended = _with_insert(self._value, norm, position, new)

        def span(editor: SpanEditor) -> list[Splice]:
            return editor.insert(norm, position, new, size)

        def local(editor: SpanEditor, splices: list[Splice]) -> dict[str, Any] | None:

            item = appended_table(editor, splices, norm, new) if position == size else NOT_LOCAL
            return None if item is NOT_LOCAL else _with_insert(self._value, norm, position, item)

        self._edit(span, intended, "insert", norm, new, index=position, local=local)

    def append_table(self, path: Sequence[Key], table: Mapping[str, object]) -> None:
        """Append ``table`` to the array of tables at ``path``, creating ``[[path]]`` when absent.

        When ``path`` is an inline array, the table is appended to it as an inline table.
        """
        if not isinstance(table, Mapping):
            raise TypeError("append_table needs a mapping")
        norm, found = self._resolve(path)
        if found == len(norm):
            target = self._lookup(norm)
            if type(target) is not list:
                raise TypeError(f"{_show(norm)} is not an array")
            self.insert(norm, len(target), table)
        else:
            self.set(norm, [table])

    # -- internals ----------------------------------------------------------------------------------

    def _span_editor(self) -> SpanEditor | None:
        if self._editor is None:

            try:
                self._editor = SpanEditor(scan(self._body))
            except ScanError:
                return None
        return self._editor

    def _refuse_non_table_in_table_array(self, array: Path, new: Any) -> None:
        if type(new) is dict or not array or type(self._lookup(array)) is not list:
            return
        editor = self._span_editor()
        if editor is not None and editor.covering_entry(array) is None:
            raise TypeError(f"{_show(array)} is an array of tables ([[...]]): it can only hold tables")

    def _tomlkit_implicit(self, path: Path) -> bool:
        from elydora_config.toml._tomlkit_edit import is_implicit

        try:
            return is_implicit(self._body, path)
        except Exception:
            return False

    def _span_replace(self, editor: SpanEditor, norm: Path, new: Any) -> list[Splice] | str:

        if editor.covering_entry(norm) is None and isinstance(norm[-1], int) and type(new) is dict:
            # an [[array]] entry: remove it, then insert the new one at the same index
            size = len(self._lookup(norm[:-1]))
            if size < 2:
                raise ScanError("replacing the only entry of an array of tables")
            first = apply_splices(editor.text, editor.remove(norm))
            second = SpanEditor(scan(first))
            return apply_splices(first, second.insert(norm[:-1], norm[-1], new, size - 1))
        return editor.replace(norm, new)

    def _edit(
        self,
        span: Callable[[SpanEditor], list[Splice] | str],
        intended: dict[str, Any],
        kind: str,
        norm: Path,
        value: Any = None,
        *,
        index: int = 0,
        prune: tuple[Path, ...] = (),
        local: Callable[[SpanEditor, list[Splice]], dict[str, Any] | None] | None = None,
    ) -> None:
        """Make the edit with the span editor, proved by parsing only what changed (``local``, see
        :mod:`._localcheck`) or else the whole new text; with tomlkit when the span editor cannot."""
        editor = self._span_editor()
        if editor is not None:

            try:
                made = span(editor)
                body = made if isinstance(made, str) else editor.apply(made)
                proved = None if local is None or isinstance(made, str) else local(editor, made)
                parsed = loads(body) if proved is None else proved
            except (ScanError, LookupError, ValueError, TypeError, decode_error()):
                pass
            else:
                if same(parsed, intended):
                    self._commit(body, parsed, "span")
                    return
        self._edit_with_tomlkit(intended, kind, norm, value, index, prune)

    def _edit_with_tomlkit(
        self, intended: dict[str, Any], kind: str, norm: Path, value: Any, index: int, prune: tuple[Path, ...]
    ) -> None:
        from elydora_config.toml._tomlkit_edit import tomlkit_edit

        try:
            body = tomlkit_edit(self._body, kind, norm, value, index, prune, self.newline)
        except Exception as exc:  # tomlkit raises many kinds; the message may quote values, so omit it
            raise MalformedConfigError(
                self._path, f"cannot {kind} {_show(norm)}: the fallback editor failed ({type(exc).__name__})"
            ) from None
        try:
            parsed = loads(body)
        except decode_error() as exc:
            raise MalformedConfigError(
                self._path, f"refusing to {kind} {_show(norm)}: the edited text would not parse ({exc})"
            ) from None
        if not same(parsed, intended):
            raise MalformedConfigError(
                self._path,
                f"refusing to {kind} {_show(norm)}: the edited text would re-parse to different data",
            )
        self._commit(body, parsed, "tomlkit")

    def undo(self) -> None:
        """Go back to the text (and data) before the most recent edit; ``IndexError`` when none."""
        if not self._history:
            raise IndexError("nothing to undo")
        self._body, self._value = self._history.pop()
        self._editor = None
        self._last_engine = None

    def _commit(self, body: str, parsed: dict[str, Any], engine: str) -> None:
        self._history.append((self._body, self._value))
        self._body = body
        self._value = parsed
        self._editor = None
        self._last_engine = engine

    def _lookup(self, norm: Path) -> Any:
        return lookup(self._value, norm)

    def _resolve(self, path: Sequence[Key]) -> tuple[Path, int]:
        """Normalise ``path`` and count how many of its steps exist (:func:`._lookup.resolve`)."""
        return resolve(self._value, path)


def _show(path: Path) -> str:
    return "".join(f"[{key}]" if isinstance(key, int) else f".{key}" for key in path).lstrip(".") or "<root>"


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


def _spine(data: dict[str, Any], path: Path) -> tuple[dict[str, Any], Any]:
    """A shallow copy of ``data`` with the containers along ``path`` copied; returns (root, last)."""
    root = dict(data)
    node: Any = root
    for key in path:
        child = node[key]
        child = dict(child) if type(child) is dict else list(child)
        node[key] = child
        node = child
    return root, node


def _with_value(data: dict[str, Any], norm: Path, found: int, value: Any) -> dict[str, Any]:
    """``data`` with ``value`` at ``norm``, of which the first ``found`` steps exist."""
    existing = norm[: min(found, len(norm) - 1)]
    root, parent = _spine(data, existing)
    for key in norm[len(existing) : -1]:
        child: dict[str, Any] = {}
        parent[key] = child
        parent = child
    parent[norm[-1]] = value
    return root


def _with_insert(data: dict[str, Any], norm: Path, index: int, value: Any) -> dict[str, Any]:
    root, target = _spine(data, norm)
    target.insert(index, value)
    return root


def _without(data: dict[str, Any], norm: Path, implicit: Any) -> tuple[dict[str, Any], tuple[Path, ...]]:
    root, parent = _spine(data, norm[:-1])
    del parent[norm[-1]]
    pruned: list[Path] = []
    holder_path = norm[:-1]
    while holder_path and not _lookup_in(root, holder_path) and implicit(holder_path):
        pruned.append(holder_path)
        del _lookup_in(root, holder_path[:-1])[holder_path[-1]]
        holder_path = holder_path[:-1]
    return root, tuple(pruned)


def _lookup_in(data: Any, path: Path) -> Any:
    for key in path:
        data = data[key]
    return data
