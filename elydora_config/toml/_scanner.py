"""A line-oriented structural scanner for TOML text that ``tomllib`` has already accepted.

It finds where things are, not what they mean: every table header (``[x]``, ``[[x]]``) with the
comment lines that belong to it, and every key/value statement with the span of its key and value.
Values are skipped over (strings, multi-line strings, nested arrays and inline tables), never decoded.
The scanner trusts that the text is valid TOML; if it meets something it does not understand it raises
:class:`ScanError` and the caller falls back to another engine.

Ownership rules (documented in docs/editors.md, section TOML):

- a key/value statement owns its own line(s), including a comment on its last line;
- a table header owns the run of comment lines directly above it (no blank line in between);
- a section's body runs from its header to the next header's owned comments; trailing blank lines
  are separation, not body.
"""

from __future__ import annotations

import re

from elydora_config.toml._values import Path

from .._hashlines import detect_newline, line_start
from ..records import record


class ScanError(Exception):
    """The scanner met text it does not understand (a bug or an unsupported construct)."""


_BASIC = r'"(?:[^"\\\n]|\\.)*"'
_LITERAL = r"'[^'\n]*'"
_KEY_PART = r"[A-Za-z0-9_-]+|" + _BASIC + "|" + _LITERAL
_KEY_TEXT = r"(?:" + _KEY_PART + r")(?:[ \t]*\.[ \t]*(?:" + _KEY_PART + r"))*"

KEY_RE = _KEY_TEXT
KEY_PART_RE = _KEY_PART
_HEADER_RE = r"(\[\[?)[ \t]*(" + _KEY_TEXT + r")[ \t]*(\]\]?)"
EQ_RE = r"[ \t]*=[ \t]*"
_WS_RE = r"[ \t]*"
_TAIL_RE = r"[ \t]*(?:#[^\r\n]*)?(?:\r?\n|\Z)"
_BLANK_LINE_RE = r"[ \t]*(?:\r?\n|\Z)"

ML_BASIC_RE = r'"""(?:[^\\"]|\\[\s\S]|"(?!""))*"""(?:"{0,2})'
ML_LITERAL_RE = r"'''[\s\S]*?'''(?:'{0,2})"
BASIC_RE = _BASIC
LITERAL_RE = _LITERAL
SCALAR_RE = (
    r"\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:[Zz]|[+-]\d{2}:\d{2})?"
    r"|[A-Za-z0-9_+.:-]+"
)
# Flat single-line arrays and inline tables: no nesting, no comments, one-line strings only.
_FLAT = r"""(?:[^\[\]{}"'#\n]|""" + _BASIC + r'(?!")|' + _LITERAL + r"(?!'))*"
_SIMPLE_LINE_RE = (
    r"[ \t]*([A-Za-z0-9_-]+)[ \t]*=[ \t]*"
    r"(" + _BASIC + r"(?!\")|" + _LITERAL + r"(?!')|[A-Za-z0-9_+.:-]+|\[" + _FLAT + r"\]|\{" + _FLAT + r"\})"
    r"[ \t]*(?:#[^\r\n]*)?(?:\r?\n|\Z)"
)
# Tokens inside arrays / inline tables, for skipping over a whole nested value quickly.
_NESTED_RE = (
    r'"""(?:[^\\"]|\\[\s\S]|"(?!""))*"""(?:"{0,2})'
    r"|'''[\s\S]*?'''(?:'{0,2})"
    r"|" + _BASIC + r"|" + _LITERAL + r"|#[^\n]*"
    r"|[\[{]|[\]}]"
    r"|[^\"'#\[\]{}]+"
)

_ESCAPE_RE = r"\\(?:u([0-9A-Fa-f]{4})|U([0-9A-Fa-f]{8})|(.))"
_SIMPLE_ESCAPES = {"b": "\b", "t": "\t", "n": "\n", "f": "\f", "r": "\r", '"': '"', "\\": "\\"}


def _unescape_one(match: re.Match[str]) -> str:
    code = match.group(1) or match.group(2)
    if code:
        return chr(int(code, 16))
    char = match.group(3)
    if char not in _SIMPLE_ESCAPES:
        raise ScanError(f"unknown escape \\{char}")
    return _SIMPLE_ESCAPES[char]


