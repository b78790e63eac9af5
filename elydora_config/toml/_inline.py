"""Inline arrays and inline tables: where their items are, and the minimal splices that edit them."""

from __future__ import annotations

import re
from typing import Any

from elydora_config._hashlines import comment_lines_up, line_start
from elydora_config.toml._scanner import (
    EQ_RE,
    KEY_RE,
    ScanError,
    key_parts,
    skip_value,
)
from elydora_config.toml._values import Path, Style, render_dotted, render_value

from ..records import field, record, replace

Splice = tuple[int, int, str]

_GAP_RE = r"(?:[ \t\r\n]|#[^\n]*)*"
_SPACE_RE = r"[ \t]*"
_LINE_TAIL_RE = r"[ \t]*,?[ \t]*(?:#[^\n]*)?\r?\n"


@record(eq=False)
class Node:
    """A value in the text: ``kind`` is "array", "table" or "scalar"; ``start``/``end`` its span."""

    kind: str
    start: int
    end: int
    items: list[Node] = field(default_factory=list)  # array items or inline-table values
    keys: list[tuple[str, ...]] = field(default_factory=list)  # inline table: each pair's keys
    key_starts: list[int] = field(default_factory=list)  # inline table: where each pair starts
    commas: list[int] = field(default_factory=list)  # offset of the comma after item i, or -1


def parse_node(text: str, pos: int) -> Node:
    """The inline value (array, inline table or scalar) that starts at ``pos``."""
    char = text[pos : pos + 1]
    if char == "[":
        return _parse_array(text, pos)
    if char == "{":
        return _parse_table(text, pos)
    return Node("scalar", pos, skip_value(text, pos))


def _parse_array(text: str, pos: int) -> Node:
    node = Node("array", pos, pos)
    pos = re.compile(_GAP_RE).match(text, pos + 1).end()  # type: ignore[union-attr]
    while text[pos : pos + 1] != "]":
        item = parse_node(text, pos)
        node.items.append(item)
        pos = _after_item(text, node, item, "]")
    node.end = pos + 1
    return node


def _after_item(text: str, node: Node, item: Node, closer: str) -> int:
    """Record the comma after ``item`` (``-1`` before the closer); return where the next item starts."""
    pos = re.compile(_GAP_RE).match(text, item.end).end()  # type: ignore[union-attr]
    if text[pos : pos + 1] == ",":
        node.commas.append(pos)
        return re.compile(_GAP_RE).match(text, pos + 1).end()  # type: ignore[union-attr]
    if text[pos : pos + 1] == closer:
        node.commas.append(-1)
        return pos
    raise ScanError(f"expected ',' or '{closer}' at offset {pos}")


def _parse_table(text: str, pos: int) -> Node:
    node = Node("table", pos, pos)
    pos = re.compile(_GAP_RE).match(text, pos + 1).end()  # type: ignore[union-attr]
    while text[pos : pos + 1] != "}":
        key = re.compile(KEY_RE).match(text, pos)
        eq = re.compile(EQ_RE).match(text, key.end()) if key else None
        if key is None or eq is None:
            raise ScanError(f"cannot read the inline-table key at offset {pos}")
        item = parse_node(text, eq.end())
        node.keys.append(key_parts(key.group()))
        node.key_starts.append(pos)
        node.items.append(item)
        pos = _after_item(text, node, item, "}")
    node.end = pos + 1
    return node


def find(node: Node, rest: Path) -> tuple[Node, Node | None, int]:
    """Walk ``rest`` from ``node``: (parent container, target or None when absent, index in parent).

    Raises ScanError for shapes the span editor leaves to the fallback (dotted keys that only
    partly match inside an inline table).
    """
    parent = node
    target: Node | None = node
    index = -1
    while rest:
        if target is None:
            raise ScanError("missing intermediate value inside an inline value")
        parent = target
        step = rest[0]
        if parent.kind == "array" and isinstance(step, int):
            if not 0 <= step < len(parent.items):
                return parent, None, step
            index, target, rest = step, parent.items[step], rest[1:]
            continue
        if parent.kind != "table" or not isinstance(step, str):
            raise ScanError("path does not match the inline value")
        for i, keys in enumerate(parent.keys):
            if rest[: len(keys)] == keys:
                index, target, rest = i, parent.items[i], rest[len(keys) :]
                break
        else:
            if any(keys[0] == step for keys in parent.keys):
                raise ScanError("an implicit table made by dotted keys inside an inline table")
            if len(rest) > 1:
                raise ScanError("missing intermediate table inside an inline value")
            return parent, None, len(parent.keys)
    assert target is not None
    return parent, target, index


