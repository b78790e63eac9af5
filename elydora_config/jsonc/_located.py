"""The located tree: containers with the spans of their members, materialised lazily along paths.

A :class:`Container` is an object or array whose members have been located: for each member the offsets
of its key, its value and its comma.  Only containers someone needed are walked (the parse walks the top
level, or two for a big text; an edit walks the containers on its path); member values in between are
skipped by the C scanner.  Offsets are absolute indexes into the document text; after an edit :func:`shift` moves those
that follow the edited span.
"""

from __future__ import annotations

import re
from typing import NoReturn

from ..errors import PathLike
from ._diagnostics import fail
from ._dialect import Dialect
from ._fast_scan import ValueScanner
from ._lexical import GAP_RE, GAP_START_CHARS, WS_RE, line_indent, scanstring, skip_gap

NO_COMMA = -1
NO_END = -1  # the end of a container whose walk stopped at the member it was looking for

BULK_PROBE = 64  # members walked one by one before deciding whether to validate the rest in one C call
_BULK_MEMBER_SIZE = 1024  # below this average size (characters) per member, the rest goes to the C scanner
_SMALL_CONTAINER = 2048  # characters: a container that closes within this is not worth locating in advance
_WALK_SECOND_LEVEL_FROM = 1 << 16  # characters: from here, containers of 64 small members are walked in full
_SMALL_TEXT_PROBE = 8  # the top level of a small text
_SMALL_TEXT_INNER_PROBE = 2  # the second level: two small members are enough to see that the rest is small too


class Member:
    """One object member (``key`` is a str) or array element (``key`` is None)."""

    __slots__ = ("comma", "key", "node", "start", "value_end", "value_start")

    def __init__(
        self,
        key: str | None,
        start: int,
        value_start: int,
        value_end: int,
        comma: int,
        node: Container | None = None,
    ) -> None:
        self.key = key
        self.start = start  # the key's opening quote, or the value start for array elements
        self.value_start = value_start
        self.value_end = value_end
        self.comma = comma  # offset of the comma after the value, or NO_COMMA
        self.node = node  # the located value when it is a container walked already

    def __repr__(self) -> str:
        return f"Member({self.key!r}, {self.start}, {self.value_start}-{self.value_end}, comma={self.comma})"


class Container:
    """A located object or array: ``text[start]`` is its opening bracket, ``text[end - 1]`` its closing one."""

    __slots__ = ("complete", "end", "is_object", "keys", "members", "start")

    def __init__(
        self,
        start: int,
        end: int,
        is_object: bool,
        members: list[Member],
        complete: bool = True,
        keys: dict[str, int] | None = None,
    ) -> None:
        self.start = start
        self.end = end
        self.is_object = is_object
        self.members = members
        # False when only the first members are located: the rest was validated in one C call (``end`` is
        # known), or the walk stopped at the member it looked for (``end`` is NO_END); see Walker.walk's prefix
        self.complete = complete
        # key -> index of its (last) member; ``keys``: that map, already built by the caller
        self.keys: dict[str, int] = (
            keys if keys is not None else {m.key: i for i, m in enumerate(members) if m.key is not None}
        )

    @property
    def closer(self) -> int:
        """The offset of the closing bracket or brace."""
        return self.end - 1

    def __repr__(self) -> str:
        kind = "object" if self.is_object else "array"
        return f"Container({kind}, {self.start}-{self.end}, {len(self.members)} members)"


