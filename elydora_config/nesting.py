"""A linear pre-scan that bounds how deeply arrays and objects (inline tables) nest in a config text.

No agent's settings nest more than a dozen levels, but a file nested thousands deep makes recursive parsers
and editors (``tomllib``, ``tomlkit``, value walkers) fail with ``RecursionError`` and makes some of them slow.
:func:`check_nesting` counts brackets outside strings and comments in one pass and raises
:class:`MalformedConfigError` (``<file>: nesting deeper than N at line L``) at the first one beyond
:data:`MAX_NESTING`; what it cannot tell (an unterminated string or comment) is left to the parser itself.
"""

from __future__ import annotations

import re

from .errors import MalformedConfigError, PathLike

MAX_NESTING = 100
"""The deepest nesting of arrays and objects or inline tables that a parsed config file may have."""

_JSON_STOPS = r'[\[\]{}"/]'
_TOML_STOPS = r"[\[\]{}\"'#]"
_BASIC_STOPS = r'["\\\n]'
_MULTILINE_STOPS = r'"""|\\'
"""The patterns are compiled on first use (:mod:`re`'s cache): only a text with more brackets than the limit
is scanned, and only a TOML text with a multi-line basic string needs the last one."""


def check_nesting(text: str, path: PathLike | None, *, toml: bool = False, limit: int = MAX_NESTING) -> None:
    """Raise :class:`MalformedConfigError` when ``text`` (JSON/JSONC, or TOML) nests deeper than ``limit``."""
    if text.count("[") + text.count("{") <= limit:  # each level opens with one: it cannot be deeper
        return
    stops = _compiled(_TOML_STOPS if toml else _JSON_STOPS)
    depth, pos = 0, 0
    while pos >= 0:
        found = stops.search(text, pos)
        if found is None:
            return
        char, pos = found.group(), found.end()
        if char in "[{":
            depth += 1
            if depth > limit:
                line = text.count("\n", 0, pos) + 1
                raise MalformedConfigError(path, f"nesting deeper than {limit} at line {line}")
        elif char in "]}":
            depth = max(depth - 1, 0)
        else:
            pos = _skip(text, char, pos, toml)


def _skip(text: str, char: str, pos: int, toml: bool) -> int:
    """The offset after the string or comment that ``char`` (just before ``pos``) opens; -1: it never ends."""
    if char == "#" or (char == "/" and text.startswith("/", pos)):
        end = text.find("\n", pos)
        return len(text) if end < 0 else end
    if char == "/":
        if not text.startswith("*", pos):
            return pos
        end = text.find("*/", pos + 1)
        return -1 if end < 0 else end + 2
    if char == "'":
        quote = "'''" if text.startswith("''", pos) else "'"
        end = text.find(quote, pos + len(quote) - 1)
        return -1 if end < 0 else end + len(quote)
    if toml and text.startswith('""', pos):
        return _close(text, pos + 2, _compiled(_MULTILINE_STOPS), '"""')
    return _close(text, pos, _compiled(_BASIC_STOPS), '"')


def _compiled(pattern: str) -> re.Pattern[str]:
    """``pattern`` compiled (once per process: :mod:`re` keeps it)."""
    return re.compile(pattern)


def _close(text: str, pos: int, stops: re.Pattern[str], quote: str) -> int:
    """The offset after the closing ``quote`` of an escaped string starting at ``pos``; -1 when unterminated."""
    while True:
        found = stops.search(text, pos)
        if found is None or found.group() == "\n":
            return -1
        if found.group() == quote:
            return found.end()
        pos = found.end() + 1  # a backslash escapes the next character