def key_parts(text: str) -> tuple[str, ...]:
    """Decode a (possibly dotted) key as written into its parts."""
    parts: list[str] = []
    for match in re.compile(KEY_PART_RE).finditer(text):
        raw = match.group()
        if raw[0] == '"':
            parts.append(re.compile(_ESCAPE_RE).sub(_unescape_one, raw[1:-1]))
        elif raw[0] == "'":
            parts.append(raw[1:-1])
        else:
            parts.append(raw)
    return tuple(parts)


def skip_value(text: str, pos: int) -> int:
    """End offset of the TOML value starting at ``pos``."""
    char = text[pos : pos + 1]
    if char == '"':
        match = re.compile(ML_BASIC_RE if text.startswith('"""', pos) else BASIC_RE).match(text, pos)
    elif char == "'":
        match = re.compile(ML_LITERAL_RE if text.startswith("'''", pos) else LITERAL_RE).match(text, pos)
    elif char in ("[", "{"):
        return _skip_nested(text, pos)
    else:
        match = re.compile(SCALAR_RE).match(text, pos)
    if match is None:
        raise ScanError(f"cannot read the value at offset {pos}")
    return match.end()


def _skip_nested(text: str, pos: int) -> int:
    depth = 0
    matcher = re.compile(_NESTED_RE).match
    while True:
        match = matcher(text, pos)
        if match is None:
            raise ScanError(f"unterminated array or inline table at offset {pos}")
        token = match.group()
        pos = match.end()
        if token in ("[", "{"):
            depth += 1
        elif token in ("]", "}"):
            depth -= 1
            if depth == 0:
                return pos


@record(eq=False, slots=True)
class Entry:
    """One ``key = value`` statement."""

    keys: tuple[str, ...]  # as written (dotted parts), relative to the section
    path: Path  # absolute
    start: int  # start of its first line (indentation included)
    key_start: int
    key_end: int
    value_start: int
    value_end: int
    end: int  # just past the newline ending its last line (or the end of the text)


class Section:
    """The root table or one ``[header]`` / ``[[header]]`` with its body.

    Its statements (:attr:`entries`) are scanned on first use, from its own body only: an edit reads the few
    sections it touches, and a document is never held as one object per statement.
    """

    __slots__ = ("_entries", "_text", "content_end", "end", "header_end", "is_array", "keys", "lead", "path", "start")

    def __init__(
        self, text: str, keys: tuple[str, ...], path: Path, is_array: bool, lead: int, start: int, header_end: int
    ) -> None:
        self._text = text
        self.keys = keys  # header keys as written; () for the root
        self.path = path  # absolute, with array-of-tables indexes
        self.is_array = is_array
        self.lead = lead  # start of the comment lines it owns (== start when none)
        self.start = start  # start of the header line
        self.header_end = header_end  # just past the header line
        self.end = 0  # where the next section's lead starts (or the end of the text)
        self.content_end = 0  # just past its last non-blank line (>= header_end)
        self._entries: list[Entry] | None = None

    @property
    def entries(self) -> list[Entry]:
        """Its ``key = value`` statements, in text order."""
        if self._entries is None:
            found: list[Entry] = []
            _walk(self._text, self.header_end, self.end, self, found)
            self._entries = found
        return self._entries


@record(eq=False)
class Scan:
    """One scan of a TOML document: its text, the sections found (tables and arrays of tables, in order) and
    the newline it uses."""

    text: str
    sections: list[Section]
    newline: str


def content_end_before(text: str, pos: int) -> int:
    """Offset just past the last non-blank line that ends at or before ``pos`` (0 when none).

    ``pos`` must be the start of a line.
    """
    while pos > 0:
        start = line_start(text, pos - 1)
        if text[start:pos].strip(" \t\r\n"):
            return pos
        pos = start
    return 0


def blank_run_after(text: str, pos: int) -> int:
    """Start of the first non-blank line at or after ``pos`` (a line start), or the end of the text."""
    size = len(text)
    while pos < size:
        match = re.compile(_BLANK_LINE_RE).match(text, pos)
        if match is None:
            return pos
        if match.end() == pos:  # end of text
            return size
        pos = match.end()
    return size


def scan(text: str) -> Scan:
    """Scan ``text`` (valid TOML, BOM removed) into sections (their statements are read on demand)."""
    root = Section(text, (), (), False, 0, 0, 0)
    sections = [root]
    _walk(text, 0, len(text), root, None, sections)
    return Scan(text=text, sections=sections, newline=detect_newline(text))


