"""Replacing a value where it is: the one splice that writes a new value in place of an old one.

A scalar (or a one-line flow collection) on its key's or its ``-``'s line is replaced by the new scalar's text
only, so a comment after it stays. Anything else is rewritten as whole lines: a block value after its key's
line (the key's line, and a comment on it, stay), a sequence item from its ``-`` line. Comments inside the old
value described it and go with it. What cannot be spliced so raises :class:`Unspliceable` with the reason.
"""

from __future__ import annotations

from typing import Any

import yaml

from .._hashlines import line_start
from . import _render as render
from ._lines import dash_of, has_text, line_end, own_end


class Unspliceable(Exception):
    """The old value's shape is one the editor does not replace; ``str(exc)`` says why, in a user's words."""


def _is_block(value: Any) -> bool:
    return isinstance(value, (dict, list)) and bool(value)


def _one_line(node: yaml.Node) -> bool:
    """Whether ``node`` is a scalar or flow collection written on one line (not a ``|``/``>`` block scalar)."""
    if isinstance(node, yaml.ScalarNode) and node.style in ("|", ">"):
        return False
    if isinstance(node, yaml.CollectionNode) and not node.flow_style:
        return False
    return node.start_mark.line == node.end_mark.line


def _lines(text: str, lines: list[str], end: int, style: render.Style) -> str:
    """``lines`` as text ending where the replaced text ended: without a last line break at a text's end
    that has none."""
    body = render.text(lines, style)
    if end == len(text) and not text.endswith("\n"):
        body = body[: -len(style.newline)]
    return body


def in_mapping(text: str, key: yaml.Node, old: yaml.Node, new: Any, style: render.Style) -> tuple[int, int, str]:
    """``(start, end, body)`` writing ``new`` as the value of ``key`` in place of ``old``."""
    if not has_text(old):
        raise Unspliceable("is a key without a value; Elydora does not replace it (write one, such as key: {})")
    colon = text.index(":", key.end_mark.index) + 1
    end = own_end(text, old)
    last = line_end(text, end)  # the end of the old value's last line
    on_key_line = old.start_mark.line == key.start_mark.line
    if not _is_block(new):
        flat = render.scalar(new)
        if on_key_line and _one_line(old):
            return old.start_mark.index, old.end_mark.index, flat
        rest = text[end:last] if on_key_line else text[colon : line_end(text, colon)]  # comment, line break
        return colon, last, " " + flat + rest
    if isinstance(new, dict):
        block_before = isinstance(old, yaml.MappingNode) and not on_key_line
        column = old.start_mark.column if block_before else key.start_mark.column + style.mapping
        lines = render.mapping(new, column, style)
    else:
        block_before = isinstance(old, yaml.SequenceNode) and not old.flow_style and not on_key_line
        first = dash_of(text, old.value[0]) if block_before else 0
        column = first - line_start(text, first) if block_before else key.start_mark.column + style.sequence
        lines = render.sequence(new, column, style)
    if not on_key_line:  # the key's line stays, its comment included
        return line_end(text, colon), last, _lines(text, lines, last, style)
    rest = text[end:last]  # the comment after the old value stays on the key's line
    if not rest.endswith("\n"):
        rest += style.newline
    return colon, last, rest + _lines(text, lines, last, style)


def in_sequence(text: str, item: yaml.Node, new: Any, style: render.Style) -> tuple[int, int, str]:
    """``(start, end, body)`` writing ``new`` in place of the block sequence item ``item``."""
    dash = dash_of(text, item)
    begin = line_start(text, dash)
    if text[begin:dash].strip(" \t"):
        raise Unspliceable("shares its line with the item that holds it; Elydora does not replace it")
    if not has_text(item):
        raise Unspliceable("is an item without a value; Elydora does not replace it")
    if not _is_block(new) and _one_line(item) and line_start(text, item.start_mark.index) == begin:
        return item.start_mark.index, item.end_mark.index, render.scalar(new)
    last = line_end(text, own_end(text, item))
    return begin, last, _lines(text, render.item_lines(new, dash - begin, style), last, style)
