"""Scanning values with the stdlib's C scanner, with JSONC remedies and the pure-Python fallback.

``ValueScanner`` answers "where does the value at offset *p* end?" (validating it, or merely skipping an
already validated one) and "what is the value at *p*?".  It first runs ``json``'s C scanner on the text.
If that fails because of a JSONC comment or an allowed trailing comma, the validating and skipping scans
go to the *lane scan text* (see :mod:`._lane_blanking`: every comment and trailing comma a TAB, built at C
speed whatever the comment density, one byte per character).  If that text is refused, or cannot be built,
the exact string-aware blanking of :mod:`._blanking` takes over for good; anything still refused goes to
:class:`.ReferenceScanner`, which either raises the precise error or (deep nesting, huge integers) scans
the value itself.  Values are only ever built from the exact blanking, of the value's own span.

A wide container is validated in one call from its opening bracket (see :mod:`._located`).

Duplicate keys: the validating C scanner calls :func:`._refusals.check_pairs` on each object's ``(key, value)``
pairs (see there for its cost); the hook returns ``None`` (validation needs no values), which also spares
building the discarded dicts.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from json.scanner import make_scanner
from typing import Any

from ..errors import PathLike
from ._blanking import blank_for_scanner, follows_value, replace_chars
from ._dialect import Dialect
from ._lane_blanking import scan_text_of_str
from ._lexical import scanstring, skip_gap, splice_text
from ._reference_scanner import ReferenceScanner
from ._refusals import check_pairs, strict_decoder

ScanOnce = Callable[[str, int], tuple[Any, int]]


def _error_offset(exc: BaseException, text: str) -> int:
    """Where the C scanner stopped in ``text``: ``JSONDecodeError.pos``, or the offset a ``StopIteration``
    carries. A stop at a comma that only whitespace separates from a closing bracket is given as the stop at
    that bracket: Python 3.13 and later report a trailing comma at the comma itself, earlier versions at the
    bracket, and the remedies look for the bracket."""
    if isinstance(exc, json.JSONDecodeError):
        pos = exc.pos
    elif isinstance(exc, StopIteration) and isinstance(exc.value, int):
        pos = exc.value
    else:
        return -1
    if text.startswith(",", pos):
        after = skip_gap(text, pos + 1, comments=False)
        if text.startswith(("]", "}"), after):
            return after
    return pos


def _decoder(hook: Callable[[list[tuple[str, Any]]], Any] | None) -> ScanOnce:
    return make_scanner(strict_decoder(hook))  # type: ignore[arg-type]


# The scanners keep no state between calls (the C scanner clears its key memo after each), so one of each
# serves every document.
_VALIDATING = _decoder(check_pairs)
_VALIDATING_WITH_DUPLICATES = _decoder(len)
_SKIPPING = _VALIDATING_WITH_DUPLICATES  # ``len`` as the hook: no dict per object, only the scan
_BUILDING = _decoder(None)


def _moved(pos: int, splices: Sequence[tuple[int, int, str]]) -> int | None:
    """Where ``pos`` lands after ``splices`` (sorted, offsets on the old text); ``None`` if one replaced it."""
    delta = 0
    for start, end, new in splices:
        if pos < start:
            break
        if pos < end:
            return None
        delta += len(new) - (end - start)
    return pos + delta


def _shifted(positions: set[int], splices: Sequence[tuple[int, int, str]]) -> set[int]:
    return {moved for moved in (_moved(pos, splices) for pos in positions) if moved is not None}


class ValueScanner:
    """Value scanning over one version of a document's text (offsets are shared with the original)."""

    def __init__(
        self, text: str, dialect: Dialect, path: PathLike | None = None, lane_text: str | None = None
    ) -> None:
        self.text = text
        # the lane scan text (validating and skipping only); None until needed, and for good once refused
        self.lane_text = lane_text
        self.lanes_tried = lane_text is not None
        self.dialect = dialect
        self.path = path
        self.scan_text = text  # the text the C scanner reads: comments/trailing commas blanked on demand
        self.prepared = False  # comments blanked and trailing-comma candidates tabbed
        self.commas_tabbed: set[int] = set()
        self.commas_restored: set[int] = set()  # found inside strings: never to be tabbed again
        # the blanked text of an earlier version and the splices made since (see carry_over)
        self.inherited: tuple[str, set[int], set[int], list[Sequence[tuple[int, int, str]]]] | None = None
        self.validating: ScanOnce = _VALIDATING_WITH_DUPLICATES if dialect.duplicate_keys else _VALIDATING
        self.skipping: ScanOnce = _SKIPPING
        self.building: ScanOnce = _BUILDING
        self.reference = ReferenceScanner(text, dialect, path)

    def carry_over(self, before: ValueScanner, splices: Sequence[tuple[int, int, str]]) -> None:
        """Inherit the blanking of ``before`` (the scanner of the text these splices were made on), lazily.

        The spliced-in text is new JSON written by us (no comments); the rest keeps its blanked form and
        its tabbed commas, shifted.  Nothing is copied until this scanner first needs the blanked text
        (most edits never do: the re-walk skips the members it did not touch); a trailing comma in the new
        text is found by the remedy as usual.
        """
        if before.prepared:
            self.inherited = (before.scan_text, before.commas_tabbed, before.commas_restored, [splices])
        elif before.inherited is not None:
            base, tabbed, restored, batches = before.inherited
            self.inherited = (base, tabbed, restored, [*batches, splices])

    def _take_inherited(self) -> bool:
        if self.inherited is None:
            return False
        text, tabbed, restored, batches = self.inherited
        self.inherited = None
        for splices in batches:
            text = splice_text(text, splices)
            tabbed, restored = _shifted(tabbed, splices), _shifted(restored, splices)
        self.scan_text, self.commas_tabbed, self.commas_restored = text, tabbed, restored
        self.prepared = True
        return True

    # -- public ------------------------------------------------------------------------------------

    def end(self, pos: int, validate: bool = True) -> int:
        """End offset of the value at ``pos``; with ``validate``, refuse anything either dialect rule forbids."""
        scan = self.validating if validate else self.skipping
        lane_text = self.lane_text
        if lane_text is not None:
            try:
                return scan(lane_text, pos)[1]
            except RecursionError:
                pass  # too deep for the C scanner: the remedies below hand it to the reference scanner
            except (StopIteration, ValueError):
                self.lane_text = None  # a naive "comment" inside a string, or an error: exact blanking from now on
        try:
            return scan(self.scan_text, pos)[1]
        except (StopIteration, ValueError, RecursionError) as exc:
            if self._lanes(exc):
                return self.end(pos, validate)
            return self.recover(pos, exc, scan)[1]

    def release(self) -> None:
        """Drop the lane scan text (before an edit builds the new text: it is not carried over)."""
        self.lane_text = None

    def _lanes(self, exc: BaseException) -> bool:
        """Build the lane scan text, once, when the C scanner stopped at a comment or a trailing comma."""
        if self.lanes_tried or self.prepared or self.inherited is not None:
            return False
        text, dialect = self.text, self.dialect
        where = _error_offset(exc, text)
        if not 0 <= where < len(text):
            return False
        comment = dialect.comments and text.startswith(("//", "/*"), where)
        if not (comment or (dialect.trailing_commas and text[where] in "]}")):
            return False
        self.lanes_tried = True
        self.lane_text = scan_text_of_str(text, dialect.trailing_commas) if dialect.comments else None
        return self.lane_text is not None

    def key(self, pos: int) -> tuple[str, int]:
        """The string at ``pos`` (an opening quote) and its end; ``ValueError`` if it is malformed."""
        key, end = scanstring(self.text, pos + 1, True)
        return key, end

    def value(self, pos: int) -> tuple[Any, int]:
        """The value at ``pos`` (a text already validated) and its end offset."""
        try:
            return self.building(self.scan_text, pos)
        except (StopIteration, ValueError, RecursionError) as exc:
            if self.lane_text is not None or self._lanes(exc):
                # blank exactly only the value's own span (the lane text has folded characters)
                end = self.end(pos, False)
                if self.lane_text is not None:
                    part = ValueScanner(self.text[pos:end], self.dialect, self.path)
                    part.lanes_tried = True
                    return part.value(0)[0], end
            return self.recover(pos, exc, self.building)

    # -- remedies ----------------------------------------------------------------------------------

    def recover(self, pos: int, exc: BaseException, scan: ScanOnce) -> tuple[Any, int]:
        """Continue a scan the fast decoder stopped at: fix what it could not read and retry."""
        while True:
            if not self._remedy(_error_offset(exc, self.scan_text)):
                break
            try:
                return scan(self.scan_text, pos)
            except (StopIteration, ValueError, RecursionError) as again:
                exc = again
        # the C scanner cannot take it: the reference scanner reports the error or scans it after all
        return self.reference.value(pos, build=scan is self.building)

    def _remedy(self, where: int) -> bool:
        """Try one way to make the scan text acceptable to the C scanner at error offset ``where``."""
        if self._take_inherited():
            return True
        text = self.scan_text
        if where < 0 or where >= len(text):
            return False
        if where in self.commas_tabbed and text[where] == "\t":
            # the TAB we put there landed inside a string: that comma was text, not a trailing comma
            self.commas_tabbed.discard(where)
            self.commas_restored.add(where)
            self.scan_text = replace_chars(text, [where], ",")
            return True
        closer = self.dialect.trailing_commas and text[where] in "]}"
        if self.prepared:
            # a trailing comma the candidate search missed (a comment stood between it and the bracket)
            back = where
            while back > 0 and text[back - 1] in " \t\r\n":
                back -= 1
            comma = back - 1
            if not closer or comma < 0 or text[comma] != "," or comma in self.commas_tabbed | self.commas_restored:
                return False
            if not follows_value(text, comma):
                return False  # ``{ /* c */ ,}``: no member before the comma
            self.commas_tabbed.add(comma)
            self.scan_text = replace_chars(text, [comma], "\t")
            return True
        comment = self.dialect.comments and text.startswith(("//", "/*"), where)
        if not (comment or closer):
            return False
        # one pass over the whole text: blank every comment, turn trailing-comma candidates into TABs
        self.prepared = True
        self.scan_text, commas = blank_for_scanner(
            text, self.dialect.comments, self.dialect.trailing_commas, self.commas_restored
        )
        self.commas_tabbed.update(commas)
        return True