class Walker:
    """Walks containers of one text version, member by member, validating or merely locating."""

    def __init__(
        self,
        text: str,
        dialect: Dialect,
        scanner: ValueScanner,
        path: PathLike | None,
    ) -> None:
        self.text = text
        self.dialect = dialect
        self.scanner = scanner
        self.path = path

    def syntax_error(self, container_start: int, pos: int) -> NoReturn:
        """Something at ``pos`` breaks the container that opens at ``container_start``: report it precisely."""
        self.scanner.reference.value(container_start, build=False)
        fail(self.text, pos, "malformed container", self.path)  # the reference scanner raised already

    def _looks_small(self, member_start: int, pos: int) -> bool:
        """Whether the container opening at ``pos`` (the value of the member at ``member_start``) seems to
        close within ``_SMALL_CONTAINER`` characters: pretty-printed, its closer starts a line indented like
        the member's.  Only a guess (a comment may fool it), deciding whether to locate it in advance."""
        text = self.text
        closer = "\n" + line_indent(text, member_start) + ("}" if text[pos] == "{" else "]")
        return text.find(closer, pos, pos + _SMALL_CONTAINER) >= 0

    def walk(
        self,
        start: int,
        *,
        validate: bool,
        descend: int = 0,
        known: dict[int, tuple[int, Container | None]] | None = None,
        bulk: bool = False,
        probe: int = BULK_PROBE,
        inner_probe: int | None = None,
        until: str | int | None = None,
        prefix: Container | None = None,
    ) -> Container:
        """Locate every member of the container that opens at ``start``.

        ``validate``: check everything (values by the validating scanner, keys for duplicates).
        ``descend``: also walk member values that are containers, that many levels further down (those that
        look small are scanned in one call: walking them later, if ever, costs little).
        ``known``: value start -> (value end, located node) for members known to be valid already.
        ``bulk``: in a container of many small members, locate the first ``probe`` ones only and validate the
        rest with one C call (the result is then marked incomplete); ``inner_probe``: the same for the
        containers ``descend`` walks (default ``probe``).
        ``until``: stop (incomplete, ``end`` unknown) once the member with that key, or that many plus one
        elements, is located; a repeated key may be the one that counts, so where keys may repeat the walk
        goes on.  ``prefix``: an incomplete container opening at ``start``; its members are kept (and added to,
        in place) and the walk goes on after its last one.
        """
        text = self.text
        gap_match = re.compile(GAP_RE if self.dialect.comments else WS_RE).match
        gap_chars = GAP_START_CHARS
        scanner = self.scanner
        end_of = scanner.end
        scan = scanner.validating if validate else scanner.skipping
        refuse_duplicates = not self.dialect.duplicate_keys
        trailing_commas = self.dialect.trailing_commas
        child_probe = probe if inner_probe is None else inner_probe
        is_object = text[start] == "{"
        closer = "}" if is_object else "]"
        stop_key = until if is_object and isinstance(until, str) and refuse_duplicates else None
        stop_count = until + 1 if not is_object and type(until) is int and until >= 0 else 0
        n = len(text)
        if prefix is None:
            members: list[Member] = []
            keys: dict[str, int] = {}
            pos = start + 1
        else:
            members, keys = prefix.members, prefix.keys
            pos = members[-1].comma + 1  # an incomplete container's last member has a comma
        if pos < n and text[pos] in gap_chars:
            pos = gap_match(text, pos).end()  # type: ignore[union-attr]
        if not members and pos < n and text[pos] == closer:
            return Container(start, pos + 1, is_object, members, keys=keys)
        while True:
            key: str | None = None
            member_start = pos
            if is_object:
                if pos >= n or text[pos] != '"':
                    self.syntax_error(start, pos)
                try:
                    key, pos = scanstring(text, pos + 1, True)
                except ValueError:
                    self.syntax_error(start, pos)
                if key in keys and refuse_duplicates:
                    self.syntax_error(start, member_start)
                keys[key] = len(members)
                if pos < n and text[pos] in gap_chars:
                    pos = gap_match(text, pos).end()  # type: ignore[union-attr]
                if pos >= n or text[pos] != ":":
                    self.syntax_error(start, pos)
                pos += 1
                if pos < n and text[pos] in gap_chars:
                    if text[pos] == " " and pos + 1 < n and text[pos + 1] not in gap_chars:
                        pos += 1  # the usual single space
                    else:
                        pos = gap_match(text, pos).end()  # type: ignore[union-attr]
            value_start = pos
            if pos < n and text[pos] == "/":  # an unterminated comment, or a comment in strict JSON
                self.syntax_error(start, pos)
            node: Container | None = None
            hint = known.get(pos) if known is not None else None
            if hint is not None:
                pos, node = hint
            elif descend > 0 and pos < n and text[pos] in "{[" and not self._looks_small(member_start, pos):
                node = self.walk(pos, validate=validate, descend=descend - 1, bulk=bulk, probe=child_probe)
                pos = node.end
            else:
                lane = scanner.lane_text
                if lane is None:
                    pos = end_of(pos, validate)
                else:  # the common case of ``ValueScanner.end``, without its call
                    try:
                        pos = scan(lane, pos)[1]
                    except (StopIteration, ValueError, RecursionError):
                        pos = end_of(pos, validate)  # the scanner's remedies
            value_end = pos
            if pos < n and text[pos] in gap_chars:
                pos = gap_match(text, pos).end()  # type: ignore[union-attr]
            comma = NO_COMMA
            if pos < n and text[pos] == ",":
                comma = pos
                pos += 1
                if pos < n and text[pos] in gap_chars:
                    pos = gap_match(text, pos).end()  # type: ignore[union-attr]
                if pos < n and text[pos] == closer and not trailing_commas:
                    self.syntax_error(start, comma)
            elif pos >= n or text[pos] != closer:
                self.syntax_error(start, pos)
            members.append(Member(key, member_start, value_start, value_end, comma, node))
            if pos < n and text[pos] == closer:
                return Container(start, pos + 1, is_object, members, keys=keys)
            if (stop_key is not None and key == stop_key) or len(members) == stop_count:
                return Container(start, NO_END, is_object, members, complete=False, keys=keys)
            if bulk and len(members) == probe and pos - start < probe * _BULK_MEMBER_SIZE:
                # validate the whole container in one C call (the members walked so far again, no copy)
                return Container(start, end_of(start, validate), is_object, members, complete=False, keys=keys)


