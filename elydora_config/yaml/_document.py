"""``YamlDocument``: a block-style YAML text with minimal, verified, invertible edits.

Reading and verification use PyYAML's safe loader (what Python agents such as Hermes read their config with);
the node tree it composes gives every value's place in the text. Edits splice whole lines:

* replacing a value writes the new one where the old one is: a one-line scalar's text only (a comment after it
  stays), a block value's lines anew (see ``_replace.py``);
* adding a key to a block mapping, or an item to a block sequence, inserts its lines after the last line of
  the collection's last value (the user's comment lines after it stay below), indented like its siblings;
* a key added to the top level goes after the last top-level value (after the whole text when there is none);
* an empty flow collection (``key: {}``, ``key: []``) becomes a block when something is added to it, and a
  block collection whose last entry is removed becomes ``{}`` or ``[]`` again after its key;
* removing deletes exactly the lines of the entry (from its key or ``-`` line to its last value's line) and the
  comment lines right above it (no blank line between: they are its own; a new entry never goes between them).

So an insertion and the removal of what it inserted give back the same bytes. Anything else on an edited path
(a flow collection that is not empty, a key without a value, anchors, aliases, tags, duplicate keys) is refused
with :class:`~elydora_config.errors.MalformedConfigError`, as is an edit whose text would not re-read as exactly
the intended data; the document is then unchanged. Comments, blank lines and every byte outside the spliced
lines are kept.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import Any

import yaml

from elydora_config._plaindata import copy_data, same_types
from elydora_config.errors import MalformedConfigError, PathLike

from .._hashlines import comment_lines_up, line_start
from . import _render as render
from . import _replace as replacing
from ._lines import blank_lines_up, dash_of, has_text, line_end, own_end

Key = str | int
_MISSING: Any = object()
__all__ = ["YamlDocument"]


def holds(container: Any, key: str | int) -> bool:
    """Whether ``container[key]`` names an element: a mapping's key, or a sequence's index (negative from the
    end)."""
    if isinstance(container, dict):
        return isinstance(key, str) and key in container
    return isinstance(container, list) and isinstance(key, int) and -len(container) <= key < len(container)


def _compose(text: str, path: PathLike | None) -> tuple[yaml.Node | None, Any]:
    """The node tree and the data of ``text`` (one document), or the parse error as a refusal."""
    try:
        loader = yaml.SafeLoader(text)  # refuses a character YAML does not allow (NUL, most C0 and C1 controls)
    except yaml.reader.ReaderError as exc:
        line = text.count("\n", 0, exc.position) + 1
        column = exc.position - text.rfind("\n", 0, exc.position)
        reason = f"invalid YAML: the character U+{exc.character:04X} is not allowed in YAML"
        raise MalformedConfigError(path, reason, line=line, column=column) from None
    try:
        node = loader.get_single_node()
        value = loader.construct_document(node) if node is not None else None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line, column = (mark.line + 1, mark.column + 1) if mark is not None else (0, 0)
        reason = f"invalid YAML: {exc.problem or exc.context}"
        raise MalformedConfigError(path, reason, line=line, column=column) from None
    except yaml.YAMLError as exc:
        raise MalformedConfigError(path, f"invalid YAML: {exc}") from None
    except RecursionError:
        raise MalformedConfigError(path, "the YAML is nested too deeply") from None
    finally:
        loader.dispose()
    return node, value


def _style(text: str, root: yaml.Node | None) -> render.Style:
    """The indentation the document already uses (the first nested mapping and key-held sequence found)."""
    mapping = sequence = None
    stack = [root] if isinstance(root, yaml.MappingNode) else []
    while stack and (mapping is None or sequence is None):
        node = stack.pop()
        for key, value in node.value:
            if isinstance(value, yaml.MappingNode) and not value.flow_style and value.value and mapping is None:
                mapping = value.value[0][0].start_mark.column - key.start_mark.column
            if isinstance(value, yaml.SequenceNode) and not value.flow_style and value.value and sequence is None:
                sequence = dash_of(text, value.value[0]) - line_start(text, dash_of(text, value.value[0]))
                sequence -= key.start_mark.column
            if isinstance(value, yaml.MappingNode):
                stack.append(value)
    return render.Style(
        mapping=mapping if mapping and mapping > 0 else 2,
        sequence=sequence if sequence is not None and sequence >= 0 else 2,
        newline="\r\n" if "\r\n" in text else "\n",
    )


class YamlDocument:
    """A YAML document (a mapping at the top, or empty) edited in place. Paths are tuples of mapping keys
    (``str``) and sequence indexes (``int``)."""

    __slots__ = ("_node", "_path", "_text", "_value")

    def __init__(self, text: str, node: yaml.Node | None, value: Any, path: PathLike | None) -> None:
        self._text = text
        self._node = node
        self._value = value
        self._path = path

    @classmethod
    def parse(cls, text: str, *, path: PathLike | None = None) -> YamlDocument:
        """``text`` as a document (a mapping at the top, or empty: ``{}``); an invalid text raises
        :class:`~elydora_config.errors.MalformedConfigError` naming ``path``, line and column."""
        node, value = _compose(text, path)
        if node is not None and not isinstance(node, yaml.MappingNode):
            raise MalformedConfigError(path, "the top level must be a YAML mapping")
        return cls(text, node, {} if value is None else value, path)

    # -- reading ----------------------------------------------------------------------------------
    @property
    def text(self) -> str:
        """The current text."""
        return self._text

    @property
    def value(self) -> Any:
        """The whole document as plain Python data (a new object at each access)."""
        return copy_data(self._value)

    def get(self, path: Sequence[Key], default: Any = _MISSING, /) -> Any:
        """The value at ``path`` (a copy); ``default`` when it does not exist, else a ``KeyError``."""
        found = self._lookup(path)
        if found is _MISSING:
            if default is _MISSING:
                raise KeyError(tuple(path))
            return default
        return copy_data(found)

    def has(self, path: Sequence[Key], /) -> bool:
        """Whether a value exists at ``path``."""
        return self._lookup(path) is not _MISSING

    def _lookup(self, path: Sequence[Key]) -> Any:
        current = self._value
        for key in path:
            if not holds(current, key):
                return _MISSING
            current = current[key]
        return current

    # -- editing ----------------------------------------------------------------------------------
    def set(self, path: Sequence[Key], value: Any, *, before: str | None = None, after: str | None = None) -> None:
        """Set ``path`` to ``value``, as the JSONC and TOML editors do.

        An existing value (a mapping key's, or a sequence item's by its index, negative from the end) is replaced
        where it is: a scalar on its key's or ``-``'s line by the new text only (a comment after it stays), a
        block value by its lines written anew, whatever ``before``/``after`` say. A new mapping key goes last in
        its mapping, or right ``before`` (above the comment lines right above it) or ``after`` the sibling key
        named (``KeyError`` when the mapping has no such key, ``TypeError`` when both are given).

        Missing mappings on the way are created; a sequence index that does not exist raises ``KeyError`` (``set``
        never adds an item: use ``insert``); a path through a scalar, and a value the editor cannot splice (an
        anchor, alias or tag, a key without a value), are refused (``MalformedConfigError``) and nothing changes.
        """
        if before is not None and after is not None:
            raise TypeError("give before= or after=, not both")
        sibling = before if before is not None else after
        if not path:
            raise self._refused(path, "the whole document cannot be replaced")
        *parent, key = path
        if sibling is not None and not (isinstance(self.get(parent, None), dict) and sibling in self.get(parent)):
            raise KeyError((*parent, sibling))
        if self.has(path):
            self._replace(path, value)
            return
        if not isinstance(key, str):
            if isinstance(self.get(parent, None), list):
                raise KeyError(tuple(path))
            raise self._refused(path, "only a mapping key can be added")
        found, data = 0, self._value
        while found < len(parent) and holds(data, parent[found]):
            data = data[parent[found]]
            found += 1
        if found < len(parent):  # the first missing key gets the rest, nested
            if parent[found] in data or not all(isinstance(k, str) for k in path[found:]):
                raise KeyError(tuple(path))
            nested = value
            for name in reversed(path[found + 1 :]):
                nested = {name: nested}
            self.set(path[: found + 1], nested)
            return
        holder, node = self._collection(parent, yaml.MappingNode)
        if node is None or not node.value:
            self._into_empty(parent, holder, node, {key: value})
            return
        column = node.value[0][0].start_mark.column
        lines = render.entry(key, value, column, self._style())
        if sibling is None:
            self._insert_after(own_end(self._text, node), lines, path, lambda data: _put(data, parent, key, value))
            return
        expected = self.value
        old = _at(expected, parent)
        placed = {}
        for name, item in old.items():
            if name == sibling and before is not None:
                placed[key] = copy_data(value)
            placed[name] = item
            if name == sibling and after is not None:
                placed[key] = copy_data(value)
        old.clear()
        old.update(placed)
        sibling_key, sibling_value = next((k, v) for k, v in node.value if k.value == sibling)
        if after is not None:
            last = own_end(self._text, sibling_value if has_text(sibling_value) else sibling_key)
            self._insert_after(last, lines, path, lambda _: expected)
            return
        at = self._head(holder, node, [k for k, _ in node.value].index(sibling_key))  # above its comment lines
        self._apply(at, at, render.text(lines, self._style()), expected, path)

    def _replace(self, path: Sequence[Key], value: Any) -> None:
        *parent, key = path
        expected = self.value
        holding = _at(expected, parent)
        if holding[key] == value and same_types(holding[key], copy_data(value)):
            return
        holding[key] = copy_data(value)
        style = self._style()
        if isinstance(key, int):
            _, node = self._collection(parent, yaml.SequenceNode)
            old = node.value[key]
            self._plain(old, path)
            splice = partial(replacing.in_sequence, self._text, old, value, style)
        else:
            _, node = self._collection(parent, yaml.MappingNode)
            pairs = [pair for pair in node.value if pair[0].value == key]
            if len(pairs) != 1:
                raise self._refused(path, "appears more than once")
            self._plain(pairs[0][1], path)
            splice = partial(replacing.in_mapping, self._text, pairs[0][0], pairs[0][1], value, style)
        try:
            start, end, body = splice()
        except replacing.Unspliceable as exc:
            raise self._refused(path, str(exc)) from None
        self._apply(start, end, body, expected, path)

    def insert(self, path: Sequence[Key], index: int, value: Any) -> None:
        """Insert ``value`` into the sequence at ``path`` before ``index`` (its length: at the end)."""
        holder, node = self._collection(path, yaml.SequenceNode)
        size = len(node.value) if node is not None else 0
        if not 0 <= index <= size:
            raise self._refused(path, f"has no position {index}")
        if node is None or not node.value:
            self._into_empty(path, holder, node, [value])
            return
        dash = dash_of(self._text, node.value[0])
        lines = render.item_lines(value, dash - line_start(self._text, dash), self._style())
        expected = self.value
        _at(expected, path).insert(index, copy_data(value))
        if index == size:
            self._insert_after(own_end(self._text, node), lines, path, lambda _: expected)
            return
        start = self._head(holder, node, index)
        self._apply(start, start, render.text(lines, self._style()), expected, path)

    def remove(self, path: Sequence[Key]) -> None:
        """Remove the mapping key or sequence item at ``path`` with the whole lines it spans and the comment lines
        right above it (no blank line between: they are its own; a comment parted from it by a blank line stays),
        the same rule as in the JSONC and TOML editors (docs/editors.md, "One rule per verb")."""
        if not path:
            raise self._refused(path, "the whole document cannot be removed")
        *parent, last = path
        holder, node = self._collection(parent, yaml.SequenceNode if isinstance(last, int) else yaml.MappingNode)
        if node is None:
            raise self._refused(path, "does not exist")
        if isinstance(last, int):
            position = last if last >= 0 else last + len(node.value)
            if not 0 <= position < len(node.value):
                raise self._refused(path, "does not exist")
            end = self._end_of(node.value[position])
        else:
            pairs = [pair for pair in node.value if pair[0].value == last]
            if not pairs:
                raise self._refused(path, "does not exist")
            key_node, value_node = pairs[0]
            position = node.value.index(pairs[0])
            end = self._end_of(value_node if has_text(value_node) else key_node)
        start = self._head(holder, node, position)  # its comment lines go with it
        is_last = position == len(node.value) - 1
        if len(node.value) == 1 and node is self._node:  # and the blank lines that parted it from a comment
            start = blank_lines_up(self._text, start, 0)
        if len(node.value) > 1 and is_last:
            previous = node.value[-2]
            if isinstance(previous, tuple):
                previous = previous[1] if has_text(previous[1]) else previous[0]
            above = self._end_of(previous)  # a last entry takes the blank lines above it: none is left in its place
            if above < start and not self._text[above:start].strip(" \t\r\n"):
                start = above
        expected = self.value
        container = _at(expected, parent)
        del container[last if isinstance(last, str) else position]
        if len(node.value) == 1 and parent:  # emptied: the collection goes back to flow form after its key
            if holder is None:
                raise self._refused(path, "is the last entry of a collection inside a sequence; Elydora keeps it")
            self._emptied(start, end, holder, "[]" if isinstance(last, int) else "{}", expected, path)
            return
        if end == len(self._text) and not self._text.endswith("\n") and start > 0:
            start -= 2 if self._text[start - 2 : start] == "\r\n" else 1  # no break after it: take the one before
        self._apply(start, end, "", expected, path)

    # -- the splices ------------------------------------------------------------------------------
    def _collection(self, path: Sequence[Key], kind: type) -> tuple[yaml.Node | None, Any]:
        """``(key node holding it or None for the top level, the collection's node or None when empty/absent
        at the top level)`` for the collection at ``path``, refusing shapes the editor does not splice."""
        holder: yaml.Node | None = None
        node = self._node
        for depth, key in enumerate(path):
            if node is None:
                raise self._refused(path[: depth + 1], "does not exist")
            self._plain(node, path[:depth])
            if isinstance(node, yaml.MappingNode) and isinstance(key, str):
                pairs = [pair for pair in node.value if isinstance(pair[0], yaml.ScalarNode) and pair[0].value == key]
                if len(pairs) != 1:
                    problem = "does not exist" if not pairs else "appears more than once"
                    raise self._refused(path[: depth + 1], problem)
                holder, node = pairs[0]
            elif isinstance(node, yaml.SequenceNode) and holds(node.value, key):
                holder, node = None, node.value[key]
            else:
                raise self._refused(path[: depth + 1], "does not exist")
        if node is None:
            return None, None
        self._plain(node, path)
        if not isinstance(node, kind):
            wanted = "mapping" if kind is yaml.MappingNode else "sequence"
            hint = " (a key without a value?)" if node.tag.endswith(":null") else ""
            raise self._refused(path, f"is not a {wanted}{hint}")
        if isinstance(node, yaml.CollectionNode) and node.flow_style and node.value:
            raise self._refused(path, "is written in flow style ({...} or [...]); Elydora edits block style only")
        return holder, node

    def _plain(self, node: yaml.Node, path: Sequence[Key]) -> None:
        if self._text[node.start_mark.index : node.start_mark.index + 1] in ("&", "*", "!"):
            raise self._refused(path, "carries an anchor, alias or tag; Elydora does not edit through them")

    def _style(self) -> render.Style:
        return _style(self._text, self._node)

    def _head(self, holder: yaml.Node | None, node: yaml.Node, index: int) -> int:
        """The line start where entry ``index`` of the block collection ``node`` begins with its own comment
        lines (those right above its key or ``-`` line, no blank line between)."""
        entry = node.value[index]
        if isinstance(entry, tuple):
            begin = line_start(self._text, entry[0].start_mark.index)
        else:
            begin = line_start(self._text, dash_of(self._text, entry))
        if index > 0:
            previous = node.value[index - 1]
            if isinstance(previous, tuple):
                previous = previous[1] if has_text(previous[1]) else previous[0]
            floor = self._end_of(previous)
        elif holder is not None:
            floor = line_end(self._text, holder.end_mark.index)
        else:
            floor = 0 if node is self._node else begin
        return comment_lines_up(self._text, begin, floor)

    def _end_of(self, node: yaml.Node) -> int:
        """Just after the line break that ends ``node``'s last line of its own."""
        return line_end(self._text, own_end(self._text, node))

    def _into_empty(self, path: Sequence[Key], holder: yaml.Node | None, node: yaml.Node | None,
                    entries: dict[str, Any] | list[Any]) -> None:
        """Write the first entries of an empty collection: after the text at the top level, else in place of the
        ``{}``/``[]`` after its key, indented one step right of the key."""
        style = self._style()
        expected = self.value
        target = _at(expected, path)
        if isinstance(entries, dict):
            target.update(copy_data(entries))
        else:
            target.extend(copy_data(entries))
        if holder is None:
            if path or not isinstance(entries, dict):
                raise self._refused(path, "is an empty collection inside a sequence; Elydora does not edit it")
            lines = render.mapping(entries, 0, style)
            start = len(self._text)
            body = render.text(lines, style)
            if self._text and not self._text.endswith("\n"):
                body = style.newline + body[: -len(style.newline)]
            if self._text[line_start(self._text, len(self._text.rstrip("\r\n"))) :].lstrip(" \t").startswith("#"):
                body = style.newline + body  # a blank line, else the comment above would become the key's own
            self._apply(start, start, body, expected, path)
            return
        assert node is not None
        column = holder.start_mark.column
        if isinstance(entries, dict):
            lines = render.mapping(entries, column + style.mapping, style)
        else:
            lines = render.sequence(entries, column + style.sequence, style)
        colon = self._text.index(":", holder.end_mark.index) + 1
        eol = line_end(self._text, node.end_mark.index)
        rest = self._text[node.end_mark.index : eol]
        body = rest + render.text(lines, style)
        if not rest.endswith("\n"):
            body = rest + style.newline + render.text(lines, style)[: -len(style.newline)]
        self._apply(colon, eol, body, expected, path)

    def _emptied(self, start: int, end: int, holder: yaml.Node, flow: str, expected: Any, path: Sequence[Key]) -> None:
        """Remove the last entry of a block collection and write ``flow`` after its key instead."""
        colon = self._text.index(":", holder.end_mark.index) + 1
        head_end = line_end(self._text, colon)
        if start < head_end:
            raise self._refused(path, "shares its line with its key; Elydora does not edit it")
        body = " " + flow + self._text[colon:start]  # the rest of the key's line and any lines before the entry
        if end == len(self._text) and not self._text.endswith("\n"):
            body = body[: -2 if body.endswith("\r\n") else -1]
        self._apply(colon, end, body, expected, path)

    def _insert_after(self, last: int, lines: list[str], path: Sequence[Key], change: Any) -> None:
        style = self._style()
        at = line_end(self._text, last)
        body = render.text(lines, style)
        if at == len(self._text) and not self._text.endswith("\n"):
            body = style.newline + body[: -len(style.newline)]
        expected = change(self.value)
        self._apply(at, at, body, expected, path)

    def _apply(self, start: int, end: int, body: str, expected: Any, path: Sequence[Key]) -> None:
        """Splice and re-read: the new text must compose to exactly ``expected``, else nothing changes."""
        new_text = self._text[:start] + body + self._text[end:]
        try:
            node, value = _compose(new_text, self._path)
        except MalformedConfigError as exc:
            raise self._refused(path, f"the edited text would not be valid YAML ({exc.reason})") from None
        if ({} if value is None else value) != expected or not same_types(value or {}, expected):
            raise self._refused(path, "the edited text would not read back as the intended data")
        self._text, self._node, self._value = new_text, node, {} if value is None else value

    def _refused(self, path: Sequence[Key], reason: str) -> MalformedConfigError:
        where = ".".join(str(key) for key in path) or "the document"
        return MalformedConfigError(self._path, f"{where} {reason}")


def _at(data: Any, path: Sequence[Key]) -> Any:
    for key in path:
        data = data[key]
    return data


def _put(data: Any, parent: Sequence[Key], key: str, value: Any) -> Any:
    _at(data, parent)[key] = copy_data(value)
    return data

