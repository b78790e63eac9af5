"""The lane scan text: JSONC comments and trailing commas blanked at C speed, whatever the comment density.

The C scanner only needs a text in which every comment (and every allowed trailing comma) is whitespace, at
the same offsets as the original.  This module builds such a *scan text* with no Python code per comment,
one *lane* (an ASCII byte) per character:

* a ``str`` is folded whole to one ASCII byte per character by the ASCII codec's ``replace`` (every
  non-ASCII character made ``FOLD_MARK``); UTF-8 bytes are taken as they are;
* that text is taken in chunks, each ending before a line that starts with a key or a value, so that nothing
  runs across its end;
* each chunk of UTF-8 is folded on its own (continuation bytes deleted, the others translated), cut by one
  compiled regular expression into "text, comment run, text, ..." pieces (a run is one comment, or two
  separated only by whitespace), every run is replaced by a run of TABs of its length (one list lookup per
  run), and the pieces are joined again; the blanked chunks are joined once, into the scan
  text, the only copy of the whole text this makes;
* trailing commas (a comma that ends a member, followed only by whitespace up to ``]`` or ``}``, comments
  being TABs by then) become TABs too, found by one regex search per blanked chunk (most find none).

The lexing is deliberately *naive*: it does not know strings.  The result is checked rather than trusted:
a TAB is whitespace between tokens but a control character the strict C scanner refuses inside a string, so
a "comment" or "comma" the naive pass found inside a string makes the C scanner fail on the scan text, and the
caller then falls back to the exact string-aware blanking of :mod:`._blanking`.  A ``//`` right after ``:`` or
``/`` (a URL such as ``"https://..."``) is never taken for a comment, so common strings do not force that
fallback.  An unterminated block comment is blanked to the end of the text (the C scanner then fails, and the
reference scanner reports it from the original).

The scan text is only ever read by the validating and skipping scanners (a string's content does not change
its validity; two keys that fold alike make the duplicate check fail, which falls back too), never to build
values.  Being ASCII, it takes one byte per character however wide the original text is.
"""

from __future__ import annotations

import re
import sys

from ._lexical import NON_ASCII_ESCAPE_BYTES_RE, NON_ASCII_ESCAPE_RE

FOLD_MARK = "?"
"""What a folded character becomes: valid inside a JSON string like any character it stands for."""
# UTF-8 -> one ASCII byte per code point: lead bytes become FOLD_MARK, continuation bytes are deleted
_FOLD = bytes(byte if byte < 0x80 else ord(FOLD_MARK) for byte in range(256))
_CONTINUATION = bytes(range(0x80, 0xC0))

# A comment as the lexer sees it when it ignores strings: ``//`` to the line break (not right after ``:`` or
# ``/``: URLs), or ``/*`` to the first ``*/``, or an unterminated ``/*`` to the end of the chunk.  A match is
# one comment, or two with only whitespace between them (the common "comment, line break, comment" of a dense
# text in one match; a longer run takes several).  No general repetition: the engine's cost per match is what
# counts when there is a comment on every line.  Without a CR in the text, a line comment ends at LF alone
# (a cheaper character test for the engine); with one, at either.
# Possessive repetitions (Python 3.11+) spare the engine its backtracking records; none of these can need
# to give characters back.
_POSSESSIVE = b"+" if sys.version_info >= (3, 11) else b""
# A trailing comma in a blanked chunk (comments are TABs there):
_TRAILING_RE = rb",[ \t\r\n]*" + _POSSESSIVE + rb"[\]}]"
_WHITESPACE = b" \t\r\n"


def _split_re(line_breaks: bytes) -> bytes:
    p = _POSSESSIVE
    comment = rb"/(?:/(?<![:/]//)[^" + line_breaks + rb"]*" + p + rb"|\*[^*]*" + p + rb"\*+" + p
    comment += rb"(?:/|(?s:.)*?\*/)|\*[\s\S]*)"
    return rb"(" + comment + rb"(?:[ \t" + line_breaks + rb"]*" + p + comment + rb"|))"


