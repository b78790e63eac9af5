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

from .blanking import blank_for_scanner, blank_sparse

# UTF-8 -> one ASCII byte per code point: lead bytes become "x", continuation bytes are deleted
_FOLD = bytes(byte if byte < 0x80 else 0x78 for byte in range(256))
_CONTINUATION = bytes(range(0x80, 0xC0))

# class bits: 0 slash, 1 star, 2 line break, 3 "a // after it is no comment" (":" and "/"), 4 whitespace,
# 5 comma, 6 closing bracket
_SLASH, _STAR, _BREAK, _NO_COMMENT_AFTER, _SPACE, _COMMA, _CLOSER = (1 << bit for bit in range(7))
_CLASSES = bytearray(256)
_CLASSES[ord("/")] = _SLASH | _NO_COMMENT_AFTER
_CLASSES[ord("*")] = _STAR
_CLASSES[ord(":")] = _NO_COMMENT_AFTER
_CLASSES[ord(",")] = _COMMA
_CLASSES[ord("]")] = _CLASSES[ord("}")] = _CLOSER
_CLASSES[ord(" ")] = _CLASSES[ord("\t")] = _SPACE
_CLASSES[ord("\n")] = _CLASSES[ord("\r")] = _SPACE | _BREAK
_CLASS_TABLE = bytes(_CLASSES)

_PADDED = 1 << 16  # characters per integer: keeps the temporaries small (a few times 64 KiB)
# lanes are cheaper than examining comments one by one (about 2 us each) from one per this many characters
_LANE_DENSITY = 300
_WHITESPACE = b" \t\r\n"
_TAB = 9


_CACHED: dict[int, tuple[int, int, int]] = {}


def _constants(lanes: int) -> tuple[int, int, int]:
    """0x01, 0xFF and TAB in every one of ``lanes`` lanes (kept for the padded chunk size)."""
    found = _CACHED.get(lanes)
    if found is None:
        found = tuple(int.from_bytes(fill * lanes, "little") for fill in (b"\x01", b"\xff", b"\t"))  # type: ignore[assignment]
        if lanes == _PADDED:
            _CACHED[lanes] = found  # type: ignore[assignment]
    return found  # type: ignore[return-value]


class _Lanes:
    """The comment and trailing-comma lanes of one chunk (ASCII bytes, one byte per code point).

    Shifts, additions and multiplications cost about a quarter of a nanosecond per character, ``&``/``|``/``^``
    a tenth of that, so the relations between neighbours are read with as few shifts as possible (a class
    bit shifted straight into bit 0 of the lane it concerns), and ``a & ~b`` is written ``a ^ (a & b)``
    (bitwise operations on the negative integers ``~`` makes are much slower).
    """

    def __init__(self, chunk: bytes, commas: bool) -> None:
        lanes = len(chunk)
        width = self.width = 8 * lanes
        ones, full, tabs = _constants(lanes)
        classes = int.from_bytes(chunk.translate(_CLASS_TABLE), "little")
        slash = classes & ones
        block = opener = 0
        self.open_at_end, self.settled = False, True
        if b"/*" in chunk:
            opener = slash & (classes >> 9)  # a slash whose next character is a star
            closer = (classes >> 1) & (classes >> 8) & ones  # a star whose next character is a slash
            closer ^= closer & (opener << 8)  # ... unless it is the opener's own star ("/*/" closes nothing)
            passable = full ^ ((closer << 16) * 255)  # 0xFF everywhere but just after each "*/"
            carried = passable + opener  # each opener's carry runs to just after the next "*/"
            self.open_at_end = carried.bit_length() > width
            # the lanes the carries zeroed; an opener inside a comment (its own 1 met a carry) left 0x01
            block = (passable ^ (passable & carried)) | opener
        comments = block
        if b"//" in chunk:
            starts = slash & (classes >> 8)  # "//" ...
            starts ^= starts & (classes << 5)  # ... not right after ":" or "/" (URLs: "https://", "file:///")
            starts ^= starts & block  # ... nor inside a block comment
            to_break = full ^ (((classes >> 2) & ones) * 255)  # 0xFF everywhere but at line breaks
            line = ((to_break ^ (to_break & (to_break + starts))) | starts) & full
            # a block comment that starts inside a line comment: the lexer would not have opened it
            self.settled = not (opener ^ (opener & (block << 8))) & line
            comments |= line
        if comments:
            text = int.from_bytes(chunk, "little")
            self.blanked = (text ^ ((text ^ tabs) & comments)).to_bytes(lanes, "little")
        else:
            self.blanked = chunk
        self.comma_runs_off = False
        self.brackets = 0
        if commas and b"," in chunk:
            # a carry from each comma through whitespace (comments included) lands on the next token
            space = (((classes >> 4) & ones) * 255) | comments
            hop = space + ((classes << 3) & ones)
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


