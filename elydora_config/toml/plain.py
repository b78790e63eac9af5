"""The data of a TOML text written in a small, line-based subset, decoded without loading ``tomllib``.

``tomllib`` costs more to import (``typing``, ``datetime``, ``string`` and the compilation of its large
regular expressions) than a command that only reads settings spends on everything else. The configs our
installs write, and many small ones, use only this subset, line by line:

* blank lines and ``#`` comments;
* ``[name]`` and ``[[name]]`` headers with one bare key;
* ``key = value`` with a bare key and, as the value, a basic string without escapes, a literal string, a
  decimal integer, ``true`` or ``false``; optionally followed by a comment.

:func:`plain_loads` returns exactly what ``tomllib.loads`` returns for such a text, or ``None`` as soon as
anything is outside the subset (a dotted or quoted key, an array, an inline table, an escape, a float, a
date, a multi-line string) or would be an error (a key or table defined twice, a control character): the
caller then runs ``tomllib``, which decodes the rest of TOML and reports errors with their line and column.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any

_BARE = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")
"""The characters of a bare key or header name."""
_DIGITS = frozenset("0123456789")
_BLANKS = " \t"
_REFUSED_CHARS = frozenset(chr(code) for code in (*range(0x09), 0x0B, 0x0C, *range(0x0E, 0x20), 0x7F))
"""Control characters TOML refuses everywhere (a tab is allowed; a carriage return only before a line feed)."""
_MAX_DIGITS = 18
"""The most digits a decimal integer of the subset has (larger ones are left to tomllib)."""


def plain_loads(text: str) -> dict[str, Any] | None:
    """``tomllib.loads(text)`` when ``text`` is in the subset (see the module), else ``None``.

    Each line is read with string methods, not a regular expression: compiling one costs a command that
    reads a config more than reading it."""
    if not _REFUSED_CHARS.isdisjoint(text) or text.count("\r") != text.count("\r\n"):
        return None
    root: dict[str, Any] = {}
    table = root
    arrays: set[str] = set()  # names made by [[name]] headers: only those may take another [[name]]
    for line in text.split("\n"):
        item = _line(line[:-1] if line.endswith("\r") else line)
        if item is None:
            return None
        kind, name, value = item
        if kind == "key":
            if name in table:
                return None
            table[name] = value
        elif kind == "array":
            if name in root and name not in arrays:
                return None
            arrays.add(name)
            table = {}
            root.setdefault(name, []).append(table)
        elif kind == "table":
            if name in root:
                return None
            table = root[name] = {}
    return root


def _line(line: str) -> tuple[str, str, object] | None:
    """``(kind, name, value)`` of one line of the subset: ``("array", name, None)`` for ``[[name]]``,
    ``("table", name, None)`` for ``[name]``, ``("key", key, value)``, ``("", "", None)`` for a blank or
    comment line; ``None`` for anything else. Blanks may surround each, a comment may follow."""
    rest = line.lstrip(_BLANKS)
    item: tuple[str, str, object] = ("", "", None)
    if rest.startswith("[["):
        name, end = _bare(rest, 2)
        if not name or not rest.startswith("]]", end):
            return None
        item, rest = ("array", name, None), rest[end + 2 :]
    elif rest.startswith("["):
        name, end = _bare(rest, 1)
        if not name or not rest.startswith("]", end):
            return None
        item, rest = ("table", name, None), rest[end + 1 :]
    elif rest[:1] in _BARE:
        key, end = _bare(rest, 0)
        rest = rest[end:].lstrip(_BLANKS)
        if not rest.startswith("="):
            return None
        found = _value(rest[1:].lstrip(_BLANKS))
        if found is None:
            return None
        item, rest = ("key", key, found[0]), found[1]
    rest = rest.lstrip(_BLANKS)
    return item if not rest or rest.startswith("#") else None


def _bare(text: str, start: int) -> tuple[str, int]:
    """The run of bare-key characters at ``start`` (maybe empty) and the offset after it."""
    end = start
    while end < len(text) and text[end] in _BARE:
        end += 1
    return text[start:end], end


def _value(text: str) -> tuple[object, str] | None:
    """The scalar at the start of ``text`` and the text after it: a basic string without escapes, a literal
    string, a decimal integer of at most :data:`_MAX_DIGITS` digits, ``true`` or ``false``; else ``None``."""
    if text[:1] in ("\"", "'"):
        close = text.find(text[0], 1)
        content = text[1:close]
        if close < 0 or (text[0] == '"' and "\\" in content):
            return None
        return content, text[close + 1 :]
    for word, value in (("true", True), ("false", False)):
        if text.startswith(word):
            return value, text[len(word) :]
    signed = 1 if text[:1] in ("+", "-") else 0
    end = signed
    while end < len(text) and text[end] in _DIGITS:
        end += 1
    digits = text[signed:end]
    if not digits or (digits[0] == "0" and digits != "0") or len(digits) > _MAX_DIGITS:
        return None
    return int(text[:end]), text[end:]