def is_written(node: Node, rest: Path) -> bool:
    """Whether ``rest`` names a value written as such inside ``node`` (not only a dotted-key prefix)."""
    while rest:
        step = rest[0]
        if node.kind == "array" and isinstance(step, int) and 0 <= step < len(node.items):
            node, rest = node.items[step], rest[1:]
            continue
        if node.kind != "table":
            return False
        for i, keys in enumerate(node.keys):
            if rest[: len(keys)] == keys:
                node, rest = node.items[i], rest[len(keys) :]
                break
        else:
            return False
    return True


def _is_multiline(text: str, node: Node) -> bool:
    return "\n" in text[node.start : node.end]


def _item_start(node: Node, index: int) -> int:
    return node.key_starts[index] if node.kind == "table" else node.items[index].start


def _own_line(text: str, node: Node, index: int) -> tuple[int, int] | None:
    """The line span of item ``index`` when it sits alone on its line(s) in a multi-line array."""
    start = _item_start(node, index)
    begin = line_start(text, start)
    if text[begin:start].strip(" \t"):
        return None
    tail = re.compile(_LINE_TAIL_RE).match(text, node.items[index].end)
    if tail is None or node.commas[index] >= tail.end():
        return None
    return begin, tail.end()


def _head(text: str, node: Node, index: int, begin: int) -> int:
    """Where item ``index`` of a multi-line array, alone on its line starting at ``begin``, begins with its own
    comment lines (those right above it, below the line of the item or bracket before it)."""
    before = node.start + 1 if index == 0 else max(node.items[index - 1].end, node.commas[index - 1] + 1)
    return comment_lines_up(text, begin, text.find("\n", before) + 1)


def _separator(text: str, node: Node, style: Style) -> str:
    if len(node.items) >= 2 and node.commas[0] >= 0:
        sep = text[node.commas[0] : _item_start(node, 1)]
        if "\n" not in sep and "#" not in sep:
            return sep
    return style.separator


def inline_style(text: str, node: Node, style: Style) -> Style:
    """``style`` adjusted to the first non-empty inline table inside ``node`` (``=`` spacing, padding)."""
    for item in node.items:
        if item.kind == "table" and item.items:
            key = re.compile(KEY_RE).match(text, item.key_starts[0])
            eq = text[key.end() : item.items[0].start] if key is not None else style.eq
            pad = text[item.start + 1 : item.key_starts[0]]
            return replace(style, eq=eq, brace_pad=" " if pad else "")
    return style


def deepest_written(node: Node, rest: Path) -> tuple[Node, Path]:
    """The deepest value written inside ``node`` along ``rest``, and the steps left after it."""
    while rest:
        step = rest[0]
        if node.kind == "array" and isinstance(step, int) and 0 <= step < len(node.items):
            node, rest = node.items[step], rest[1:]
            continue
        if node.kind != "table":
            break
        for i, keys in enumerate(node.keys):
            if rest[: len(keys)] == keys:
                node, rest = node.items[i], rest[len(keys) :]
                break
        else:
            break
    return node, rest


def render_item(text: str, node: Node, keys: tuple[str, ...] | None, value: Any, style: Style) -> str:
    """An array item (``keys`` None) or an inline-table pair, styled like its neighbours."""
    style = inline_style(text, node, style)
    rendered = render_value(value, style)
    if keys is None:
        return rendered
    eq = style.eq
    if node.kind == "table" and node.items:
        first = node.items[0].start
        key_end = node.key_starts[0]
        match = re.compile(KEY_RE).match(text, key_end)
        if match is not None:
            eq = text[match.end() : first]
    return render_dotted(keys) + eq + rendered


def insert_item(text: str, node: Node, index: int, item_text: str, style: Style) -> list[Splice]:
    """Splices inserting ``item_text`` as item ``index`` of an inline array or table."""
    count = len(node.items)
    multiline = node.kind == "array" and _is_multiline(text, node)
    if count == 0 and multiline:  # a line of its own below the opening line (and the comment it may end with)
        at = text.find("\n", node.start) + 1
        indent = re.compile(_SPACE_RE).match(text, line_start(text, node.start)).group()  # type: ignore[union-attr]
        newline = "\r\n" if text[at - 2 : at] == "\r\n" else "\n"
        return [(at, at, indent + _STEP + item_text + newline)]
    if count == 0:
        return [(node.start + 1, node.start + 1, item_text)]
    if multiline and count >= 2 and _comma_first(text, node):
        return _insert_comma_first(text, node, index, item_text)
    if multiline:
        return _insert_multiline(text, node, index, item_text, style)
    sep = _separator(text, node, style)
    if index < count:
        at = _item_start(node, index)
        return [(at, at, item_text + sep)]
    at = node.items[-1].end
    return [(at, at, sep + item_text)]