_SPLIT_RE = _split_re(rb"\r\n")
_SPLIT_LF_RE = _split_re(rb"\n")  # for a text without CR
# where a chunk may end: before a line whose first token (after block comments) opens a value or a key, so
# that no comment and no trailing comma runs across the end
_CHUNK_END_RE = rb"\n(?=[ \t]*(?:/\*[^*\r\n]*\*+(?:[^*/\r\n][^*\r\n]*\*+)*/[ \t]*)*[\"0-9\-tfn\[{])"
_TAB_RUNS = [b"\t" * size for size in range(512)]  # a run of TABs for every short comment run
_ALL_TABS = bytes([9]) * 256  # translation table: everything a TAB

_CHUNK = 1 << 16  # characters blanked at least at a time: the pieces of one chunk are all that exist at once
_SEARCH_AT_ONCE = 1 << 16  # a shorter chunk is searched for trailing commas without testing first

def _fold(piece: bytes) -> bytes:
    """``piece`` (whole characters of UTF-8) folded to one ASCII byte per character."""
    return piece if piece.isascii() else piece.translate(_FOLD, _CONTINUATION)


def _chunk_end(data: bytes, pos: int) -> int:
    """Where a chunk that must reach ``pos`` may end: before the next line whose first token (after block
    comments) opens a value or a key (or at the end of ``data``)."""
    found = re.compile(_CHUNK_END_RE).search(data, pos)
    return len(data) if found is None else found.end()


def blanked_at_once(size: int) -> bool:
    """Whether a text of ``size`` bytes (UTF-8, or folded) is blanked in one chunk: its transients (the folded
    text, the pieces, the blanked text) are then each about as large as the text."""
    return size <= 2 * _CHUNK


def _chunk(data: bytes, pos: int, split: re.Pattern[bytes]) -> tuple[int, list[bytes]]:
    """Where the chunk of ``data`` that starts at ``pos`` ends, and the "text, comment run, text, ..." pieces of
    its fold. A chunk ends before a line whose first token (after block comments) is a key or a value, so that no
    comment and no trailing comma runs across its end; it is extended past a block comment that runs on. Each chunk
    is folded on its own: no folded copy of the whole text is made."""
    total = len(data)
    end = total if blanked_at_once(total - pos) else _chunk_end(data, pos + _CHUNK)
    while True:
        pieces = split.split(_fold(data[pos:end]))
        if end == total or not _ends_in_comment(pieces):
            return end, pieces
        close = data.find(b"*/", end)
        end = _chunk_end(data, close) if close >= 0 else total  # a block comment runs on: take it whole


def _ends_in_comment(pieces: list[bytes]) -> bool:
    """Whether the chunk's last run reaches its end and is no terminated block comment: an unterminated one (a
    chunk that does not end the text ends with a line break, which a line comment does not take, and the
    whitespace after a comment is only taken before a second one)."""
    return len(pieces) > 1 and pieces[-1] == b"" and not pieces[-2].endswith(b"*/")


def _blank_pieces(pieces: list[bytes], commas: bool, size: int) -> tuple[bytes, bool]:
    """The chunk of ``pieces`` (``size`` bytes) with every comment run made TABs, and (with ``commas``) whether
    it may hold a trailing comma: searched in its text without the comments (every trailing comma shows there,
    right before its bracket but for whitespace), where the whitespace after a comma is far shorter than in
    the blanked chunk, whose comments are TABs."""
    if len(pieces) == 1:
        return pieces[0], commas and re.compile(_TRAILING_RE).search(pieces[0]) is not None
    runs = pieces[1::2]
    # a short chunk is searched at once (the test would cost about as much as the search)
    may_trail = commas and (
        size < _SEARCH_AT_ONCE or re.compile(_TRAILING_RE).search(b"".join(pieces[::2])) is not None
    )
    try:
        pieces[1::2] = [_TAB_RUNS[len(run)] for run in runs]
    except IndexError:  # a run longer than the table
        pieces[1::2] = [run.translate(_ALL_TABS) for run in runs]
    del runs
    return b"".join(pieces), may_trail


