"""``JsoncDocument``: a parsed JSON/JSONC text that can be read and edited by minimal splices."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..errors import MalformedConfigError, PathLike
from ._diagnostics import line_and_column
from ._dialect import JSONC, Dialect
from ._edits import Edit, PathElement, Splice
from ._fast_scan import ValueScanner
from ._lane_blanking import blanked_at_once, scan_text_of_bytes, scan_text_of_str
from ._lexical import encode_utf8, line_indent, skip_gap, splice_utf8, starts_line
from ._located import Container, Member, Walker, locate_document, shift

if TYPE_CHECKING:
    from ._edit_plan import Plan
    from ._editing import JsoncWriter
    from ._layout import Style

JsonPath = Sequence[PathElement]


def _is_scalar(value: Any) -> bool:
    return value is None or isinstance(value, (str, bool, int, float))


_BINARY = (bytes, bytearray)  # a tuple: ``bytes | bytearray`` would build a union at every call


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()
"""Default of :meth:`JsoncDocument.get`: raise ``KeyError`` when the path does not exist."""


def _check_dialect(dialect: object) -> None:
    if not isinstance(dialect, Dialect):
        raise TypeError(
            f"the dialect must be a Dialect (JSONC, JSONC_NO_TRAILING_COMMAS or STRICT_JSON), "
            f"not {type(dialect).__name__}"
        )


class JsoncDocument:
    """A JSON or JSONC text, validated, with syntax-preserving edits.

    Paths are sequences of object keys (``str``) and array indexes (``int``; negative counts from the end).
    Every edit replaces as little text as it can (see :class:`~elydora_config.jsonc.Edit`), keeps comments and
    layout, writes new values in the style of the surrounding text, and re-validates the container it touched,
    so ``text`` is always valid in the document's dialect.
    """

    def __init__(self, text: str, dialect: Dialect = JSONC, *, path: PathLike | None = None) -> None:
        self._dialect = dialect
        self._path = path
        self._edits: list[Edit] = []
        lane_text = None
        if dialect.comments and ("//" in text or "/*" in text):  # comments likely: the lane text now, as from bytes
            lane_text = scan_text_of_str(text, dialect.trailing_commas)
        self._load(text, lane_text)

    @classmethod
    def parse(cls, text: str, dialect: Dialect = JSONC, *, path: PathLike | None = None) -> JsoncDocument:
        """Parse and validate ``text``; ``path`` only names the file in error messages."""
        if not isinstance(text, str):
            hint = "; for bytes use JsoncDocument.parse_bytes" if isinstance(text, bytes | bytearray) else ""
            raise TypeError(f"JsoncDocument.parse takes the text as str, not {type(text).__name__}{hint}")
        _check_dialect(dialect)
        return cls(text, dialect, path=path)

    @classmethod
    def parse_bytes(cls, data: bytes, dialect: Dialect = JSONC, *, path: PathLike | None = None) -> JsoncDocument:
        """Parse UTF-8 ``data`` (a UTF-8 byte order mark is handled as the dialect says)."""
        if not isinstance(data, _BINARY):
            hint = "; for text use JsoncDocument.parse" if isinstance(data, str) else ""
            raise TypeError(f"JsoncDocument.parse_bytes takes bytes, not {type(data).__name__}{hint}")
        _check_dialect(dialect)
        data = data if isinstance(data, bytes) else bytes(data)
        # comments likely: the lane text, built from the bytes. A text blanked in chunks is decoded first: the
        # decoder's buffers, freed, then hold the scan text instead of fresh pages. One blanked at once is decoded
        # after: its transients, each as large as the text, would otherwise come on top of the decoded text.
        lanes = dialect.comments and (b"//" in data or b"/*" in data)
        lanes_first = lanes and blanked_at_once(len(data))
        lane_text = scan_text_of_bytes(data, dialect.trailing_commas) if lanes_first else None
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            head = data[: exc.start].decode("utf-8", "replace")
            line, column = line_and_column(head, len(head))
            raise MalformedConfigError(path, f"invalid UTF-8 at byte {exc.start}", line=line, column=column) from None
        if lanes and not lanes_first:
            lane_text = scan_text_of_bytes(data, dialect.trailing_commas)
        doc = cls.__new__(cls)
        doc._dialect, doc._path, doc._edits = dialect, path, []
        doc._load(text, lane_text if lane_text is not None and len(lane_text) == len(text) else None)
        doc._data = data
        return doc

    # -- loading ----------------------------------------------------------------------------------

    def _load(self, text: str, lane_text: str | None = None) -> None:
        """Validate ``text`` and locate its top levels (see :func:`._located.locate_document`)."""
        scanner = ValueScanner(text, self._dialect, self._path, lane_text)
        walker = Walker(text, self._dialect, scanner, self._path)
        self._root, self._root_start, self._root_end = locate_document(text, scanner, walker)
        self._loaded: tuple[str, ValueScanner, Walker] | None = (text, scanner, walker)
        self._data: bytes | None = None  # the UTF-8 of the text, when it is known (see _apply)
        self._writer: JsoncWriter | None = None  # the editing half, for this text (see _writing)

    # -- the current text -------------------------------------------------------------------------

    @property
    def _text(self) -> str:
        return self._current()[0]

    @property
    def _scanner(self) -> ValueScanner:
        return self._current()[1]

    @property
    def _walker(self) -> Walker:
        return self._current()[2]

    def _current(self) -> tuple[str, ValueScanner, Walker]:
        """The text with its scanner and walker; after an edit of a document read from bytes, decoded only
        when something asks for it (see _apply)."""
        loaded = self._loaded
        if loaded is None:
            data = self._data
            assert data is not None
            text = data.decode("utf-8")
            scanner = ValueScanner(text, self._dialect, self._path)
            loaded = self._loaded = (text, scanner, Walker(text, self._dialect, scanner, self._path))
        return loaded

    # -- reading ----------------------------------------------------------------------------------

    @property
    def text(self) -> str:
        """The current full text."""
        return self._text

    @property
    def dialect(self) -> Dialect:
        """The dialect the document was parsed with (and that every edit keeps)."""
        return self._dialect

    @property
    def edits(self) -> tuple[Edit, ...]:
        """Every edit made since parsing, oldest first."""
        return tuple(self._edits)

    def to_bytes(self) -> bytes:
        """The current text as UTF-8."""
        return self._data if self._data is not None else encode_utf8(self._text)

    @property
    def value(self) -> Any:
        """The whole document as plain Python data (a new object at each access)."""
        return self._scanner.value(self._root_start)[0]

    def get(self, path: JsonPath, default: Any = MISSING) -> Any:
        """The value at ``path``; ``default`` if it does not exist, or ``KeyError`` when no default is given."""
        try:
            start, _ = self._span(path)
        except KeyError:
            if default is MISSING:
                raise
            return default
        return self._scanner.value(start)[0]

    def has(self, path: JsonPath) -> bool:
        """Whether a value exists at ``path``."""
        try:
            self._span(path)
        except KeyError:
            return False
        return True

    def span(self, path: JsonPath) -> tuple[int, int]:
        """``(start, end)`` offsets of the value at ``path`` in :attr:`text` (``KeyError`` if absent)."""
        return self._span(path)

    def entry_span(self, path: JsonPath) -> tuple[int, int]:
        """Like :meth:`span`, but starting at the key for an object member."""
        return self._span(path, entry=True)

    def _span(self, path: JsonPath, entry: bool = False) -> tuple[int, int]:
        """The located span of the value at ``path`` (of its entry: from the key), in located offsets."""
        path = tuple(path)
        if not path:
            return self._root_start, self._root_end
        _, parent, _ = self._container(path[:-1], path[-1])
        member = self._member(parent, path[-1], path)
        return member.start if entry else member.value_start, member.value_end

    # -- locating ---------------------------------------------------------------------------------

    def _container(
        self, path: tuple[PathElement, ...], until: PathElement | None = None
    ) -> tuple[list[Container], Container, Member | None]:
        """The located container at ``path``, the containers above it, and the member that holds it.

        Containers are walked only as far as the path needs (up to ``until`` in the last one, given).
        """
        root = self._root
        if root is None:  # a scalar top-level value has no members: the path up to it is empty
            raise KeyError(())
        chain: list[Container] = []
        node, holder = root, None
        for depth, element in enumerate(path):
            chain.append(node)
            holder = self._member(node, element, path[: depth + 1])
            child = holder.node
            if child is None:
                if self._walker.text[holder.value_start] not in "{[":
                    raise KeyError(path[: depth + 1])
                further = path[depth + 1] if depth + 1 < len(path) else until
                child = holder.node = self._walker.walk(holder.value_start, validate=False, until=further)
            node = child
        return chain, node, holder

    def _member(self, container: Container, element: PathElement, where: tuple[PathElement, ...]) -> Member:
        """The member ``element`` of ``container``, walking an incomplete one further when it may be there."""
        if container.is_object:
            if not isinstance(element, str):
                raise KeyError(where)
            index = container.keys.get(element)
            if not container.complete and (index is None or self._dialect.duplicate_keys):
                self._walk_on(container, element)
                index = container.keys.get(element)
            if index is None:
                raise KeyError(where)
            return container.members[index]
        if not isinstance(element, int) or isinstance(element, bool):
            raise KeyError(where)
        if not container.complete and not 0 <= element < len(container.members):
            self._walk_on(container, element if element >= 0 else None)
        size = len(container.members)
        index = element + size if element < 0 else element
        if not 0 <= index < size:
            raise KeyError(where)
        return container.members[index]

    def _find(self, container: Container, element: PathElement, where: tuple[PathElement, ...]) -> Member | None:
        """The member ``element`` of ``container``; None when it is a key the object does not have (one that
        ``set`` adds), ``KeyError`` when it cannot be there (an index out of range, a key of an array)."""
        if not (container.is_object and isinstance(element, str)):
            return self._member(container, element, where)
        try:
            return self._member(container, element, where)
        except KeyError:
            return None

    def _walk_on(self, container: Container, until: PathElement | None = None) -> None:
        """Locate more members of an incomplete ``container`` (up to ``until``, or all), in place."""
        if container.complete:
            return
        walked = self._walker.walk(container.start, validate=False, until=until, prefix=container)
        container.complete = walked.complete
        if walked.complete:
            container.end = walked.end

    # -- editing ----------------------------------------------------------------------------------

    def _writing(self) -> JsoncWriter:
        """The writer of the current text: the editing half, imported by the first edit (a document that is only
        read never loads it; see ``LAZY`` in tests/elydora_cli/commands/test_cmd_import_sets.py)."""
        from ._editing import JsoncWriter

        if self._writer is None:
            self._writer = JsoncWriter(self._text, self._root_start, self._root_end, self._dialect, self._path)
        return self._writer

    def _style(self, writer: JsoncWriter, chain: list[Container], near: int) -> Style:
        for container in chain:  # the style is read off whole containers
            self._walk_on(container)
        return writer.style(chain, near)

    def set(self, path: JsonPath, value: Any, *, before: str | None = None, after: str | None = None) -> Edit:
        """Replace the value at ``path``, or add ``path[-1]`` as a new key of its object: the last one, or
        right ``before`` or ``after`` the sibling key named (``KeyError`` when there is no such sibling; both
        given: ``TypeError``). A position places a new key only: an existing value is replaced where it is.

        Missing objects on the way are created, as in the TOML and YAML editors: ``set(("a", "b"), 1)`` on
        ``{}`` adds ``"a": {"b": 1}``. A path that goes through a scalar, names an array index that does not
        exist or a key of an array raises ``KeyError`` and changes nothing.
        """
        path = tuple(path)
        writer = self._writing()
        writer.check(value)
        sibling = _position(before, after)
        if not path:
            return self._replace_root(writer, value)
        element = path[-1]
        try:
            chain, parent, holder = self._container(path[:-1], element)
        except KeyError:
            if sibling is not None:  # a new parent has no sibling to name
                raise KeyError((*path[:-1], sibling)) from None
            return self._set_with_parents(path, value)
        member = self._find(parent, element, path)
        if member is None:  # a new key of an object
            assert isinstance(element, str)
            self._walk_on(parent)
            index = len(parent.members)
            if sibling is not None:
                found = parent.keys.get(sibling)
                if found is None:
                    raise KeyError((*path[:-1], sibling))
                index = found if before is not None else found + 1
            style = self._style(writer, [*chain, parent], parent.start)
            plan = writer.insertion(parent, index, element, value, style, self._own_line(holder))
            return self._apply(writer, "set", path, plan, parent, holder)
        if _is_scalar(value):
            # a number, string, boolean or null is written the same on one line or indented, wherever it
            # goes: of the style only the escaping matters, so the layout is not inferred
            new = writer.scalar_text(value)
            plan = [(member.value_start, member.value_end, new)]
            return self._apply(writer, "set", path, plan, parent, holder, member)
        text = self._text
        old_multiline = (
            "\n" in text[member.value_start : member.value_end] or "\r" in text[member.value_start : member.value_end]
        )
        inner = skip_gap(text, member.value_start + 1, self._dialect.comments)
        old_container = text[member.value_start] in "{[" and text[inner] not in "]}"
        style = self._style(writer, [*chain, parent], member.value_start)
        if old_container and not old_multiline:
            pretty = False
        elif old_multiline:
            pretty = True
        else:  # (``multiline`` describes the whole document, wherever the style was inferred)
            pretty = style.multiline and starts_line(text, member.start, parent.start + 1)
        new = writer.value_text(value, style, line_indent(text, member.value_start), pretty)
        return self._apply(writer, "set", path, [(member.value_start, member.value_end, new)], parent, holder, member)

    def _set_with_parents(self, path: tuple[PathElement, ...], value: Any) -> Edit:
        """``set`` where a parent of ``path[-1]`` is missing: add the first missing key with the rest nested."""
        found = 0
        while found < len(path) - 1:  # the first missing key (a KeyError here: nothing can be created)
            _, parent, _ = self._container(path[:found])
            if self._find(parent, path[found], path[: found + 1]) is None:
                break
            found += 1
        missing = path[found:]
        if found == len(path) - 1 or not all(isinstance(key, str) for key in missing):
            raise KeyError(path)
        nested = value
        for key in reversed(missing[1:]):
            nested = {key: nested}
        return self.set(path[: found + 1], nested)

    def insert(self, path: JsonPath, index: int, value: Any) -> Edit:
        """Insert ``value`` into the array at ``path`` so that it gets ``index`` (``len`` or -1: append)."""
        path = tuple(path)
        writer = self._writing()
        writer.check(value)
        chain, array, holder = self._container(path)
        self._walk_on(array)
        if array.is_object:
            raise TypeError(f"{path!r} is an object; use set() to add a key")
        size = len(array.members)
        if index == -1:
            index = size
        if isinstance(index, bool) or not 0 <= index <= size:
            raise IndexError(f"insert index {index} out of range for an array of {size}")
        style = self._style(writer, [*chain, array], array.start)
        plan = writer.insertion(array, index, None, value, style, self._own_line(holder))
        return self._apply(writer, "insert", (*path, index), plan, array, holder)

    def remove(self, path: JsonPath) -> Edit:
        """Remove the member or element at ``path`` with its comma, the comments on its last line and the comment
        lines right above it (no blank line between: they are its own; a comment parted from it by a blank line
        stays). A path that names nothing raises ``KeyError``. The rule is the same in the three editors
        (docs/editors.md, "One rule per verb")."""
        path = tuple(path)
        if not path:
            raise ValueError("the top-level value cannot be removed")
        _, parent, holder = self._container(path[:-1], path[-1])
        member = self._member(parent, path[-1], path)
        self._walk_on(parent)
        writer = self._writing()
        plan = writer.removal(parent, parent.members.index(member))
        return self._apply(writer, "remove", path, plan, parent, holder)

    def undo(self) -> Edit:
        """Revert the most recent edit (its splices, exactly) and return it."""
        if not self._edits:
            raise IndexError("nothing to undo")
        edit = self._edits[-1]
        self._load(edit.revert(self._text))
        self._edits.pop()
        return edit

    def _own_line(self, holder: Member | None) -> bool:
        return holder is None or starts_line(self._text, holder.start)

    def _replace_root(self, writer: JsoncWriter, value: Any) -> Edit:
        text, start, end = self._text, self._root_start, self._root_end
        pretty = "\n" in text[start:end] or "\r" in text[start:end]
        style = self._style(writer, [] if self._root is None else [self._root], start)
        new = writer.value_text(value, style, "", pretty)
        edit = Edit("set", (), (Splice(start, end, new, text[start:end]),))
        self._load(edit.apply(text))
        self._edits.append(edit)
        return edit

    def _apply(
        self,
        writer: JsoncWriter,
        op: str,
        path: tuple[PathElement, ...],
        plan: Plan,
        container: Container,
        holder: Member | None,
        replaced: Member | None = None,
    ) -> Edit:
        """Make the splices of ``plan`` inside ``container``; ``replaced``: the plan is exactly that member's
        value replaced by one new value (``set`` of an existing path)."""
        old_text, old_scanner, _ = self._current()
        old_scanner.release()  # not carried over: the new text and the old lane text would coexist
        edit = Edit(op, path, tuple([Splice(s, e, new, old_text[s:e]) for s, e, new in plan]))
        if replaced is not None:
            delta = writer.replaced_length(old_scanner, plan[0][2]) - (replaced.value_end - replaced.value_start)
            rebuilt = container
        else:
            rebuilt, delta = writer.rebuilt(plan, container)
        if self._data is not None:
            # bytes in, bytes out: splice the UTF-8 and drop the old text; the new one is decoded when asked for
            self._data = splice_utf8(self._data, old_text, plan)
            self._loaded = None
        else:
            new_text = edit.apply(old_text)
            scanner = ValueScanner(new_text, self._dialect, self._path)
            scanner.carry_over(old_scanner, plan)
            self._loaded = (new_text, scanner, Walker(new_text, self._dialect, scanner, self._path))
        del old_text, old_scanner
        if replaced is not None:
            # every other byte of the container is unchanged: only the offsets after the value move
            assert self._root is not None
            replaced.node = None
            shift(self._root, replaced.value_end, delta)
        elif holder is None:
            self._root = rebuilt
        else:
            assert self._root is not None
            shift(self._root, container.end, delta, skip=container)
            holder.node = rebuilt
        self._root_end += delta
        self._writer = None
        self._edits.append(edit)
        return edit


def _position(before: str | None, after: str | None) -> str | None:
    """The sibling a new key is placed next to (``None``: at the end); ``TypeError`` when both are given."""
    if before is not None and after is not None:
        raise TypeError("give before= or after=, not both")
    return before if before is not None else after