_STEP = "    "
"""The indentation of the first item of an empty multi-line array, one step in from its key's line (there is
no item to follow; four spaces, as tomlkit and most TOML files indent)."""


def _comma_first(text: str, node: Node) -> bool:
    """Whether every item after the first starts its line with the comma before it (``  , 2``), and each item
    ends its line (no comma after the last); the first item starts its own line."""
    if text[line_start(text, node.items[0].start) : node.items[0].start].strip(" \t"):
        return False
    for i in range(1, len(node.items)):
        comma = node.commas[i - 1]
        if comma < 0 or text[line_start(text, comma) : comma].strip(" \t"):
            return False
        if text[comma + 1 : node.items[i].start].strip(" \t"):
            return False
    return node.commas[-1] < 0 and all(_ends_line(text, item.end) for item in node.items)


def _ends_line(text: str, end: int) -> bool:
    tail = re.compile(_LINE_TAIL_RE).match(text, end)
    return tail is not None and tail.end() > end and text[tail.end() - 1] == "\n"


def _insert_comma_first(text: str, node: Node, index: int, item_text: str) -> list[Splice]:
    """Insert into a comma-first array: the new item gets a ``, item`` line like the others (the first
    item's line keeps its form: a new first item takes it, and the old first item gets a comma line)."""
    second = node.items[1].start
    lead = text[line_start(text, second) : second]  # e.g. "  , "
    newline = "\r\n" if "\r\n" in text[node.start : node.end] else "\n"
    if index == 0:
        begin = line_start(text, node.items[0].start)
        indent = text[begin : node.items[0].start]
        return [(begin, node.items[0].start, indent + item_text + newline + lead)]
    if index < len(node.items):
        at = line_start(text, node.commas[index - 1])
        return [(at, at, lead + item_text + newline)]
    at = re.compile(_LINE_TAIL_RE).match(text, node.items[-1].end).end()  # type: ignore[union-attr]
    return [(at, at, lead + item_text + newline)]


def _insert_multiline(text: str, node: Node, index: int, item_text: str, style: Style) -> list[Splice]:
    count = len(node.items)
    anchor = index if index < count else count - 1
    own = _own_line(text, node, anchor)
    if own is None:
        sep = _separator(text, node, style)
        if index < count:
            at = node.items[index].start
            return [(at, at, item_text + sep)]
        at = node.items[-1].end
        return [(at, at, sep + item_text)]
    begin, end = own
    indent = re.compile(_SPACE_RE).match(text, begin).group()  # type: ignore[union-attr]
    newline = "\r\n" if text[end - 2 : end] == "\r\n" else "\n"
    if index < count:
        at = _head(text, node, index, begin)  # above the item's own comment lines
        return [(at, at, indent + item_text + "," + newline)]
    trailing_comma = node.commas[-1] >= 0
    splices: list[Splice] = []
    if not trailing_comma:
        splices.append((node.items[-1].end, node.items[-1].end, ","))
    splices.append((end, end, indent + item_text + ("," if trailing_comma else "") + newline))
    return splices


def remove_item(text: str, node: Node, index: int) -> list[Splice]:
    """Splices removing item ``index`` (with one separator) from an inline array or table."""
    count = len(node.items)
    item = node.items[index]
    start = _item_start(node, index)
    if node.kind == "array" and _is_multiline(text, node):
        own = _own_line(text, node, index)
        if own is not None:  # its line, and the comment lines right above it (its own)
            splices: list[Splice] = [(_head(text, node, index, own[0]), own[1], "")]
            if index == count - 1 and node.commas[index] < 0 and count > 1 and node.commas[index - 1] >= 0:
                comma = node.commas[index - 1]
                splices.insert(0, (comma, comma + 1, ""))
            return splices
    if count == 1:
        end = item.end
        if node.commas[0] >= 0:
            end = re.compile(_SPACE_RE).match(text, node.commas[0] + 1).end()  # type: ignore[union-attr]
        return [(start, end, "")]
    if index < count - 1:
        return [(start, _item_start(node, index + 1), "")]
    previous = node.items[index - 1].end
    if "#" in text[previous:start]:
        return [(start, item.end, "")] if node.commas[index] < 0 else [(start, node.commas[index] + 1, "")]
    return [(previous, item.end, "")]
