"""Plain data as block-style YAML lines: what the YAML editor splices into a text.

Mappings and sequences are written in block style (an empty one as ``{}`` or ``[]``), strings that read back
as themselves unquoted are written plain and every other string as a JSON string (a valid YAML double-quoted
scalar; every character from DEL on is escaped in YAML's own ``\\u``/``\\U`` form, as YAML refuses some of them
raw and reads a JSON surrogate pair as two), so that a value renders the same way in every document.
:class:`Style` carries the indentation a document already uses, so that inserted lines look like their
neighbours; the editor re-reads every result and refuses an edit whose text does not read back as the intended
data.
"""

from __future__ import annotations

import json
import math
import re
from typing import TYPE_CHECKING

from elydora_config.records import record

if TYPE_CHECKING:
    from typing import Any

_PLAIN = re.compile(r"[A-Za-z_][A-Za-z0-9_./-]*\Z")
_RESERVED = frozenset(
    word
    for base in ("y", "n", "yes", "no", "on", "off", "true", "false", "null")
    for word in (base, base.capitalize(), base.upper())
)
"""Words YAML 1.1 (PyYAML's reading) takes for booleans or null: never written plain."""


_WIDE = re.compile("[\x7f-\U0010ffff]")
"""Characters escaped in a double-quoted scalar beyond what JSON escapes (YAML refuses some of them raw)."""


def _escape(match: re.Match[str]) -> str:
    """YAML's own escape: ``\\uXXXX``, or ``\\UXXXXXXXX`` beyond the basic plane (not a JSON surrogate pair,
    which YAML reads as two characters)."""
    code = ord(match.group())
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


@record(frozen=True)
class Style:
    """How a document indents: a nested mapping's keys ``mapping`` columns right of its parent key, a
    sequence's ``-`` ``sequence`` columns right of the key that holds it (0: indentless)."""

    mapping: int = 2
    sequence: int = 2
    newline: str = "\n"


def scalar(value: Any) -> str:
    """One scalar (or an empty collection) in flow form."""
    if value is None:
        return "null"
    if value is True or value is False:
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return ".nan"
        if math.isinf(value):
            return ".inf" if value > 0 else "-.inf"
        return repr(value)
    if isinstance(value, str):
        if _PLAIN.match(value) and value not in _RESERVED:
            return value
        return _WIDE.sub(_escape, json.dumps(value, ensure_ascii=False))
    if value == {}:
        return "{}"
    if value == []:
        return "[]"
    raise TypeError(f"not a YAML scalar: {type(value).__name__}")


def _is_block(value: Any) -> bool:
    return isinstance(value, (dict, list)) and bool(value)


def entry(key: str, value: Any, column: int, style: Style) -> list[str]:
    """The lines of one mapping entry ``key: value`` whose key starts at ``column``."""
    head = " " * column + scalar(key) + ":"
    if not _is_block(value):
        return [f"{head} {scalar(value)}"]
    if isinstance(value, dict):
        return [head, *mapping(value, column + style.mapping, style)]
    return [head, *sequence(value, column + style.sequence, style)]


def mapping(value: dict[str, Any], column: int, style: Style) -> list[str]:
    """The lines of a block mapping whose keys start at ``column``."""
    lines: list[str] = []
    for key, item in value.items():
        lines += entry(key, item, column, style)
    return lines


def sequence(value: list[Any], dash: int, style: Style) -> list[str]:
    """The lines of a block sequence whose ``-`` indicators are at column ``dash``."""
    lines: list[str] = []
    for item in value:
        lines += item_lines(item, dash, style)
    return lines


def item_lines(value: Any, dash: int, style: Style) -> list[str]:
    """One sequence item: ``- `` then the value, a mapping's first entry on the indicator's line."""
    content = dash + 2
    if not _is_block(value):
        return [" " * dash + "- " + scalar(value)]
    inner = mapping(value, content, style) if isinstance(value, dict) else sequence(value, content, style)
    return [" " * dash + "- " + inner[0][content:], *inner[1:]]


def text(lines: list[str], style: Style) -> str:
    """``lines`` joined, each ended by the document's line break."""
    return "".join(line + style.newline for line in lines)
