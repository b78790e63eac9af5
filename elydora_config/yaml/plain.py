"""The data of a YAML text written in a small, block-style subset, decoded without loading PyYAML.

Importing PyYAML costs a command that only reads settings more than everything else it does (it loads
``base64``, ``datetime``, ``math`` and compiles its resolvers' regular expressions). The files our installs write,
and many small configs, use only this subset, line by line and with string methods:

* blank lines and ``#`` comment lines; a ``#`` after a space ends a value;
* ``key:`` and ``key: value`` lines, a key made of letters, digits and ``_ . / -`` (a letter or ``_`` first);
* ``- value`` and ``- key: value`` sequence items, an item's mapping continuing at the column of its first key;
  a sequence under a key may be indented or not (``key:`` then ``- item`` at the key's column);
* as a value: a plain word of the key's characters, a decimal integer, ``true``, ``false``, ``null``, a
  double-quoted string with JSON escapes only, a single-quoted string, ``{}`` or ``[]``.

:func:`plain_loads` returns exactly what PyYAML's safe loader returns for such a text (an empty text: ``{}``), or
``None`` as soon as anything is outside the subset (a tab, a document marker, an anchor or tag, a flow collection
with content, a block scalar, a quoted key, a word YAML 1.1 reads as a boolean such as ``yes``, a float, a date,
a duplicate key, an unexpected indentation): the caller then runs PyYAML, which reads the rest of YAML and
reports errors with their line and column.
"""

from __future__ import annotations

import json

from elydora_config.typecheck import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any

_FIRST = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_")
_WORD = _FIRST | frozenset("0123456789./-")
_DIGITS = frozenset("0123456789")
_WORDS = {"true": True, "false": False, "null": None}
_OTHER_READINGS = frozenset(
    word
    for base in ("y", "n", "yes", "no", "on", "off", "true", "false", "null")
    for word in (base, base.capitalize(), base.upper())
) - set(_WORDS)
"""Words YAML 1.1 may read as something other than a string (left to PyYAML)."""
_MAX_DIGITS = 18


class _Outside(Exception):
    """The text is not in the subset (PyYAML decides)."""


Line = tuple[int, str]
"""A content line: its indentation and its text after it (comment lines and blank lines are not lines)."""


def plain_loads(text: str) -> dict[str, Any] | None:
    """``yaml.safe_load(text) or {}`` when ``text`` is in the subset (see the module), else ``None``."""
    if text.startswith("\ufeff"):
        text = text[1:]
    if "\t" in text or text.count("\r") != text.count("\r\n"):
        return None
    lines: list[Line] = []
    for raw in text.split("\n"):
        content = raw.rstrip("\r").lstrip(" ")
        if content and not content.startswith("#"):
            lines.append((len(raw) - len(raw.lstrip(" ")), content.rstrip(" ")))
    if not lines:
        return {}
    try:
        if lines[0][0] != 0 or lines[0][1].startswith("-"):
            raise _Outside
        value, end = _mapping(lines, 0, 0)
    except _Outside:
        return None
    return value if end == len(lines) else None


def _mapping(lines: list[Line], at: int, indent: int) -> tuple[dict[str, Any], int]:
    found: dict[str, Any] = {}
    while at < len(lines) and lines[at][0] == indent and not lines[at][1].startswith("- "):
        key, rest = _key(lines[at][1])
        if key in found:
            raise _Outside
        at += 1
        if rest:
            found[key] = _scalar(rest)
        elif at < len(lines) and lines[at][0] > indent:
            found[key], at = _block(lines, at, lines[at][0])
        elif at < len(lines) and lines[at][0] == indent and lines[at][1].startswith("- "):
            found[key], at = _sequence(lines, at, indent)
        else:
            found[key] = None
    if at < len(lines) and lines[at][0] > indent:
        raise _Outside
    return found, at


def _block(lines: list[Line], at: int, indent: int) -> tuple[Any, int]:
    if lines[at][1].startswith("- "):
        return _sequence(lines, at, indent)
    if lines[at][1].startswith("-"):
        raise _Outside
    return _mapping(lines, at, indent)


def _sequence(lines: list[Line], at: int, indent: int) -> tuple[list[Any], int]:
    items: list[Any] = []
    while at < len(lines) and lines[at][0] == indent and lines[at][1].startswith("- "):
        after = lines[at][1][2:]
        content = after.lstrip(" ")
        if content.startswith("-") or not content:
            raise _Outside
        if _is_key(content):  # a mapping item: its first key on the dash's line, the others at that key's column
            lines[at] = (indent + 2 + len(after) - len(content), content)
            item, at = _mapping(lines, at, lines[at][0])
            items.append(item)
            continue
        items.append(_scalar(content))
        at += 1
        if at < len(lines) and lines[at][0] > indent:
            raise _Outside
    return items, at


def _is_key(content: str) -> bool:
    colon = content.find(":")
    return colon > 0 and content[colon + 1 : colon + 2] in ("", " ") and _is_word(content[:colon])


def _key(content: str) -> tuple[str, str]:
    """The key of a ``key: value`` line and its value text (empty: none on this line)."""
    if not _is_key(content):
        raise _Outside
    key, _, rest = content.partition(":")
    if key in _WORDS or key in _OTHER_READINGS:
        raise _Outside
    rest = rest.strip(" ")
    return key, "" if rest.startswith("#") else rest


def _is_word(text: str) -> bool:
    return bool(text) and text[0] in _FIRST and _WORD.issuperset(text)


def _scalar(text: str) -> Any:
    if text[0] in "\"'":
        return _quoted(text)
    value = text.split(" #", 1)[0].rstrip(" ")
    if value in ("{}", "[]"):
        return {} if value == "{}" else []
    if value in _WORDS:
        return _WORDS[value]
    digits = value[1:] if value.startswith("-") else value
    if digits and _DIGITS.issuperset(digits) and (digits == "0" or digits[0] != "0") and len(digits) <= _MAX_DIGITS:
        return int(value)
    if _is_word(value) and value not in _OTHER_READINGS:
        return value
    raise _Outside


def _quoted(text: str) -> str:
    """A double-quoted (JSON escapes only) or single-quoted scalar, then nothing but a comment."""
    quote = text[0]
    end = 1
    while True:
        end = text.find(quote, end)
        if end < 0:
            raise _Outside
        if quote == '"' and _escaped(text, end):
            end += 1
            continue
        if quote == "'" and text[end + 1 : end + 2] == "'":
            end += 2
            continue
        break
    rest = text[end + 1 :]
    if rest.strip(" ") and not rest.startswith(" #") and not rest.lstrip(" ").startswith("#"):
        raise _Outside
    if rest and not rest.startswith(" "):
        raise _Outside
    body = text[: end + 1]
    if any(ord(char) < 0x20 or 0x7F <= ord(char) <= 0x9F for char in body):
        raise _Outside
    if quote == "'":
        return body[1:-1].replace("''", "'")
    try:
        value = json.loads(body)
    except ValueError:
        raise _Outside from None
    if not isinstance(value, str):
        raise _Outside
    return value


def _escaped(text: str, index: int) -> bool:
    """Whether the quote at ``index`` is escaped (an odd number of backslashes before it)."""
    count = 0
    while text[index - 1 - count] == "\\":
        count += 1
    return count % 2 == 1
