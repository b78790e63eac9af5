"""Comment blanking at C speed whatever the comment density: byte lanes of one big integer.

The C scanner only needs a text in which every comment (and every allowed trailing comma) is whitespace,
at the same offsets as the original.  This module builds such a *scan text* without any Python code per
comment.  Each chunk of the text becomes an integer with one 8-bit lane per character (``int.from_bytes``
of a class translation), and comments are found with a few dozen whole-integer operations, which CPython
runs in C at a fraction of a nanosecond per character:

* a block comment runs from each ``/*`` to the first ``*/`` after it: adding 1 at an opener's lane to an
  integer whose lanes are all ``0xFF`` except at closing stars carries through the lanes up to the next
  closing star, so the lanes the carry zeroed are the comment (openers inside it are passed over, closers
  that no opener reaches are ignored);
* a line comment runs from ``//`` to the line break, by the same carry through lanes that are ``0xFF``
  except at line breaks (several ``//`` on one line collapse into one comment);
* a trailing comma is a comma whose carry through whitespace lanes lands on a closing bracket.

The lexing is deliberately *naive*: it does not know strings.  The result is checked rather than trusted:
every comment character becomes a TAB, whitespace between tokens but a control character the strict C
scanner refuses inside a string; trailing commas become TABs too.  So a "comment" or "comma" the naive pass
found inside a string makes the C scanner fail on the scan text, and the caller then falls back to the exact
string-aware blanking of :mod:`.blanking`.  A ``//`` right after ``:`` or ``/`` (a URL such as
``"https://..."``) is never taken for a comment, so common strings do not force that fallback.  Where the two
comment kinds interleave in a way the lane arithmetic cannot settle (``/*`` inside a line comment, ``*/*``),
the pass gives up and returns ``None``.

The scan text is ASCII, one character per code point: every non-ASCII character becomes ``x``.  It is only
ever read by the validating and skipping scanners (a string's content does not change its validity; two keys
that fold alike make the duplicate check fail, which falls back too), never to build values.  Being ASCII,
it takes one byte per character however wide the original text is.
"""

from __future__ import annotations

from collections.abc import Callable

# UTF-8 -> one ASCII byte per code point: lead bytes become "x", continuation bytes are deleted
_FOLD = bytes(byte if byte < 0x80 else 0x78 for byte in range(256))
_CONTINUATION = bytes(range(0x80, 0xC0))

_SLASH, _STAR, _BREAK, _COLON, _SPACE, _COMMA, _CLOSER = (1 << bit for bit in range(7))
_CLASSES = bytearray(256)
_CLASSES[ord("/")] = _SLASH
_CLASSES[ord("*")] = _STAR
_CLASSES[ord(":")] = _COLON
_CLASSES[ord(",")] = _COMMA
_CLASSES[ord("]")] = _CLASSES[ord("}")] = _CLOSER
_CLASSES[ord(" ")] = _CLASSES[ord("\t")] = _SPACE
_CLASSES[ord("\n")] = _CLASSES[ord("\r")] = _SPACE | _BREAK
_CLASS_TABLE = bytes(_CLASSES)

_CHUNK = 1 << 16  # characters per integer: keeps the temporaries small (a few times 64 KiB)
_WHITESPACE = b" \t\r\n"
_TAB = 9