def locate_document(text: str, scanner: ValueScanner, walker: Walker) -> tuple[Container | None, int, int]:
    """Validate the whole ``text`` and locate its top levels: the top-level container (``None`` for a scalar)
    and the span of the top-level value."""
    dialect, path = walker.dialect, walker.path
    pos = 0
    if text.startswith("\ufeff"):
        if not dialect.bom:
            scanner.reference.document(build=False)
        pos = 1
    start = skip_gap(text, pos, dialect.comments)
    root: Container | None = None
    if start < len(text) and text[start] in "{[":
        # locate the second level while validating it (an edit usually goes there, and locating it later
        # would scan it again); in a small text, a second-level container of more than a few small members is
        # validated in one C call after its first ones
        big = len(text) > _WALK_SECOND_LEVEL_FROM
        probes = (BULK_PROBE, BULK_PROBE) if big else (_SMALL_TEXT_PROBE, _SMALL_TEXT_INNER_PROBE)
        root = walker.walk(start, validate=True, descend=1, bulk=True, probe=probes[0], inner_probe=probes[1])
        end = root.end
    elif start < len(text) and text[start] != "/":
        end = scanner.end(start, True)
    else:
        scanner.reference.document(build=False)
        fail(text, start, "expected a JSON value", path)
    if skip_gap(text, end, dialect.comments) < len(text):
        scanner.reference.document(build=False)
        fail(text, end, "unexpected text after the top-level value", path)
    return root, start, end


def shift(container: Container, threshold: int, delta: int, skip: Container | None = None) -> None:
    """Add ``delta`` to every offset >= ``threshold`` in ``container`` and its located descendants.

    ``skip`` (the container an edit rebuilt) is left alone.
    """
    stack = [container]
    while stack:
        node = stack.pop()
        if node is skip:
            continue
        if node.end >= threshold:
            node.end += delta
        if node.start >= threshold:
            node.start += delta
        for member in reversed(node.members):
            if member.value_end < threshold:
                break
            member.value_end += delta
            if member.start >= threshold:
                member.start += delta
            if member.value_start >= threshold:
                member.value_start += delta
            if member.comma >= threshold:
                member.comma += delta
            if member.node is not None:
                stack.append(member.node)