def _walk(
    text: str, pos: int, stop: int, current: Section, entries: list[Entry] | None, sections: list[Section] | None = None
) -> None:
    """Read the lines of ``text[pos:stop]``: with ``sections``, every header becomes a :class:`Section` (and the
    last one's ``end`` and ``content_end`` are set); with ``entries``, the statements of ``current`` are
    collected (a header is then an error: a section's body holds none)."""
    aot_counts: dict[Path, int] = {}
    last_content_end = pos  # just past the last non-blank line seen
    comment_run_start = -1  # start of the run of comment lines directly above the current line
    content_before_run = 0  # last_content_end before that run
    ws_match = re.compile(_WS_RE).match
    simple_match = re.compile(_SIMPLE_LINE_RE).match
    while pos < stop:
        simple = simple_match(text, pos)
        if simple is not None:  # fast path: `key = scalar  # comment`
            end = simple.end()
            if entries is not None:
                key = simple.group(1)
                entries.append(
                    Entry(
                        (key,),
                        (*current.path, key),
                        pos,
                        simple.start(1),
                        simple.end(1),
                        simple.start(2),
                        simple.end(2),
                        end,
                    )
                )
            pos = last_content_end = end
            comment_run_start = -1
            continue
        first = ws_match(text, pos).end()  # type: ignore[union-attr]
        char = text[first : first + 1]
        if char in ("\n", "\r", ""):
            blank = re.compile(_BLANK_LINE_RE).match(text, first)
            if blank is None:
                raise ScanError(f"unexpected character at offset {first}")
            pos = blank.end()
            comment_run_start = -1
            continue
        if char == "#":
            tail = re.compile(_TAIL_RE).match(text, first)
            assert tail is not None  # the pattern always matches
            if comment_run_start < 0:
                comment_run_start = pos
                content_before_run = last_content_end
            pos = last_content_end = tail.end()
            continue
        if char == "[":
            if sections is None:
                raise ScanError(f"unexpected table header at offset {first}")
            header = re.compile(_HEADER_RE).match(text, first)
            if header is None or len(header.group(1)) != len(header.group(3)):
                raise ScanError(f"cannot read the table header at offset {first}")
            tail = re.compile(_TAIL_RE).match(text, header.end())
            if tail is None:
                raise ScanError(f"unexpected text after the table header at offset {header.end()}")
            lead = pos if comment_run_start < 0 else comment_run_start
            body_content_end = last_content_end if comment_run_start < 0 else content_before_run
            current.end = lead
            current.content_end = max(body_content_end, current.header_end)
            keys = key_parts(header.group(2))
            is_array = len(header.group(1)) == 2
            path = _resolve_header(keys, is_array, aot_counts)
            current = Section(text, keys, path, is_array, lead, pos, tail.end())
            sections.append(current)
            pos = last_content_end = tail.end()
            comment_run_start = -1
            continue
        key = re.compile(KEY_RE).match(text, first)
        if key is None:
            raise ScanError(f"cannot read the key at offset {first}")
        eq = re.compile(EQ_RE).match(text, key.end())
        if eq is None:
            raise ScanError(f"expected '=' at offset {key.end()}")
        value_start = eq.end()
        value_end = skip_value(text, value_start)
        tail = re.compile(_TAIL_RE).match(text, value_end)
        if tail is None:
            raise ScanError(f"unexpected text after the value at offset {value_end}")
        if entries is not None:
            parts = key_parts(key.group())
            entries.append(
                Entry(parts, current.path + parts, pos, first, key.end(), value_start, value_end, tail.end())
            )
        pos = last_content_end = tail.end()
        comment_run_start = -1
    if sections is not None:
        current.end = stop
        current.content_end = max(last_content_end, current.header_end)


def _resolve_header(keys: tuple[str, ...], is_array: bool, aot_counts: dict[Path, int]) -> Path:
    """The absolute path of a header: ``[[a]]`` then ``[a.b]`` is ``("a", <last index>, "b")``."""
    path: Path = ()
    last = len(keys) - 1
    for i, key in enumerate(keys):
        path = (*path, key)
        if i == last and is_array:
            index = aot_counts.get(path, 0)
            aot_counts[path] = index + 1
            return (*path, index)
        count = aot_counts.get(path)
        if count is not None:
            path = (*path, count - 1)
    return path


def starts_with(path: Path, prefix: Path) -> bool:
    """Whether ``path`` begins with ``prefix``."""
    return len(path) >= len(prefix) and path[: len(prefix)] == prefix
