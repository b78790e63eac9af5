"""Lines of a text whose comments start with ``#`` (TOML and YAML): where a line starts, the comment lines
right above an entry, which belong to it (docs/editors.md, "One rule per verb"), and the line ending a TOML
document writes new lines with."""

from __future__ import annotations


def line_start(text: str, pos: int) -> int:
    """The offset of the first character of the line holding ``pos``."""
    return text.rfind("\n", 0, pos) + 1


def comment_lines_up(text: str, pos: int, floor: int) -> int:
    """Move the line start ``pos`` up over the lines right above it that hold only a comment (not above the
    line start ``floor``, the end of whatever stands before the entry): the comment lines an entry owns."""
    while pos > floor:
        above = line_start(text, pos - 1)
        if above < floor or not text[above:pos].lstrip(" \t").startswith("#"):
            break
        pos = above
    return pos


def detect_newline(text: str) -> str:
    """The line ending of ``text``: "\\r\\n" when its first line ends so, else "\\n"."""
    first = text.find("\n")
    return "\r\n" if first > 0 and text[first - 1] == "\r" else "\n"
