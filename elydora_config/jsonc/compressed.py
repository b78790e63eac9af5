"""A JSONC document read from UTF-8 bytes with comments, parsed on its *compressed* scan text.

The C scanner cannot read comments, so :mod:`.lane_blanking` turns them into whitespace. Blanking them at
their own length keeps every offset, but costs a copy of the whole text and, when the text is not ASCII, a
fold of every character to one byte; and the scanner then skips every blanked character again (in a text
with a comment on every line, a third of its scan). The compressed scan text instead makes every comment run
*one* TAB and keeps the bytes otherwise, read as Latin-1 (one character per byte); trailing commas are made
TABs too, but only once the scanner first stops at one (a text without any, most, is not searched for them).
That is all validating and locating need: the C scanner accepts it exactly when it accepts the text (a TAB
is whitespace between tokens and a refused control character inside a string, so a naive "comment" inside a
string is caught as before), and every token is in it verbatim. Its offsets are then *compressed*: a
position maps back to the bytes through the comment runs of its chunk, split again when asked for (one
chunk's runs are kept), and to characters through a :class:`Utf8Index`.

A document parsed this way answers what needs no decoded text: locating (``has``, ``span``), values
(``get``, ``value``: the bytes of the value's span, decoded alone when they are not ASCII), and ``set`` of a
scalar (the bytes are spliced). The first operation that needs the text decodes it and parses it again the
usual way (see ``JsoncDocument._decoded``).
"""

from __future__ import annotations

import codecs
from bisect import bisect_right
from itertools import accumulate
from operator import add
from typing import Any

from ..errors import PathLike
from .dialect import Dialect
from .fast_scan import ValueScanner
from .lane_blanking import compressed_chunk, split_chunks, split_pattern
from .layout import prefers_ascii_utf8
from .lexical import scanstring, splice_text
from .located import Walker

_STEP = 1 << 14  # bytes validated (and indexed) at a time: small, each chunk's decoded text is transient


class Utf8Index:
    """Byte offsets of a UTF-8 text mapped to character offsets, without the decoded text."""

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

    def replaced(self, data: bytes, at: int, old_bytes: int, new_bytes: int, char_delta: int) -> Utf8Index:
        """The index of ``data``: this index's bytes with the ``old_bytes`` at ``at`` replaced by ``new_bytes``
        (whole characters, ``char_delta`` more of them)."""
        if self.ascii:
            if new_bytes == old_bytes + char_delta:  # the new characters are ASCII too
                return Utf8Index(data, [0], [0], True)
            index = Utf8Index.of(data, False)  # a non-ASCII value in an ASCII text: index it
            assert index is not None
            return index
        delta, end = new_bytes - old_bytes, at + old_bytes  # (a token: at least one byte)
        # an indexed chunk that started inside the old bytes no longer does; those after them move
        pairs = zip(self._bytes_at, self._chars_at, strict=True)
        kept = [(offset, chars) for offset, chars in pairs if not at < offset < end]
        bytes_at = [offset + delta if offset >= end else offset for offset, _ in kept]
        chars_at = [chars + char_delta if offset >= end else chars for offset, chars in kept]
        return Utf8Index(data, bytes_at, chars_at, False)

    def char_offset(self, byte: int) -> int:
        """The character offset of byte offset ``byte`` (which starts a character, or ends the text)."""
        if self.ascii:
            return byte
        chunk = bisect_right(self._bytes_at, byte) - 1
        start = self._bytes_at[chunk]
        return self._chars_at[chunk] + len(self.data[start:byte].decode("utf-8"))