def _tab_trailing_commas(blanked: bytes, before: str) -> bytearray:
    """``blanked`` (a chunk) with its trailing commas made TABs: those that end a member (the last character
    before them that is not whitespace, in the chunk or else ``before``, the text's last one before the chunk,
    closes a value; ``[ /* c */ ,]`` is left for the scanner to refuse)."""
    out = bytearray(blanked)
    for found in re.compile(_TRAILING_RE).finditer(blanked):
        comma = found.start()
        at = comma - 1
        while at >= 0 and out[at] in _WHITESPACE:
            at -= 1
        previous = chr(out[at]) if at >= 0 else before
        if previous and previous not in "{[,:":
            out[comma] = 9  # a TAB
    return out


def _last_token_char(parts: list[str]) -> str:
    """The last character of the joined ``parts`` that is not whitespace ("" when there is none)."""
    for part in reversed(parts):
        stripped = part.rstrip(" \t\r\n")
        if stripped:
            return stripped[-1]
    return ""


def _scan_text(data: bytes, commas: bool) -> str:
    """The scan text of ``data`` (UTF-8, or a text already folded to ASCII), chunk by chunk (see :func:`_chunk`;
    the pieces of one chunk are all that exist at once, and the scan text is the only copy of the whole text
    made). A line comment ends at LF alone unless the text holds a CR."""
    split = re.compile(_SPLIT_RE if b"\r" in data else _SPLIT_LF_RE)
    parts: list[str] = []
    start = 0
    while start < len(data):
        end, pieces = _chunk(data, start, split)
        blanked, may_trail = _blank_pieces(pieces, commas, end - start)
        del pieces
        chunk = _tab_trailing_commas(blanked, _last_token_char(parts)) if may_trail else blanked
        del blanked  # (one copy of the chunk at a time)
        parts.append(chunk.decode("ascii"))
        del chunk
        start = end
    return "".join(parts)


def keys_compare_faithfully(text: bytes | str) -> bool:
    """Whether keys that are equal stay equal in the lane text of ``text``, whose non-ASCII characters are
    folded: not when it also holds an escaped non-ASCII character. The C scanner decodes ``"\\u00e9"`` to
    ``é`` but reads a raw ``é`` folded, so it would take those two spellings of one key for two keys (keys
    that fold alike, the other way round, only make the duplicate check fail, and the caller falls back)."""
    # (a search for the two characters "\\u" is slow when "u" is frequent: the regex is searched for from the
    # first backslash, and not at all in a text without one, the common case found by a one-byte search)
    if text.isascii():
        return True  # nothing is folded
    if isinstance(text, bytes):
        first = text.find(b"\\")
        return first < 0 or re.compile(NON_ASCII_ESCAPE_BYTES_RE).search(text, first) is None
    first = text.find("\\")
    return first < 0 or re.compile(NON_ASCII_ESCAPE_RE).search(text, first) is None


def scan_text_of_bytes(data: bytes, commas: bool) -> str | None:
    """The scan text of UTF-8 ``data`` (see the module docstring); ``None`` as for :func:`scan_text_of_str`."""
    if not data.isascii() and not keys_compare_faithfully(data):
        return None
    return _scan_text(data, commas)


def scan_text_of_str(text: str, commas: bool) -> str | None:
    """The scan text of ``text`` (see the module docstring); ``None`` when its keys would not compare as the
    text's (see :func:`keys_compare_faithfully`)."""
    if not text.isascii() and not keys_compare_faithfully(text):
        return None
    # folded at once, by the ASCII codec: slicing a wide text chunk by chunk costs more than the folded copy
    return _scan_text(text.encode("ascii", "replace"), commas)