class _Lanes:
    """The comment and trailing-comma lanes of one chunk (ASCII bytes, one byte per code point).

    ``a & ~b`` is written ``a ^ (a & b)``: CPython's bitwise operations on non-negative integers are several
    times faster than on the negative ones ``~`` makes.
    """

    def __init__(self, chunk: bytes, commas: bool) -> None:
        lanes = len(chunk)
        width = 8 * lanes
        ones = int.from_bytes(b"\x01" * lanes, "little")
        full = int.from_bytes(b"\xff" * lanes, "little")
        classes = int.from_bytes(chunk.translate(_CLASS_TABLE), "little")
        slash = classes & ones
        comments = opener = 0
        self.open_at_end, self.settled = False, True
        if b"/*" in chunk:
            star = (classes >> 1) & ones
            opener = slash & (star >> 8)
            closer = star & (slash >> 8)
            closer ^= closer & (opener << 8)  # "*/" whose star is an opener's ("/*/") closes nothing
            stops = closer * 255
            passable = full ^ stops  # 0xFF everywhere but at closing stars
            carried = passable + opener
            self.open_at_end = carried.bit_length() > width
            landed = carried & stops  # the closing stars a carry reached
            after = landed << 8
            comments = (passable ^ (passable & carried)) | ((opener | landed | after) * 255)
            self.settled = not opener & after  # an opener at the slash of a closer ("*/*")
        if b"//" in chunk:
            colon = (classes >> 3) & ones
            starts = slash & (slash >> 8)
            starts ^= starts & ((colon | slash) << 8)  # not after ":" or "/" (URLs such as "https://...")
            starts ^= starts & comments
            breaks = ((classes >> 2) & ones) * 255
            to_break = full ^ breaks  # 0xFF everywhere but at line breaks
            line = ((to_break ^ (to_break & (to_break + starts))) | (starts * 255)) & full
            self.settled = self.settled and not opener & line  # an opener inside a line comment
            comments |= line
        if comments:
            text = int.from_bytes(chunk, "little")
            tabs = int.from_bytes(b"\t" * lanes, "little")
            self.blanked = (text ^ ((text ^ tabs) & comments)).to_bytes(lanes, "little")
        else:
            self.blanked = chunk
        self.width = width
        self.comma_runs_off = False
        self.brackets = 0
        if commas and b"," in chunk:
            # a carry from each comma through whitespace (comments included) lands on the next token
            space = (((classes >> 4) & ones) * 255) | comments
            hop = space + (((classes >> 5) & ones) << 8)
            self.comma_runs_off = hop.bit_length() > width
            self.brackets = hop & (classes >> 6) & ones  # brackets right after a comma (and whitespace)


def _comma_before(out: bytearray, bracket: int) -> int:
    """The offset of the comma that precedes ``bracket`` across whitespace in ``out``."""
    at = bracket - 1
    while out[at] in _WHITESPACE:
        at -= 1
    return at


def _follows_value(out: bytearray, comma: int) -> bool:
    """Whether the comma ends a member: the last non-whitespace before it closes a value."""
    at = comma - 1
    while at >= 0 and out[at] in _WHITESPACE:
        at -= 1
    return at >= 0 and out[at] not in b"{[,:"


def _first_solid(out: bytearray, start: int) -> int:
    """The offset of the first non-whitespace byte at or after ``start`` (``len(out)`` if none)."""
    at, n = start, len(out)
    while at < n and out[at] in _WHITESPACE:
        at += 1
    return at


Chunker = Callable[[int, int], bytes]


def _scan_text(total: int, chunk_of: Chunker, find: Callable[[str, int], int], commas: bool) -> str | None:
    """The scan text of a source of ``total`` units (bytes or characters) read through ``chunk_of``."""
    out = bytearray()
    pending = -1  # a comma at the end of the previous chunk, its bracket not seen yet
    pos = 0
    while pos < total:
        end = find("\n", pos + _CHUNK) + 1 or total
        while True:
            lanes = _Lanes(chunk_of(pos, end), commas)
            if not lanes.open_at_end or end == total:
                break
            close = find("*/", end)  # a block comment runs on: take it whole
            end = total if close < 0 else (find("\n", close) + 1 or total)
        if lanes.open_at_end or not lanes.settled:
            return None  # an unterminated block comment, or an interleaving the lanes cannot settle
        base = len(out)
        out += lanes.blanked
        if commas:
            if pending >= 0:
                solid = _first_solid(out, base)
                if solid < len(out):
                    if out[solid] in b"]}" and _follows_value(out, pending):
                        out[pending] = _TAB
                    pending = -1
            brackets = lanes.brackets
            if brackets:
                marks = brackets.to_bytes(lanes.width // 8, "little")
                at = marks.find(1)
                while at >= 0:
                    comma = _comma_before(out, base + at)
                    if _follows_value(out, comma):
                        out[comma] = _TAB
                    at = marks.find(1, at + 1)
            if lanes.comma_runs_off:
                pending = _comma_before(out, len(out))
        pos = end
    return out.decode("ascii")


def scan_text_of_bytes(data: bytes, commas: bool) -> str | None:
    """The scan text of UTF-8 ``data`` (see the module docstring), or ``None`` when the lanes give up."""

    def chunk_of(start: int, end: int) -> bytes:
        return data[start:end].translate(_FOLD, _CONTINUATION)

    def find(token: str, start: int) -> int:
        return data.find(token.encode("ascii"), start)

    return _scan_text(len(data), chunk_of, find, commas)


def scan_text_of_str(text: str, commas: bool) -> str | None:
    """The scan text of ``text`` (see the module docstring), or ``None`` when the lanes give up."""

    def chunk_of(start: int, end: int) -> bytes:
        return text[start:end].encode("utf-8", "surrogatepass").translate(_FOLD, _CONTINUATION)

    return _scan_text(len(text), chunk_of, text.find, commas)
