"""Lexical helpers on raw text: whitespace and comment gaps, line geometry around an offset.

Offsets are indexes into the ``str`` (code points).  A *gap* is the text between two tokens: JSON
whitespace (space, tab, LF, CR) and, in JSONC, ``//`` line comments and ``/* */`` block comments.
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable, Sequence
from json import decoder as _json_decoder

scanstring: Callable[[str, int, bool], tuple[str, int]] = _json_decoder.scanstring  # type: ignore[attr-defined]
"""The stdlib's string scanner (C when available): ``scanstring(text, after_quote, strict)`` -> (str, end)."""

NON_ASCII_ESCAPE_RE = r"\\u(?!00[0-7])[0-9a-fA-F]{4}"
"""The escape of a character outside ASCII (``\\u00e9``), in a text; :data:`NON_ASCII_ESCAPE_BYTES_RE` in
UTF-8."""
NON_ASCII_ESCAPE_BYTES_RE = NON_ASCII_ESCAPE_RE.encode("ascii")

GAP_START_CHARS = " \t\n\r/"
HSPACE = " \t"

WS_RE = r"[ \t\n\r]*"
# whitespace, line comments (ended by CR or LF) and terminated block comments, in any order
GAP_RE = r"(?:[ \t\n\r]+|//[^\r\n]*|/\*[^*]*\*+(?:[^*/][^*]*\*+)*/)*"
HSPACE_RE = r"[ \t]*"
BLOCK_END_RE = r"\*/"
LINE_COMMENT_RE = r"//[^\r\n]*"
LINE_BREAK_RE = r"\r\n|\n|\r"


def skip_gap(text: str, pos: int, comments: bool) -> int:
    """Offset of the first character at or after ``pos`` that is not whitespace (or a comment).

    An unterminated block comment or a comment in strict JSON is left in place for the caller to report.
    """
    if pos < len(text) and text[pos] in GAP_START_CHARS:
        return re.compile(GAP_RE if comments else WS_RE).match(text, pos).end()  # type: ignore[union-attr]
    return pos


def gap_has_comment(text: str, start: int, end: int) -> bool:
    """Whether the gap ``text[start:end]`` holds a comment (a gap only holds whitespace and comments)."""
    return text.find("/", start, end) >= 0


def is_line_break(text: str, pos: int) -> bool:
    """Whether ``text[pos]`` is a CR or LF."""
    return pos < len(text) and text[pos] in "\r\n"


def after_line_break(text: str, pos: int) -> int | None:
    """If only spaces/tabs separate ``pos`` from a line break, the offset just after that break."""
    pos = re.compile(HSPACE_RE).match(text, pos).end()  # type: ignore[union-attr]
    if text.startswith("\r\n", pos):
        return pos + 2
    if pos < len(text) and text[pos] in "\r\n":
        return pos + 1
    return None


def before_hspace(text: str, pos: int, floor: int = 0) -> int:
    """Move back from ``pos`` over spaces and tabs (not below ``floor``)."""
    while pos > floor and text[pos - 1] in HSPACE:
        pos -= 1
    return pos


def starts_line(text: str, pos: int, floor: int = 0) -> bool:
    """Whether only spaces/tabs stand between the previous line break (or the text start) and ``pos``."""
    back = before_hspace(text, pos, floor)
    return back == 0 or text[back - 1] in "\r\n"


def line_start(text: str, pos: int) -> int:
    """The offset of the first character of the line holding ``pos``.

    A CR is looked for only after the last LF: in an LF file, searching the whole head for one would cost
    the length of the text at every call.
    """
    lf = text.rfind("\n", 0, pos)
    return max(lf, text.rfind("\r", lf + 1, pos)) + 1


def line_indent(text: str, pos: int) -> str:
    """The leading spaces/tabs of the line that contains ``pos``."""
    start = line_start(text, pos)
    if start == 0 and text.startswith("\ufeff"):
        start = 1
    return text[start : re.compile(HSPACE_RE).match(text, start).end()]  # type: ignore[union-attr]


def line_break_near(text: str, pos: int) -> str | None:
    """The line break that ends the line containing ``pos`` (or, failing that, the one before it)."""
    found = re.compile(LINE_BREAK_RE).search(text, pos)
    if found is not None:
        return found.group()
    start = line_start(text, pos)
    if start >= 2 and text[start - 2 : start] == "\r\n":
        return "\r\n"
    if start >= 1:
        return text[start - 1]
    return None


