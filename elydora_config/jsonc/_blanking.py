"""Blanking: hide JSONC comments (and allowed trailing commas) from the C scanner without moving offsets.

Comments become runs of spaces of the same length, so every offset in the blanked text is the offset of
the same character in the original.  Trailing-comma candidates (a comma followed only by whitespace and a
closing bracket) become a TAB: outside a string a TAB is whitespace, inside a string the strict C scanner
refuses it as a control character, so a candidate that was really inside a string is detected (the
caller restores it and scans again).  Anything this module cannot make sense of is left as it is: the
scanners then report it.
"""

from __future__ import annotations

import re
from bisect import bisect_right

_CANDIDATE_RE = r"/[/*]"
# from a point outside any string: plain characters and whole one-line strings, stopping at a quote that
# does not close on its line (the candidate being tested is then inside that string)
_OUTSIDE_RE = r'[^"]*(?:"[^"\\\r\n]*(?:\\[^\r\n][^"\\\r\n]*)*"[^"]*)*'
_STRING_RE = r'"[^"\\\r\n]*(?:\\[^\r\n][^"\\\r\n]*)*"'
_LINE_COMMENT_END_RE = r"[^\r\n]*"
_TRAILING_COMMA_RE = r",[ \t\n\r]*[\]}]"
_NOT_LINE_BREAK_RE = r"[^\r\n]"


def comment_spans(text: str, start: int = 0) -> list[tuple[int, int]]:
    """``(start, end)`` of every comment at or after ``start`` (which must be outside strings and comments).

    Only the places where ``//`` or ``/*`` occur are examined: for each, the text from the last point known
    to be outside strings (or from the start of its line: a JSON string cannot contain a line break) is
    matched string-aware to decide whether the candidate is inside a string.  The cost is one pass of
    ``str.rfind`` plus the length of the lines that hold candidates.
    """
    spans: list[tuple[int, int]] = []
    cursor = start  # known to be outside strings and comments
    for found in re.compile(_CANDIDATE_RE).finditer(text, start):
        pos = found.start()
        if pos < cursor:
            continue
        origin = max(cursor, text.rfind("\n", cursor, pos) + 1, text.rfind("\r", cursor, pos) + 1)
        reached = re.compile(_OUTSIDE_RE).match(text, origin, pos).end()  # type: ignore[union-attr]
        if reached < pos:  # inside the string that opens at ``reached``
            whole = re.compile(_STRING_RE).match(text, reached)
            cursor = whole.end() if whole is not None else pos + 1
            continue
        if text[pos + 1] == "/":
            end = re.compile(_LINE_COMMENT_END_RE).match(text, pos + 2).end()  # type: ignore[union-attr]
        else:
            close = text.find("*/", pos + 2)
            if close < 0:
                return spans  # unterminated: left for the scanners to report
            end = close + 2
        spans.append((pos, end))
        cursor = end
    return spans


def blank_for_scanner(text: str, comments: bool, commas: bool, keep: set[int]) -> tuple[str, list[int]]:
    """``text`` with its comments blanked (if ``comments``) and its trailing-comma candidates (if ``commas``,
    except the offsets in ``keep``) turned into TABs, and the offsets of those TABs."""
    spans = comment_spans(text) if comments else []
    found = [pos for pos in trailing_comma_candidates(text, spans) if pos not in keep] if commas else []
    blanked = blank(text, spans, found)
    stray = [pos for pos in found if not follows_value(blanked, pos)]
    if stray:  # ``{ /* c */ ,}``: the comma follows no member, the scanner must see (and report) it
        blanked = replace_chars(blanked, stray, ",")
        found = [pos for pos in found if pos not in set(stray)]
    return blanked, found


def follows_value(blanked: str, comma: int, start: int = 0) -> bool:
    """Whether the comma at ``comma`` of a blanked text (comments already spaces) ends a member: the last
    character before it that is not whitespace closes a value. A comma right after ``{``, ``[``, ``:`` or
    another comma (or with nothing before it down to ``start``) is never a trailing comma."""
    at = comma - 1
    while at >= start and blanked[at] in " \t\r\n":
        at -= 1
    return at >= start and blanked[at] not in "{[,:"


def trailing_comma_candidates(text: str, comments: list[tuple[int, int]]) -> list[int]:
    """Offsets of commas followed by whitespace and a closing bracket, not inside a comment.

    Some may be inside strings: the caller turns them into TABs, which the strict scanner then refuses.
    A trailing comma with a comment before its bracket is not found here; the scanner's error at the
    bracket reveals it later.
    """
    found = [match.start() for match in re.compile(_TRAILING_COMMA_RE).finditer(text)]
    if not comments or not found:
        return found
    starts = [start for start, _ in comments]
    kept = []
    for pos in found:
        index = bisect_right(starts, pos) - 1
        if index < 0 or pos >= comments[index][1]:
            kept.append(pos)
    return kept


def blank(text: str, comments: list[tuple[int, int]], commas: list[int]) -> str:
    """``text`` with the comment spans turned into spaces (line breaks kept) and the commas into TABs."""
    if not comments and not commas:
        return text
    edits = sorted(
        [(start, end, re.compile(_NOT_LINE_BREAK_RE).sub(" ", text[start:end])) for start, end in comments]
        + [(pos, pos + 1, "\t") for pos in commas]
    )
    pieces: list[str] = []
    prev = 0
    for start, end, new in edits:
        pieces.append(text[prev:start])
        pieces.append(new)
        prev = end
    pieces.append(text[prev:])
    return "".join(pieces)


def replace_chars(text: str, positions: list[int], char: str) -> str:
    """``text`` with the character at each of ``positions`` replaced by ``char``."""
    if not positions:
        return text
    pieces: list[str] = []
    prev = 0
    for pos in positions:
        pieces.append(text[prev:pos])
        pieces.append(char)
        prev = pos + 1
    pieces.append(text[prev:])
    return "".join(pieces)