class CompressedText:
    """The compressed scan text of ``data`` and the way back from its offsets to the bytes'."""

    __slots__ = ("_edited", "_free_at", "_kept", "_orig_at", "_pending", "_text", "data")

    def __init__(self, data: bytes) -> None:
        self.data = data
        parts: list[str] = []
        self._orig_at: list[int] = []  # where each chunk starts in the bytes, and in the text
        self._free_at: list[int] = []
        free = 0
        kept: list[tuple[int, list[int], list[int]]] = []

        def compressed(pieces: list[bytes], start: int, end: int) -> str:
            if start == 0 and end == len(data):  # one chunk: split again, it would cost as much as the parse
                kept.append((0, *_piece_offsets(pieces, 0, 0)))
            return compressed_chunk(pieces).decode("latin-1")

        for start, _end, chunk in split_chunks(data, compressed):
            self._orig_at.append(start)
            self._free_at.append(free)
            free += len(chunk)
            parts.append(chunk)
        self._text = "".join(parts)
        self._pending: list[tuple[int, int, str]] = []  # edits not made to the text yet (see text)
        # where the text pieces of a chunk start, in the text and in the bytes: split again when asked for (the
        # last chunk asked for is kept), kept for good once an edit moved them (its runs cannot be found again:
        # a new value may hold what looks like a comment)
        self._kept: tuple[int, list[int], list[int]] | None = kept[0] if kept else None
        self._edited: dict[int, tuple[list[int], list[int]]] = {}

    @property
    def text(self) -> str:
        """The compressed scan text (an edit splices it when it is next asked for: one edit of a document read
        from bytes, the usual case, never needs it again, and the old and the new text never coexist then)."""
        if self._pending:
            for start, end, new in self._pending:
                self._text = splice_text(self._text, [(start, end, new)])
            self._pending.clear()
        return self._text

    def byte_offset(self, pos: int) -> int:
        """The offset in the bytes of text offset ``pos`` (a position in a token, or between tokens)."""
        free, orig = self._offsets(bisect_right(self._free_at, pos) - 1)
        piece = bisect_right(free, pos) - 1  # the text piece holding pos (or the run after it)
        return orig[piece] + pos - free[piece]

    def replace(self, pos: int, old_length: int, new: bytes) -> int:
        """Replace the ``old_length`` bytes of a token at text offset ``pos`` (no comment inside) with ``new``
        in the bytes and in the text alike; return where it was in the bytes."""
        chunk = bisect_right(self._free_at, pos) - 1
        free, orig = self._offsets(chunk)
        piece = bisect_right(free, pos) - 1
        at = orig[piece] + pos - free[piece]
        delta = len(new) - old_length
        self._edited[chunk] = (
            free[: piece + 1] + [offset + delta for offset in free[piece + 1 :]],
            orig[: piece + 1] + [offset + delta for offset in orig[piece + 1 :]],
        )
        self._kept = None
        for later in range(chunk + 1, len(self._free_at)):
            self._free_at[later] += delta
            self._orig_at[later] += delta
            moved = self._edited.get(later)
            if moved is not None:  # offsets kept for an edit there are absolute: they move too
                self._edited[later] = ([offset + delta for offset in moved[0]], [offset + delta for offset in moved[1]])
        view = memoryview(self.data)
        self.data = b"".join((view[:at], new, view[at + old_length :]))
        view.release()
        self._pending.append((pos, pos + old_length, new.decode("latin-1")))
        return at

    def _offsets(self, chunk: int) -> tuple[list[int], list[int]]:
        edited = self._edited.get(chunk)
        if edited is not None:
            return edited
        kept = self._kept
        if kept is None or kept[0] != chunk:
            start = self._orig_at[chunk]
            end = self._orig_at[chunk + 1] if chunk + 1 < len(self._orig_at) else len(self.data)
            pieces = split_pattern(self.data).split(memoryview(self.data)[start:end])
            kept = self._kept = (chunk, *_piece_offsets(pieces, start, self._free_at[chunk]))
        return kept[1], kept[2]


