"""The editing half of :class:`._document.TomlDocument`: the span editor first, tomlkit where it cannot, and the
check of every edit (docs/editors.md, "How it works").

A :class:`TomlEdits` holds one text and its data; each verb returns what the edit made (the new text, its data,
the engine that made it), and the document keeps it. Imported by a document's first edit: a document that is
only read (what ``status`` does) loads none of the span editor's modules.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from elydora_config.errors import MalformedConfigError
from elydora_config.toml._decoding import decode_error, loads
from elydora_config.toml._localcheck import NOT_LOCAL, appended_table, swapped_value
from elydora_config.toml._lookup import MissingPathError, lookup, missing, resolve
from elydora_config.toml._scanner import ScanError, scan
from elydora_config.toml._spans import SpanEditor, Splice, apply_splices
from elydora_config.toml._values import Key, Path, normalize, same

Made = tuple[str, dict[str, Any], str]
"""What an edit made: the new text, its data, and the engine that made it (``"span"`` or ``"tomlkit"``)."""


class TomlEdits:
    """The edits of one TOML text (``body``, without its BOM) holding ``value``; ``path`` names the file in
    errors. A verb returns :data:`Made`, or ``None`` when the document already holds the value."""

    def __init__(self, body: str, value: dict[str, Any], newline: str, path: str | None) -> None:
        self.body = body
        self.value = value
        self.newline = newline
        self.path = path
        self._editor: SpanEditor | None = None

    def set(self, path: Sequence[Key], value: object, before: str | None, after: str | None) -> Made | None:
        """:meth:`._document.TomlDocument.set`."""
        if before is not None and after is not None:
            raise TypeError("give before= or after=, not both")
        norm, found = resolve(self.value, path)
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
                return None
            self._refuse_non_table_in_table_array(norm[:-1], new)
        elif not isinstance(norm[found], str) or not all(isinstance(k, str) for k in norm[found:]):
            raise missing(norm, found)
        intended = _with_value(self.value, norm, found, new)

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
            return None if leaf is NOT_LOCAL else _with_value(self.value, norm, found, leaf)

        if sibling is None:
            return self._edit(span, intended, "set", norm, new, local=local)
        editor, body, parsed = self._span_editor(), None, None
        try:
            made = span(editor) if editor is not None else ""
            body = editor.apply(made) if editor is not None and not isinstance(made, str) else None
            parsed = loads(body) if body is not None else None
        except (ScanError, LookupError, ValueError, TypeError, decode_error()):
            parsed = None
        if body is None or parsed is None or not same(parsed, intended):
            where = f"before {sibling}" if before is not None else f"after {sibling}"
            raise MalformedConfigError(self.path, f"cannot place {_show(norm)} {where}: no key line of its own there")
        return body, parsed, "span"

    def remove(self, path: Sequence[Key]) -> Made:
        """:meth:`._document.TomlDocument.remove`."""
        norm, found = resolve(self.value, path)
        if not norm:
            raise ValueError("the path is empty")
        if found < len(norm):
            raise missing(norm, found)
        editor = self._span_editor()
        implicit = editor.is_implicit if editor is not None else self._tomlkit_implicit
        intended, pruned = _without(self.value, norm, implicit)

        def span(editor: SpanEditor) -> list[Splice]:
            return editor.remove(norm)

        return self._edit(span, intended, "remove", norm, prune=pruned)

    def insert(self, path: Sequence[Key], index: int, value: object) -> Made:
        """:meth:`._document.TomlDocument.insert`."""
        norm, found = resolve(self.value, path)
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
        intended = _with_insert(self.value, norm, position, new)

        def span(editor: SpanEditor) -> list[Splice]:
            return editor.insert(norm, position, new, size)

        def local(editor: SpanEditor, splices: list[Splice]) -> dict[str, Any] | None:

            item = appended_table(editor, splices, norm, new) if position == size else NOT_LOCAL
            return None if item is NOT_LOCAL else _with_insert(self.value, norm, position, item)

        return self._edit(span, intended, "insert", norm, new, index=position, local=local)

    def append_table(self, path: Sequence[Key], table: Mapping[str, object]) -> Made | None:
        """:meth:`._document.TomlDocument.append_table`."""
        if not isinstance(table, Mapping):
            raise TypeError("append_table needs a mapping")
        norm, found = resolve(self.value, path)
        if found == len(norm):
            target = self._lookup(norm)
            if type(target) is not list:
                raise TypeError(f"{_show(norm)} is not an array")
            return self.insert(norm, len(target), table)
        return self.set(norm, [table], None, None)

    # -- internals ----------------------------------------------------------------------------------

    def _span_editor(self) -> SpanEditor | None:
        if self._editor is None:

            try:
                self._editor = SpanEditor(scan(self.body))
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
            return is_implicit(self.body, path)
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
    ) -> Made:
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
                    return body, parsed, "span"
        return self._edit_with_tomlkit(intended, kind, norm, value, index, prune)

    def _edit_with_tomlkit(
        self, intended: dict[str, Any], kind: str, norm: Path, value: Any, index: int, prune: tuple[Path, ...]
    ) -> Made:
        from elydora_config.toml._tomlkit_edit import tomlkit_edit

        try:
            body = tomlkit_edit(self.body, kind, norm, value, index, prune, self.newline)
        except Exception as exc:  # tomlkit raises many kinds; the message may quote values, so omit it
            raise MalformedConfigError(
                self.path, f"cannot {kind} {_show(norm)}: the fallback editor failed ({type(exc).__name__})"
            ) from None
        try:
            parsed = loads(body)
        except decode_error() as exc:
            raise MalformedConfigError(
                self.path, f"refusing to {kind} {_show(norm)}: the edited text would not parse ({exc})"
            ) from None
        if not same(parsed, intended):
            raise MalformedConfigError(
                self.path,
                f"refusing to {kind} {_show(norm)}: the edited text would re-parse to different data",
            )
        return body, parsed, "tomlkit"

    def _lookup(self, norm: Path) -> Any:
        return lookup(self.value, norm)


def _show(path: Path) -> str:
    return "".join(f"[{key}]" if isinstance(key, int) else f".{key}" for key in path).lstrip(".") or "<root>"


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
