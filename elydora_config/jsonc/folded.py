"""A JSONC document read from its UTF-8 without decoding it: structure from the lane scan text, content from
the bytes.

``parse_bytes`` of a text with comments builds the lane scan text anyway (see :mod:`.lane_blanking`): one
ASCII character per code point, at the offsets of the decoded text, comments and trailing commas made TABs.
Validating and locating need nothing else, so the parse runs on it alone and the decoded text is not built
until something asks for content (the text itself, a value, a layout to infer). For a text with characters
outside Latin-1 that text takes two bytes per character; building it was about a sixth of an edit of a big
file (mostly the kernel handing over fresh memory) and a third of its memory.

What the scan text cannot tell is read from the bytes, through a :class:`Utf8Index`:

* a key holding a folded character (``FOLD_MARK``, which stands for any non-ASCII one) is decoded from its
  own bytes, so keys and the duplicate check are exact;
* the UTF-8 offset of a character (to splice the bytes, to decode one span): one index entry per 16 KiB of
  bytes, recorded while the UTF-8 is validated chunk by chunk, then the characters of one chunk.
"""

from __future__ import annotations

import codecs
from bisect import bisect_right
from collections.abc import Sequence

from ..errors import PathLike
from .dialect import Dialect
from .fast_scan import ValueScanner
from .layout import prefers_ascii_utf8
from .lexical import scanstring
from .located import Walker

_STEP = 1 << 14  # bytes validated (and indexed) at a time: small, each chunk's decoded text is transient


class Utf8Index:
    """Character offsets of a UTF-8 text mapped to byte offsets, without the decoded text."""

    __slots__ = ("_bytes_at", "_chars_at", "ascii", "data")

    def __init__(self, data: bytes, bytes_at: list[int], chars_at: list[int], ascii: bool) -> None:
        self.data = data
        self.ascii = ascii  # one byte per character: every offset is its own
        self._bytes_at = bytes_at  # where each indexed chunk starts, in bytes and in characters
        self._chars_at = chars_at

    @classmethod
    def of(cls, data: bytes, ascii: bool) -> Utf8Index | None:
        """The index of ``data``; ``None`` when it is not valid UTF-8 (the caller decodes it to say where)."""
        if ascii:
            return cls(data, [0], [0], True)
        decode = codecs.utf_8_decode
        view = memoryview(data)
        bytes_at, chars_at = [], []
        at, chars, total = 0, 0, len(data)
        step = max(_STEP, 4)  # four bytes hold a whole character: every chunk takes at least one
        try:
            while at < total:
                text, used = decode(view[at : at + step], "strict", at + step >= total)
                bytes_at.append(at)
                chars_at.append(chars)
                at += used
                chars += len(text)
        except UnicodeDecodeError:
            return None
        finally:
            view.release()
        return cls(data, bytes_at, chars_at, False)

    def byte_offset(self, char: int, known: tuple[int, int] = (0, 0)) -> int:
        """The offset in the bytes of character ``char``; ``known``: a ``(character, byte)`` pair at or before
        it (the nearest indexed one is taken if it is nearer)."""
        if self.ascii:
            return char
        chunk = bisect_right(self._chars_at, char) - 1
        at, bytes_at = self._chars_at[chunk], self._bytes_at[chunk]
        if known[0] > at:
            at, bytes_at = known
        return self._walk(bytes_at, char - at)

    def _walk(self, at: int, chars: int) -> int:
        """The byte offset ``chars`` characters after byte offset ``at``, decoding only those characters: each
        round decodes as many bytes as characters are left (no more than that many characters), so the span
        is decoded about once."""
        decode = codecs.utf_8_decode
        data = self.data
        while chars:
            text, used = decode(data[at : at + chars], "strict", False)
            if not used:  # the next character is longer than what is left to count: take it alone
                text, used = decode(data[at : at + 4], "strict", False)
                used = len(text[0].encode("utf-8"))
                text = text[0]
            at += used
            chars -= len(text)
        return at

    def decode(self, start: int, end: int) -> str:
        """The decoded characters ``start`` to ``end``."""
        first = self.byte_offset(start)
        return self.data[first : self.byte_offset(end, (start, first))].decode("utf-8")

    def spliced(self, splices: Sequence[tuple[int, int, str]]) -> bytes:
        """The bytes with the (sorted, non-overlapping) splices made, whose offsets are characters."""
        view = memoryview(self.data)
        pieces: list[bytes | memoryview] = []
        prev, known = 0, (0, 0)
        for start, end, new in splices:
            first = self.byte_offset(start, known)
            pieces.append(view[prev:first])
            pieces.append(new.encode("utf-8"))
            prev = self.byte_offset(end, (start, first))
            known = (end, prev)
        pieces.append(view[prev:])
        return b"".join(pieces)


class FoldedView:
    """The scanner and walker of a document over its lane scan text, with the index back to its bytes."""

    __slots__ = ("index", "scanner", "walker")

    def __init__(self, scan_text: str, index: Utf8Index, dialect: Dialect, path: PathLike | None) -> None:
        self.index = index
        # the scan text is both the text and the lane text: the C scanner reads it, and so does the walker
        self.scanner = ValueScanner(scan_text, dialect, path, scan_text)
        self.walker = Walker(scan_text, dialect, self.scanner, path, None if index.ascii else self.real_key)

    @property
    def lane_text(self) -> str:
        """The lane scan text the document was parsed on."""
        return self.scanner.text

    def real_key(self, start: int, end: int) -> str:
        """The key whose quoted token spans characters ``start`` to ``end``, decoded from its bytes."""
        return scanstring(self.index.decode(start, end), 1, True)[0]

    def prefers_ascii(self) -> bool:
        """:func:`.layout.prefers_ascii` of the decoded text, read off the bytes."""
        return prefers_ascii_utf8(self.index.data)
