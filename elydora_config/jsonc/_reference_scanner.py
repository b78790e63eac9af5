"""The pure-Python scanner: iterative, exact about every rule of both dialects, precise error positions.

The fast path (:mod:`._fast_scan`) hands any text the C scanner cannot take to this scanner, so every error
message comes from here; tests also use it as an independent second parser.  It never recurses: any
nesting depth is scanned (and its value built) with an explicit stack, never a ``RecursionError``.
"""

from __future__ import annotations

import re
from typing import Any

from ..errors import PathLike
from ._diagnostics import describe_char, fail
from ._dialect import Dialect
from ._lexical import scanstring, skip_gap

NUMBER_RE = r"-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?"
_STRING_CHUNK_RE = r'[^"\\\x00-\x1f]*'
_HEX4_RE = r"[0-9a-fA-F]{4}"
_LITERALS = {"true": True, "false": False, "null": None}
_NON_JSON_NUMBERS = ("NaN", "Infinity", "-Infinity")


def short_key(key: str) -> str:
    """``key`` quoted for an error message, shortened when long."""
    text = repr(key)
    return text if len(text) <= 42 else text[:39] + "...'"


class ReferenceScanner:
    """Scans one JSON/JSONC value starting at an offset of ``text``."""

    def __init__(self, text: str, dialect: Dialect, path: PathLike | None = None) -> None:
        self.text = text
        self.dialect = dialect
        self.path = path

    # -- small pieces -------------------------------------------------------------------------------

    def gap(self, pos: int) -> int:
        """The offset after the whitespace and comments that start at ``pos``."""
        text = self.text
        pos = skip_gap(text, pos, self.dialect.comments)
        if text.startswith("/", pos):
            if not self.dialect.comments:
                read_as = self.dialect.in_words
                fail(text, pos, f"a comment is not allowed: the file is read as {read_as}; remove it", self.path)
            if text.startswith("/*", pos):
                fail(text, pos, "unterminated block comment", self.path)
            fail(text, pos, "unexpected character '/'", self.path)
        return pos

    def string_end(self, pos: int) -> int:
        """``pos`` is at an opening quote; return the offset after the closing quote."""
        text = self.text
        i = pos + 1
        while True:
            i = re.compile(_STRING_CHUNK_RE).match(text, i).end()  # type: ignore[union-attr]
            if i >= len(text):
                fail(text, pos, "unterminated string", self.path)
            ch = text[i]
            if ch == '"':
                return i + 1
            if ch == "\\":
                esc = text[i + 1 : i + 2]
                if esc and esc in '"\\/bfnrt':
                    i += 2
                elif esc == "u" and re.compile(_HEX4_RE).match(text, i + 2):
                    i += 6
                elif not esc:
                    fail(text, pos, "unterminated string", self.path)
                else:
                    fail(text, i, "invalid escape sequence in a string", self.path)
            else:
                fail(text, i, f"control character {describe_char(ch)} in a string (escape it)", self.path)

    def string(self, pos: int, build: bool) -> tuple[str, int]:
        """The string at ``pos`` (decoded when ``build``) and the offset after it."""
        end = self.string_end(pos)
        if not build:
            return "", end
        value, end2 = scanstring(self.text, pos + 1, True)
        return value, end2

    def scalar(self, pos: int, build: bool) -> tuple[Any, int]:
        """The number, ``true``, ``false`` or ``null`` at ``pos`` and the offset after it."""
        text = self.text
        if pos >= len(text):
            fail(text, pos, "unexpected end of text, expected a value", self.path)
        ch = text[pos]
        if ch == '"':
            return self.string(pos, build)
        for word, value in _LITERALS.items():
            if text.startswith(word, pos):
                return value, pos + len(word)
        for word in _NON_JSON_NUMBERS:
            if text.startswith(word, pos):
                fail(text, pos, f"{word} is not a JSON number", self.path)
        found = re.compile(NUMBER_RE).match(text, pos)
        if found is None:
            fail(text, pos, f"unexpected character {describe_char(ch)}, expected a value", self.path)
        end = found.end()
        if end < len(text) and text[end] in "0123456789.eE+-":
            fail(text, end, f"malformed number (unexpected {describe_char(text[end])})", self.path)
        literal = found.group()
        if found.group(1) or found.group(2):
            return (float(literal) if build else None), end
        try:
            return int(literal), end
        except ValueError:
            fail(text, pos, "integer has too many digits", self.path)

    # -- the value grammar, iteratively ----------------------------------------------------------------

    def value(self, pos: int, *, build: bool = True) -> tuple[Any, int]:
        """Scan the value at ``pos`` (no leading gap); return it (or ``None`` if not ``build``) and its end."""
        text = self.text
        if pos >= len(text) or text[pos] not in "{[":
            return self.scalar(pos, build)
        trailing_ok = self.dialect.trailing_commas
        # frame: [container, is_object, key_set, pending_key]
        stack: list[list[Any]] = []
        while True:
            # here ``pos`` is at the start of a value
            ch = text[pos] if pos < len(text) else ""
            if ch == "{" or ch == "[":
                is_object = ch == "{"
                stack.append([({} if is_object else []) if build else None, is_object, set(), None])
                pos = self.gap(pos + 1)
                closer = "}" if is_object else "]"
                if text.startswith(closer, pos):
                    finished, pos = stack.pop()[0], pos + 1
                else:
                    if is_object:
                        pos = self._key(pos, stack[-1], build)
                    continue
            else:
                finished, pos = self.scalar(pos, build)
            # a value is complete: attach it and find what comes next
            while True:
                if not stack:
                    return finished, pos
                frame = stack[-1]
                container, is_object = frame[0], frame[1]
                if build:
                    if is_object:
                        container[frame[3]] = finished
                    else:
                        container.append(finished)
                closer = "}" if is_object else "]"
                pos = self.gap(pos)
                ch = text[pos] if pos < len(text) else ""
                if ch == ",":
                    comma = pos
                    pos = self.gap(pos + 1)
                    if text.startswith(closer, pos):
                        if not trailing_ok:
                            read_as = self.dialect.in_words
                            reason = f"a trailing comma is not allowed: the file is read as {read_as}; remove it"
                            fail(text, comma, reason, self.path)
                        finished, pos = stack.pop()[0], pos + 1
                        continue
                    if is_object:
                        pos = self._key(pos, frame, build)
                    break
                if ch == closer:
                    finished, pos = stack.pop()[0], pos + 1
                    continue
                what = "object member" if is_object else "array element"
                found = describe_char(ch)
                fail(text, pos, f"expected ',' or '{closer}' after an {what}, found {found}", self.path)

    def _key(self, pos: int, frame: list[Any], build: bool) -> int:
        """``pos`` is where a member should start; scan its key and colon, return the value's offset."""
        text = self.text
        if not text.startswith('"', pos):
            ch = text[pos] if pos < len(text) else ""
            fail(text, pos, f"expected a string key, found {describe_char(ch)}", self.path)
        key, end = self.string(pos, True)
        keys = frame[2]
        if key in keys and not self.dialect.duplicate_keys:
            fail(text, pos, f"duplicate key {short_key(key)}", self.path)
        keys.add(key)
        frame[3] = key
        colon = self.gap(end)
        if not text.startswith(":", colon):
            ch = text[colon] if colon < len(text) else ""
            fail(text, colon, f"expected ':' after an object key, found {describe_char(ch)}", self.path)
        return self.gap(colon + 1)

    def document(self, *, build: bool = True) -> tuple[Any, int, int]:
        """Scan a whole text: optional BOM, one value, nothing after it.  Returns (value, start, end)."""
        text = self.text
        pos = 0
        if text.startswith("\ufeff"):
            if not self.dialect.bom:
                fail(
                    text,
                    0,
                    f"a byte order mark is not allowed: the file is read as {self.dialect.in_words}; "
                    "save it as UTF-8 without a BOM",
                    self.path,
                )
            pos = 1
        start = self.gap(pos)
        if start >= len(text):
            fail(
                text,
                start,
                "no JSON value: the file is empty or holds only whitespace or comments; write one in it, such as {}",
                self.path,
            )
        value, end = self.value(start, build=build)
        after = self.gap(end)
        if after < len(text):
            fail(text, after, f"unexpected {describe_char(text[after])} after the top-level value", self.path)
        return value, start, end
