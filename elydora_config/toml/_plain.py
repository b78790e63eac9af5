"""The data of a TOML text written in a small, line-based subset, decoded without loading ``tomllib``.

The configs our installs write, and many small ones, use only this subset, line by line (:data:`LINE`):

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

import re
from typing import Any

LINE = (
    r"[ \t]*(?:"
    r"\[\[(?P<array>[A-Za-z0-9_-]+)\]\]"
    r"|\[(?P<table>[A-Za-z0-9_-]+)\]"
    r"|(?P<key>[A-Za-z0-9_-]+)[ \t]*=[ \t]*(?:"
    r"\"(?P<basic>[^\"\\]*)\"|'(?P<literal>[^']*)'|(?P<int>[+-]?(?:0|[1-9][0-9]{0,17}))(?![0-9])"
    r"|(?P<bool>true|false)"
    r")"
    r")?[ \t]*(?:#.*)?"
)
"""One line of the subset: a ``[[array]]`` or ``[table]`` header, a ``key = value``, or nothing; blanks around
it, a comment after it. An integer has at most 18 digits (larger ones are left to tomllib)."""
REFUSED = r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]|\r(?!\n)"
"""What TOML refuses everywhere: a control character (a tab is allowed), a carriage return not before a line
feed."""


def plain_loads(text: str) -> dict[str, Any] | None:
    """``tomllib.loads(text)`` when ``text`` is in the subset (see the module), else ``None``."""
    if re.search(REFUSED, text):
        return None
    line_of = re.compile(LINE).fullmatch
    root: dict[str, Any] = {}
    table = root
    arrays: set[str] = set()  # names made by [[name]] headers: only those may take another [[name]]
    for line in text.split("\n"):
        match = line_of(line[:-1] if line.endswith("\r") else line)
        if match is None:
            return None
        key, array, name = match.group("key", "array", "table")
        if key is not None:
            if key in table:
                return None
            table[key] = _value(match)
        elif array is not None:
            if array in root and array not in arrays:
                return None
            arrays.add(array)
            table = {}
            root.setdefault(array, []).append(table)
        elif name is not None:
            if name in root:
                return None
            table = root[name] = {}
    return root


def _value(match: re.Match[str]) -> object:
    """The value of a ``key = value`` line matched by :data:`LINE`."""
    basic, literal, number, boolean = match.group("basic", "literal", "int", "bool")
    if basic is not None:
        return basic
    if literal is not None:
        return literal
    if number is not None:
        return int(number)
    return boolean == "true"