def _lane_text(folded: bytes, commas: bool) -> str | None:
    """The lane scan text of ``folded`` (ASCII, one byte per code point), or ``None`` when the lanes give up."""
    out = bytearray()
    pending = -1  # a comma at the end of the previous chunk, its bracket not seen yet
    pos, total = 0, len(folded)
    while pos < total:
        end = folded.rfind(b"\n", pos, pos + _PADDED) + 1
        if end <= pos or total - pos <= _PADDED:
            end = total if total - pos <= _PADDED else (folded.find(b"\n", pos + _PADDED) + 1 or total)
        while True:
            chunk = folded[pos:end]
            size = len(chunk)
            if _PADDED // 2 <= size < _PADDED:
                chunk += b"\n" * (_PADDED - size)  # the cached constants fit; a line break ends nothing wrongly
            lanes = _Lanes(chunk, commas)
            if not lanes.open_at_end or end == total:
                break
            close = folded.find(b"*/", end)  # a block comment runs on: take it whole
            end = total if close < 0 else (folded.find(b"\n", close) + 1 or total)
        if lanes.open_at_end or not lanes.settled:
            return None  # an unterminated block comment, or an interleaving the lanes cannot settle
        base = len(out)
        out += memoryview(lanes.blanked)[:size]
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


_SAMPLE = 1 << 18  # characters whose comment candidates estimate the density of a longer text


def _dense(folded: bytes) -> bool:
    """Whether comment candidates are dense enough for the lanes to be the cheaper way.

    Counting slashes is quick (one byte); the two-byte counts, slower where slashes abound (paths, URLs),
    only look at a sample of the text.
    """
    if folded.count(b"/") * _LANE_DENSITY < len(folded):
        return False
    sample = folded[:_SAMPLE]
    return (sample.count(b"//") + sample.count(b"/*")) * _LANE_DENSITY >= len(sample)


def _scan_text(folded: bytes, commas: bool) -> str:
    """The scan text of ``folded``: by the lanes when comments are dense, else (or when the lanes give up)
    by the exact blanking, which examines each comment but knows strings."""
    if not _dense(folded):
        return blank_sparse(folded.decode("ascii"), True, commas, set())[0]
    found = _lane_text(folded, commas)
    return found if found is not None else blank_for_scanner(folded.decode("ascii"), True, commas, set())[0]


def scan_text_of_bytes(data: bytes, commas: bool) -> str:
    """The scan text of UTF-8 ``data`` (see the module docstring)."""
    return _scan_text(data.translate(_FOLD, _CONTINUATION), commas)


_ENCODE_CHUNK = 1 << 16


def scan_text_of_str(text: str, commas: bool) -> str:
    """The scan text of ``text`` (see the module docstring)."""
    if text.isascii():
        return _scan_text(text.encode("ascii"), commas)
    pieces = (
        text[start : start + _ENCODE_CHUNK].encode("utf-8", "surrogatepass").translate(_FOLD, _CONTINUATION)
        for start in range(0, len(text), _ENCODE_CHUNK)
    )
    return _scan_text(b"".join(pieces), commas)
