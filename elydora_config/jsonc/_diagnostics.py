"""Turning an offset in a text into a ``MalformedConfigError`` with line, column and a short reason."""

from __future__ import annotations

from typing import NoReturn

from ..errors import MalformedConfigError, PathLike


def line_and_column(text: str, pos: int) -> tuple[int, int]:
    """1-based line and column (in characters) of offset ``pos``; CRLF, LF and lone CR end a line."""
    pos = max(0, min(pos, len(text)))
    head = text[:pos]
    line = 1 + head.count("\n") + head.count("\r") - head.count("\r\n")
    # a CR that is the first half of a CRLF split by ``pos`` has not ended its line yet
    if head.endswith("\r") and text.startswith("\n", pos):
        line -= 1
        start = max(head.rfind("\n", 0, pos - 1), head.rfind("\r", 0, pos - 1)) + 1
    else:
        start = max(head.rfind("\n"), head.rfind("\r")) + 1
    column = pos - start + 1
    if start == 0 and text.startswith("\ufeff") and pos > 0:
        column -= 1  # a byte order mark is not a visible column
    return line, column


def describe_char(ch: str) -> str:
    """A short, log-safe rendering of one character for error messages."""
    if not ch:
        return "end of text"
    if ch.isprintable() and ch not in "\u2028\u2029" and not ch.isspace():
        return repr(ch)
    return f"U+{ord(ch):04X}"


def malformed(text: str, pos: int, reason: str, path: PathLike | None) -> MalformedConfigError:
    """A :class:`MalformedConfigError` naming ``path`` and the line and column of ``pos`` in ``text``."""
    line, column = line_and_column(text, pos)
    return MalformedConfigError(path, reason, line=line, column=column)


def fail(text: str, pos: int, reason: str, path: PathLike | None) -> NoReturn:
    """Raise :func:`malformed` for ``pos``."""
    raise malformed(text, pos, reason, path)
