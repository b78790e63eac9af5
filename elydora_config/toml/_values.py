"""Plain TOML data: normalising caller values, strict comparison, cheap copies and rendering as TOML text.

"Plain data" is what ``tomllib`` returns: ``dict`` (str keys), ``list``, ``str``, ``int``, ``float``,
``bool``, ``datetime.datetime``, ``datetime.date`` and ``datetime.time``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

from ..records import record

Key = str | int
Path = tuple[Key, ...]

INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1

_BARE_KEY = r"[A-Za-z0-9_-]+\Z"
_NEEDS_ESCAPE = r'[\x00-\x1f"\\\x7f]'
_SHORT_ESCAPES = {"\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r", '"': '\\"', "\\": "\\\\"}
_LITERAL_OK = r"[^'\x00-\x08\x0a-\x1f\x7f]*\Z"
"""The patterns of rendering (an edit's): compiled on first use by :mod:`re`'s cache, not by a reader's import."""


@record(frozen=True)
class Style:
    """How new text is written so that it looks like its neighbours."""

    newline: str = "\n"
    eq: str = " = "  # text between a key and its value
    indent: str = ""  # indentation of key lines under a table header
    brace_pad: str = " "  # space just inside ``{ }`` of a non-empty inline table
    separator: str = ", "  # between items of a single-line inline array / inline table
    literal_strings: bool = False  # write strings as 'literal' when possible


def normalize(value: object, *, where: str = "value") -> Any:
    """Return ``value`` as plain TOML data, or raise ``TypeError`` / ``ValueError``.

    Tuples become lists, mappings become dicts, subclasses of the scalar types become the base type.
    ``None`` is refused (TOML has no null), as are integers outside the 64-bit range TOML allows.
    """
    if isinstance(value, bool):
        return bool(value)
    if isinstance(value, int):
        number = int(value)
        if not INT64_MIN <= number <= INT64_MAX:
            raise ValueError(f"{where}: integer {number} is outside TOML's 64-bit range")
        return number
    if isinstance(value, float):
        return float(value)
    if isinstance(value, str):
        text = str(value)
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            raise ValueError(f"{where}: string is not encodable as UTF-8") from None
        return text
    import datetime as dt  # imported by the first date or time value (see the list in elydora_config/__init__.py)

    if isinstance(value, dt.datetime):
        offset = value.utcoffset()
        if offset is not None and offset % dt.timedelta(minutes=1):
            raise ValueError(f"{where}: TOML offsets are whole minutes")
        tz = dt.timezone(offset) if offset is not None else None
        return dt.datetime(
            value.year, value.month, value.day, value.hour, value.minute, value.second, value.microsecond, tz
        )
    if isinstance(value, dt.date):
        return dt.date(value.year, value.month, value.day)
    if isinstance(value, dt.time):
        if value.tzinfo is not None:
            raise ValueError(f"{where}: TOML local times carry no offset")
        return dt.time(value.hour, value.minute, value.second, value.microsecond)
    if isinstance(value, Mapping):
        out: dict[str, Any] = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise TypeError(f"{where}: table keys must be strings, got {type(key).__name__}")
            out[str(key)] = normalize(item, where=f"{where}.{key}")
        return out
    if isinstance(value, list | tuple):
        return [normalize(item, where=f"{where}[{i}]") for i, item in enumerate(value)]
    if value is None:
        raise TypeError(f"{where}: TOML has no null value")
    raise TypeError(f"{where}: {type(value).__name__} cannot be written as TOML")


def same(a: object, b: object) -> bool:
    """Strict equality of plain data: types must match (``1 != 1.0 != True``), NaN equals NaN,
    ``0.0`` differs from ``-0.0``, date-times must agree on their offset."""
    kind = type(a)
    if kind is not type(b):
        return False
    if kind is dict:
        assert isinstance(a, dict) and isinstance(b, dict)
        if len(a) != len(b):
            return False
        return all(key in b and same(item, b[key]) for key, item in a.items())
    if kind is list:
        assert isinstance(a, list) and isinstance(b, list)
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if kind is float:
        assert isinstance(a, float) and isinstance(b, float)
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        return a == b and math.copysign(1.0, a) == math.copysign(1.0, b)
    if kind is str or kind is int or kind is bool:
        return a == b
    import datetime as dt  # as above: only dates and times are left

    if kind is dt.datetime:
        assert isinstance(a, dt.datetime) and isinstance(b, dt.datetime)
        return a.utcoffset() == b.utcoffset() and a.replace(tzinfo=None) == b.replace(tzinfo=None)
    return a == b


def is_table_array(value: object) -> bool:
    """A non-empty list holding only tables (what ``[[name]]`` headers can express)."""
    return type(value) is list and bool(value) and all(type(item) is dict for item in value)


def render_key(key: str) -> str:
    """A key part as TOML: bare when possible, otherwise a basic string."""
    return key if re.match(_BARE_KEY, key) else render_basic_string(key)


def render_dotted(keys: Path) -> str:
    """``keys`` as a dotted TOML key."""
    return ".".join(render_key(str(key)) for key in keys)


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    return _SHORT_ESCAPES.get(char) or f"\\u{ord(char):04X}"


def render_basic_string(text: str) -> str:
    """``text`` as a TOML basic (double-quoted) string."""
    return '"' + re.sub(_NEEDS_ESCAPE, _escape, text) + '"'


def render_string(text: str, style: Style) -> str:
    """``text`` as a TOML string in the document's style (literal when it prefers and can)."""
    if style.literal_strings and re.match(_LITERAL_OK, text):
        return "'" + text + "'"
    return render_basic_string(text)


def render_float(number: float) -> str:
    """``number`` as a TOML float (``nan``, ``inf`` and ``-inf`` included)."""
    if math.isnan(number):
        return "nan"
    if math.isinf(number):
        return "inf" if number > 0 else "-inf"
    text = repr(number)
    if "e" not in text and "." not in text:
        text += ".0"
    return text


def render_value(value: Any, style: Style) -> str:
    """Plain data as an inline TOML value (inline tables and single-line arrays for containers)."""
    kind = type(value)
    if kind is str:
        return render_string(value, style)
    if kind is bool:
        return "true" if value else "false"
    if kind is int:
        return str(value)
    if kind is float:
        return render_float(value)
    if kind is list:
        return "[" + style.separator.join(render_value(item, style) for item in value) + "]"
    if kind is dict:
        if not value:
            return "{}"
        pairs = ", ".join(render_key(key) + style.eq + render_value(item, style) for key, item in value.items())
        return "{" + style.brace_pad + pairs + style.brace_pad + "}"
    import datetime as dt  # as above: only dates and times are left

    if kind is dt.datetime or kind is dt.date or kind is dt.time:
        return str(value.isoformat())
    raise TypeError(f"{kind.__name__} cannot be written as TOML")


def render_block(header: Path, table: dict[str, Any], *, array: bool, style: Style) -> list[str]:
    """Lines (without line endings) of a ``[header]`` / ``[[header]]`` block holding ``table``.

    Scalars, inline-able arrays and empty tables become key lines; non-empty sub-tables become
    ``[header.key]`` blocks and non-empty lists of tables ``[[header.key]]`` blocks after them.
    A plain table whose only content is sub-tables gets no header line of its own.
    """
    lines: list[str] = []
    children: list[tuple[str, Any]] = []
    for key, item in table.items():
        if (type(item) is dict and item) or is_table_array(item):
            children.append((key, item))
        else:
            lines.append(style.indent + render_key(key) + style.eq + render_value(item, style))
    name = render_dotted(header)
    if array:
        lines.insert(0, f"[[{name}]]")
    elif lines or not children:
        lines.insert(0, f"[{name}]")
    for key, item in children:
        if type(item) is dict:
            lines.extend(render_block((*header, key), item, array=False, style=style))
        else:
            for entry in item:
                lines.extend(render_block((*header, key), entry, array=True, style=style))
    return lines