def tail_end(text: str, value_end: int, comma: int | None) -> tuple[int, bool]:
    """End of what belongs to a member on its last line: its comma and the comments on that line.

    Starting at the end of the member's value, take spaces/tabs, the member's own comma and comments that
    start on the same line (a block comment that runs onto later lines is taken whole and ends the tail).
    Returns the offset just after the last thing taken (never after trailing spaces) and whether the
    tail finishes with a ``//`` comment (then nothing may be appended on that line).
    """
    pos = last = value_end
    while True:
        pos = re.compile(HSPACE_RE).match(text, pos).end()  # type: ignore[union-attr]
        if comma is not None and pos == comma:
            pos = last = pos + 1
            continue
        if text.startswith("//", pos):
            return re.compile(LINE_COMMENT_RE).match(text, pos).end(), True  # type: ignore[union-attr]
        if text.startswith("/*", pos):
            found = re.compile(BLOCK_END_RE).search(text, pos + 2)
            if found is None:
                return last, False
            pos = last = found.end()
            if "\n" in text[value_end:pos] or "\r" in text[value_end:pos]:
                return last, False
            continue
        return last, False


_UNIQUE_CONTEXT = (64, 4096, 262144)


def splice_text(text: str, splices: Sequence[tuple[int, int, str]]) -> str:
    """``text`` with the (sorted, non-overlapping) splices made, allocating only the result.

    Slicing the untouched head and tail and joining them would copy the file twice; instead the region
    from the first splice to the last, widened backwards until it is the first occurrence of its text, is
    replaced with ``str.replace(..., 1)``, which builds the result in one allocation.
    """
    if not splices:
        return text
    first, last = splices[0][0], splices[-1][1]
    for context in _UNIQUE_CONTEXT:
        begin = max(first - context, 0)
        region = text[begin:last]
        if begin == 0 or text.find(region) == begin:
            break
    else:
        begin = 0
        region = text[:last]
    pieces = []
    prev = begin
    for start, end, new in splices:
        pieces.append(text[prev:start])
        pieces.append(new)
        prev = end
    return text.replace(region, "".join(pieces), 1)


_ENCODE_CHUNK = 1 << 16


_COUNT_CHUNK = 1 << 12  # small: the encoder sizes its buffer for the widest case (3 bytes per character)


def utf8_length(text: str, start: int, end: int) -> int:
    """``len(text[start:end].encode("utf-8"))``, encoding by small chunks (no copy of a long span)."""
    if text.isascii():
        return end - start
    total = 0
    for at in range(start, end, _COUNT_CHUNK):
        total += len(text[at : min(at + _COUNT_CHUNK, end)].encode("utf-8", "surrogatepass"))
    return total


_FIND_CONTEXT = 64  # characters before an offset searched for in the UTF-8 (no encoding of it all)


def _utf8_offset(data: bytes, text: str, pos: int) -> int:
    """The byte offset in ``data`` (the UTF-8 of ``text``) of character ``pos``.

    Every character takes one to four bytes, so that offset lies between ``pos`` and ``pos`` plus the bytes
    ``data`` has beyond one per character; the encoded characters before ``pos`` are searched for in that
    window only (a few hundred bytes in a mostly ASCII text), and when they occur once there that occurrence
    is theirs. Otherwise the bytes before ``pos`` are counted.
    """
    if pos > _FIND_CONTEXT and not text.isascii():
        needle = text[pos - _FIND_CONTEXT : pos].encode("utf-8", "surrogatepass")
        low, high = max(0, pos - len(needle)), len(data) - len(text) + pos  # where it may start, end
        hit = data.find(needle, low, high)
        if hit >= 0 and data.find(needle, hit + 1, high) < 0:
            return hit + len(needle)
    return utf8_length(text, 0, pos)


def splice_utf8(data: bytes, text: str, splices: Sequence[tuple[int, int, str]]) -> bytes:
    """``data`` (the UTF-8 of ``text``) with the (sorted, non-overlapping) splices made, whose offsets are
    characters of ``text``; only the result is allocated."""
    if not splices:
        return data
    view = memoryview(data)
    pieces: list[bytes | memoryview] = []
    char = splices[0][0]
    prev, byte = 0, _utf8_offset(data, text, char)  # ``byte``: the UTF-8 offset of character ``char``, onwards
    for start, end, new in splices:
        byte += utf8_length(text, char, start)
        pieces.append(view[prev:byte])
        pieces.append(new.encode("utf-8"))
        byte += utf8_length(text, start, end)
        prev, char = byte, end
    pieces.append(view[prev:])
    return b"".join(pieces)


def encode_utf8(text: str) -> bytes:
    """``text.encode("utf-8")`` without its transient buffer of up to four bytes per character.

    The encoder sizes its buffer for the widest case before shrinking it; encoding chunk by chunk into a
    ``BytesIO`` (whose buffer ``getvalue`` hands over without a copy) keeps the peak near the result's size.
    """
    if len(text) <= _ENCODE_CHUNK or text.isascii():
        return text.encode("utf-8")
    out = io.BytesIO()
    for start in range(0, len(text), _ENCODE_CHUNK):
        out.write(text[start : start + _ENCODE_CHUNK].encode("utf-8"))
    return out.getvalue()
