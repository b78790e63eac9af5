"""Where things are in a YAML text: line starts and ends, a sequence item's ``-``, the end of a node's own text,
and the comment lines that belong to the entry below them."""

from __future__ import annotations

import yaml

from .._hashlines import line_start


def line_end(text: str, index: int) -> int:
    """Just after the line break ending the line of ``index`` (the text's end when there is none)."""
    found = text.find("\n", index)
    return len(text) if found < 0 else found + 1


def dash_of(text: str, item: yaml.Node) -> int:
    """The index of the ``-`` indicator of a block sequence item."""
    index = item.start_mark.index - 1
    while index >= 0 and text[index] in " \t\r\n":
        index -= 1
    return index


def own_end(text: str, node: yaml.Node) -> int:
    """The index just after the last character of ``node``'s own text (a block scalar's trailing breaks and a
    block collection's following comments are not part of it)."""
    if isinstance(node, yaml.MappingNode) and not node.flow_style and node.value:
        return own_end(text, node.value[-1][1] if has_text(node.value[-1][1]) else node.value[-1][0])
    if isinstance(node, yaml.SequenceNode) and not node.flow_style and node.value:
        return own_end(text, node.value[-1])
    end = node.end_mark.index
    while end > node.start_mark.index and text[end - 1] in " \t\r\n":
        end -= 1
    return end


def has_text(node: yaml.Node) -> bool:
    """Whether ``node`` spans any text (a key without a value does not)."""
    return node.end_mark.index > node.start_mark.index


def blank_lines_up(text: str, begin: int, floor: int) -> int:
    """Move the line start ``begin`` up over the blank lines right above it when a line with content (after
    ``floor``) stands above them; ``begin`` unchanged otherwise."""
    above = begin
    while above > floor:
        previous = line_start(text, above - 1)
        if text[previous:above].strip(" \t\r\n"):
            break
        above = previous
    return above if floor < above < begin else begin