def _piece_offsets(pieces: list[bytes], orig: int, free: int) -> tuple[list[int], list[int]]:
    """Where each text piece of a chunk split into ``pieces`` (starting at ``orig`` in the bytes, ``free`` in
    the compressed text) starts in the compressed text and in the bytes."""
    texts = list(map(len, pieces[::2]))
    runs = list(map(len, pieces[1::2]))
    return (
        list(accumulate(map(add, texts, [1] * len(runs)), initial=free)),
        list(accumulate(map(add, texts, runs), initial=orig)),
    )


class CompressedView:
    """A document's scanner and walker over its compressed scan text, and the way back to its bytes."""

    __slots__ = ("_scanner", "_walker", "compressed", "dialect", "index", "path")

    def __init__(self, data: bytes, index: Utf8Index, dialect: Dialect, path: PathLike | None) -> None:
        self.index = index
        self.dialect = dialect
        self.path = path
        self.compressed = CompressedText(data)
        self._scanner: ValueScanner | None = None
        self._walker: Walker | None = None

    @property
    def scanner(self) -> ValueScanner:
        """The scanner of the compressed text, which is both its text and its lane text: its trailing commas
        are made TABs once the C scanner first stops at one."""
        scanner = self._scanner
        if scanner is None:
            text = self.compressed.text
            scanner = self._scanner = ValueScanner(text, self.dialect, self.path, text)
            scanner.lanes_tried, scanner.lane_commas = True, False
        return scanner

    @property
    def walker(self) -> Walker:
        """The walker of the compressed text (keys that are not ASCII read from their bytes)."""
        walker = self._walker
        if walker is None:
            walker = self._walker = Walker(self.compressed.text, self.dialect, self.scanner, self.path, self.real_key)
        return walker

    @property
    def text(self) -> str:
        """The compressed scan text."""
        return self.compressed.text

    def real_key(self, start: int, end: int) -> str:
        """The key whose token spans ``start`` to ``end``, read from its UTF-8 (when it is not ASCII)."""
        return scanstring(self.text[start:end].encode("latin-1").decode("utf-8"), 1, True)[0]

    def char_span(self, start: int, end: int) -> tuple[int, int]:
        """Character offsets, in the decoded text, of the compressed span ``start`` to ``end``."""
        index, byte_offset = self.index, self.compressed.byte_offset
        return index.char_offset(byte_offset(start)), index.char_offset(byte_offset(end))

    def value(self, start: int, end: int) -> Any:
        """The value whose compressed span is ``start`` to ``end``: built from the compressed text when the
        document is ASCII (comments are whitespace there), else from the value's own bytes, decoded."""
        if self.index.ascii:
            return self.scanner.value(start)[0]
        byte_offset, data = self.compressed.byte_offset, self.compressed.data
        span = data[byte_offset(start) : byte_offset(end)].decode("utf-8")
        return ValueScanner(span, self.dialect, self.path).value(0)[0]

    @property
    def data(self) -> bytes:
        """The document's bytes (as edited)."""
        return self.compressed.data

    def replace(self, start: int, end: int, new: str) -> tuple[int, str, int]:
        """Replace the token spanning ``start`` to ``end`` (a scalar: no comment inside) with ``new``, in the
        bytes and the compressed text alike; return the token's character offset and text before the edit,
        and how far the offsets after it move. The scanner and walker are made anew when next asked for (the
        old ones, and a copy of the text with its trailing commas made TABs, are dropped first)."""
        token = self.text[start:end].encode("latin-1")
        old, encoded = token.decode("utf-8"), new.encode("utf-8")
        self._scanner = self._walker = None
        at = self.compressed.replace(start, len(token), encoded)
        char_at = self.index.char_offset(at)  # (the index still describes the bytes before the edit)
        self.index = self.index.replaced(self.compressed.data, at, len(token), len(encoded), len(new) - len(old))
        return char_at, old, len(encoded) - len(token)

    def prefers_ascii(self) -> bool:
        """:func:`.layout.prefers_ascii` of the decoded text, read off the bytes."""
        return prefers_ascii_utf8(self.compressed.data)
