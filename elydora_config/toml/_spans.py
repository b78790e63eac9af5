"""The span editor: turns one edit of a TOML document into minimal text splices.

It works on a :class:`~elydora_config.toml._scanner.Scan` of text that ``tomllib`` accepted and on the
data ``tomllib`` returned for it. Shapes it does not handle raise :class:`ScanError`; the document
then falls back to tomlkit. Whatever it produces is re-parsed and compared by the caller.

Blocks (a table header with its owned comments and body) are inserted and removed so that an
insertion followed by the removal of the same block gives back the original bytes:

- removing a block takes the blank lines before it when something precedes it (or, when something
  follows it directly and blank lines precede it, only the block); when nothing precedes it, the
  blank lines after it;
- inserting a block adds exactly what that rule would take away.
"""

from __future__ import annotations

from typing import Any

from elydora_config._hashlines import comment_lines_up, line_start
from elydora_config.toml._inline import (
    Node,
    deepest_written,
    find,
    insert_item,
    is_written,
    parse_node,
    remove_item,
    render_item,
)
from elydora_config.toml._scanner import (
    Entry,
    Scan,
    ScanError,
    Section,
    blank_run_after,
    content_end_before,
    starts_with,
)
from elydora_config.toml._values import (
    Path,
    Style,
    is_table_array,
    render_block,
    render_dotted,
    render_value,
)

from ..records import replace

Splice = tuple[int, int, str]


def apply_splices(text: str, splices: list[Splice]) -> str:
    """Apply non-overlapping splices (any order) to ``text``."""
    ordered = sorted(splices, key=lambda splice: (splice[0], splice[1]))
    parts: list[str] = []
    pos = 0
    for start, end, new in ordered:
        if start < pos:
            raise ScanError("overlapping edits")
        parts.append(text[pos:start])
        parts.append(new)
        pos = end
    parts.append(text[pos:])
    return "".join(parts)


def header_keys(path: Path) -> tuple[str, ...]:
    """The table keys of ``path`` (array indexes left out), as a header names them."""
    return tuple(key for key in path if isinstance(key, str))


def is_block_value(value: object) -> bool:
    """Values written as their own ``[table]`` / ``[[array]]`` blocks when added under a table."""
    return (type(value) is dict and bool(value)) or is_table_array(value)


class SpanEditor:
    """Plans text edits (splices) of a scanned TOML document without reformatting the rest."""
    def __init__(self, scan: Scan) -> None:
        self.scan = scan
        self.text = scan.text
        self.nl = scan.newline
        self.root = scan.sections[0]
        self.by_path: dict[Path, Section] = {section.path: section for section in scan.sections}
        self.style = self._document_style()

    def apply(self, splices: list[Splice]) -> str:
        """This editor's text with ``splices`` applied."""
        return apply_splices(self.text, splices)

    # -- what is where -------------------------------------------------------------------------

    def _document_style(self) -> Style:
        eq, indent = " = ", ""
        for section in self.scan.sections:
            if section.entries:
                first = section.entries[0]
                eq = self.text[first.key_end : first.value_start]
                break
        for section in self.scan.sections[1:]:
            if section.entries:
                first = section.entries[0]
                indent = self.text[first.start : first.key_start]
                break
        return Style(newline=self.nl, eq=eq, indent=indent)

    def ancestor_entries(self, path: Path) -> list[Entry]:
        """The statements of the sections above ``path``: the only ones whose path can start with it or hold it
        (a statement's path is its section's path followed by its own keys)."""
        found: list[Entry] = []
        for size in range(len(path)):
            section = self.by_path.get(path[:size])
            if section is not None:
                found.extend(section.entries)
        return found

    def home_of(self, entry: Entry) -> Section:
        """The section ``entry`` is written in."""
        return self.by_path[entry.path[: len(entry.path) - len(entry.keys)]]

    def covering_entry(self, path: Path) -> Entry | None:
        """The key/value statement whose value holds ``path`` (or is it)."""
        by_path = {entry.path: entry for entry in self.ancestor_entries(path)}
        for size in range(len(path), 0, -1):
            entry = by_path.get(path[:size])
            if entry is not None:
                return entry
        return None

    def is_implicit(self, path: Path) -> bool:
        """True when the table or array at ``path`` has no text of its own (no header, no key line,
        no inline key or array item): it exists only because something under it does."""
        if not path or path in self.by_path:
            return False
        entry = self.covering_entry(path)
        if entry is None:
            return True
        if entry.path == path:
            return False
        return not is_written(parse_node(self.text, entry.value_start), path[len(entry.path) :])

    def _entry_range(self, entry: Entry) -> tuple[int, int]:
        """What removing ``entry`` takes: its lines; or its whole section when that section is a bare
        header written after its own sub-tables and holding nothing but this entry (what adding a key
        to an implicit table writes), as the sub-tables keep the table alive without it."""
        section = self.home_of(entry)
        if section is self.root:
            return entry.start, entry.end
        subtables = [s for s in self.scan.sections if s is not section and starts_with(s.path, section.path)]
        if (
            section.is_array
            or len(section.entries) != 1
            or section.lead != section.start
            or entry.start != section.header_end
            or section.content_end != entry.end
            or "#" in self.text[section.start : section.header_end]
            or not subtables
            or any(s.lead > section.lead for s in subtables)
        ):
            return entry.start, entry.end
        return self._block_range(section.lead, section.content_end)

    def sections_under(self, path: Path) -> list[Section]:
        """The table sections whose header path begins with ``path``."""
        return [s for s in self.scan.sections[1:] if starts_with(s.path, path)]

    def _inline_node(self, entry: Entry, path: Path) -> Node:
        node = parse_node(self.text, entry.value_start)
        if path == entry.path:
            return node
        _, target, _ = find(node, path[len(entry.path) :])
        if target is None:
            raise ScanError("inline value not found")
        return target

    def _region_end(self, path: Path) -> int:
        """End of the content of the last section at or under ``path`` (or of a nearest ancestor)."""
        for size in range(len(path), -1, -1):
            under = self.sections_under(path[:size]) if size else self.scan.sections
            if under:
                return max(section.content_end for section in under)
        return 0  # pragma: no cover - the root section always exists

    # -- set ---------------------------------------------------------------------------------------

    def replace(self, path: Path, value: Any) -> list[Splice]:
        """Replace the existing value at ``path``."""
        entry = self.covering_entry(path)
        if entry is None:
            raise ScanError("replacing a table or an array of tables")
        if entry.path == path:
            start, end = entry.value_start, entry.value_end
        else:
            node = parse_node(self.text, entry.value_start)
            _, target, _ = find(node, path[len(entry.path) :])
            if target is None:
                raise ScanError("inline value not found")
            start, end = target.start, target.end
        old = self.text[start:end]
        style = replace(self.style, literal_strings=old.startswith("'") and not old.startswith("'''"))
        return [(start, end, render_value(value, style))]

    def add(
        self, parent: Path, key: str, value: Any, before: str | None = None, after: str | None = None
    ) -> list[Splice]:
        """Add ``key = value`` to the existing table at ``parent``: at its end, or as a line right ``before`` or
        ``after`` the key line of the sibling named (``ScanError`` when that sibling has no key line there)."""
        if before is not None or after is not None:
            return self._add_next_to(parent, key, value, before, after)
        entry = self.covering_entry(parent)
        if entry is not None:
            node, prefix = deepest_written(parse_node(self.text, entry.value_start), parent[len(entry.path) :])
            if node.kind != "table" or not all(isinstance(step, str) for step in prefix):
                raise ScanError("not an inline table")
            keys = tuple(str(step) for step in (*prefix, key))
            item = render_item(self.text, node, keys, value, self.style)
            return insert_item(self.text, node, len(node.items), item, self.style)
        section = self.by_path.get(parent)
        block = is_block_value(value)
        if section is not None and not block:
            return self._add_line(section, (key,), value, section.entries[-1] if section.entries else None)
        if section is None and not block:
            dotted = [
                e
                for e in self.ancestor_entries(parent)
                if len(e.path) - len(e.keys) < len(parent) < len(e.path) and e.path[: len(parent)] == parent
            ]
            if dotted:
                last = max(dotted, key=lambda e: e.start)
                home = self.home_of(last)
                return self._add_line(home, (*parent[len(home.path) :], key), value, last)
            lines = render_block(header_keys(parent), {key: value}, array=False, style=self.style)
        elif type(value) is dict:
            lines = render_block(header_keys((*parent, key)), value, array=False, style=self.style)
        else:
            lines = []
            for item in value:
                lines.extend(render_block(header_keys((*parent, key)), item, array=True, style=self.style))
        return self._insert_block(self._region_end(parent), lines, self._default_gap())

    def _add_next_to(
        self, parent: Path, key: str, value: Any, before: str | None, after: str | None
    ) -> list[Splice]:
        section = self.by_path.get(parent)
        if section is None or is_block_value(value) or self.covering_entry(parent) is not None:
            raise ScanError("a position places a key line of a [table] or of the top level")
        sibling = [e for e in section.entries if e.keys == ((before if before is not None else after),)]
        if len(sibling) != 1:
            raise ScanError("the sibling has no key line of its own")
        if after is not None:
            return self._add_line(section, (key,), value, sibling[0])
        text, entry = self.text, sibling[0]
        at = self._head(entry)  # the comment lines right above the sibling stay with it
        indent = text[entry.start : entry.key_start]
        eq = text[entry.key_end : entry.value_start]
        return [(at, at, indent + render_dotted((key,)) + eq + render_value(value, self.style) + self.nl)]

    def _head(self, entry: Entry) -> int:
        """Where ``entry`` begins with its own comment lines: those right above it, no blank line between (not
        above its table's header or the statement before it)."""
        section = self.home_of(entry)
        floor = max((e.end for e in section.entries if e.end <= entry.start), default=0)
        floor = max(floor, 0 if section is self.root else section.header_end)
        return comment_lines_up(self.text, entry.start, floor)

    def _add_line(self, section: Section, keys: Path, value: Any, after: Entry | None) -> list[Splice]:
        text = self.text
        if after is not None:
            at = after.end
            indent = text[after.start : after.key_start]
            eq = text[after.key_end : after.value_start]
        else:
            at = section.content_end if section is self.root else section.header_end
            indent = "" if section is self.root else self.style.indent
            eq = self.style.eq
        line = indent + render_dotted(keys) + eq + render_value(value, self.style)
        if at == len(text) and text and not text.endswith("\n"):
            return [(at, at, self.nl + line)]
        if after is None and at > 0 and text[line_start(text, at - 1) : at].lstrip(" \t").startswith("#"):
            return [(at, at, self.nl + line + self.nl)]  # kept apart, else the comment would become its own
        return [(at, at, line + self.nl)]

    # -- blocks --------------------------------------------------------------------------------------

    def _blank_lines(self, start: int, end: int) -> int:
        return self.text.count("\n", start, end)

    def _default_gap(self) -> int:
        for section in reversed(self.scan.sections[1:]):
            before = content_end_before(self.text, section.lead)
            if before:
                return self._blank_lines(before, section.lead)
        return 1

    def _insert_block(self, at: int, lines: list[str], gap: int) -> list[Splice]:
        """Insert a block at ``at``: the end of a run of content (a line start) or 0."""
        text, nl = self.text, self.nl
        block = nl.join(lines)
        has_before = content_end_before(text, at) > 0 if at else False
        next_start = blank_run_after(text, at)
        has_after = next_start < len(text)
        if has_before and at > 0:
            previous = text[line_start(text, at - 1) : at].lstrip(" \t")
            if previous.startswith("#"):
                gap = max(gap, 1)  # else the comment would become this block's own
        if has_before and has_after:
            if next_start == at:
                return [(at, at, block + nl)]
            return [(at, at, nl * gap + block + nl)]
        if has_before:
            if at == len(text) and not text.endswith("\n"):
                return [(at, at, nl + nl * gap + block)]
            return [(at, at, nl * gap + block + nl)]
        if has_after:
            return [(next_start, next_start, block + nl + nl * gap)]
        end = len(text)
        if text and not text.endswith("\n"):
            return [(end, end, nl + block)]
        return [(end, end, block + nl)]

    def _block_range(self, start: int, end: int) -> tuple[int, int]:
        """The span removed with the block ``[start, end)`` (see the module docstring)."""
        text = self.text
        before = content_end_before(text, start)
        after = blank_run_after(text, end)
        has_before, has_after = before > 0, after < len(text)
        if has_before and has_after and after == end and before < start:
            span = (start, end)
        elif has_before:
            span = (before, end)
        elif has_after:
            span = (start, after)
        else:
            span = (start, end)
        return self._eof_adjust(span)

    def _blank_lines_above_last(self, entry: Entry, start: int, end: int) -> int:
        """Where removing the last statement of a table starts: above the blank lines that part it from the
        statement before it, so that no blank line is left where it was (``start`` otherwise)."""
        section = self.home_of(entry)
        if self.text[end : section.content_end].strip(" \t\r\n"):
            return start
        floor = 0 if section is self.root else section.header_end
        above = content_end_before(self.text, start)
        return above if floor < above < start else start

    def _eof_adjust(self, span: tuple[int, int]) -> tuple[int, int]:
        start, end = span
        text = self.text
        if end == len(text) and start > 0 and not text.endswith("\n") and text[start - 1] == "\n":
            start -= 2 if start >= 2 and text[start - 2] == "\r" else 1
        return start, end

    def _remove_sections(self, sections: list[Section]) -> list[tuple[int, int]]:
        blocks: list[list[int]] = []
        for section in sorted(sections, key=lambda s: s.lead):
            if blocks and blank_run_after(self.text, blocks[-1][1]) >= section.lead:
                blocks[-1][1] = section.content_end
            else:
                blocks.append([section.lead, section.content_end])
        return [self._block_range(start, end) for start, end in blocks]

    # -- remove -----------------------------------------------------------------------------------

    def remove(self, path: Path) -> list[Splice]:
        """The splices that remove the value at ``path``."""
        entry = self.covering_entry(path)
        if entry is not None:
            if entry.path == path:
                start, end = self._entry_range(entry)
                if start == entry.start:
                    start = self._blank_lines_above_last(entry, self._head(entry), end)
                return [(*self._eof_adjust((start, end)), "")]
            parent, target, index = find(parse_node(self.text, entry.value_start), path[len(entry.path) :])
            if target is None:
                raise ScanError("inline value not found")
            return remove_item(self.text, parent, index)
        sections = self.sections_under(path)
        spans = self._remove_sections(sections)
        covered = [(s.lead, s.end) for s in sections]
        for other in self.ancestor_entries(path):
            if starts_with(other.path, path) and not any(a <= other.start < b for a, b in covered):
                spans.append(self._eof_adjust((other.start, other.end)))
        if not spans:
            raise ScanError("nothing to remove")
        return [(start, end, "") for start, end in _merge(spans)]

    # -- insert into arrays ----------------------------------------------------------------------------

    def insert(self, path: Path, index: int, value: Any, length: int) -> list[Splice]:
        """The splices that insert ``value`` at ``index`` of the array at ``path``."""
        entry = self.covering_entry(path)
        if entry is not None:
            node = self._inline_node(entry, path)
            if node.kind != "array":
                raise ScanError("not an inline array")
            item = render_item(self.text, node, None, value, self.style)
            return insert_item(self.text, node, index, item, self.style)
        if type(value) is not dict:
            raise ScanError("only tables go into an array of tables")
        entries = [self._array_entry(path, i) for i in range(length)]
        style = self._array_style(path, length)
        lines = render_block(entries[0].keys, value, array=True, style=style)
        gap = 0
        if length >= 2:
            gap = self._blank_lines(self._region_end((*path, length - 2)), entries[-1].lead)
        if index < length:
            at = content_end_before(self.text, entries[index].lead)
            gap = self._blank_lines(at, entries[index].lead)  # the separation the entry had before it
        else:
            at = self._region_end((*path, length - 1))
        return self._insert_block(at, lines, gap)

    def _array_entry(self, path: Path, index: int) -> Section:
        entry_path = (*path, index)
        return self.by_path[entry_path]

    def _array_style(self, path: Path, length: int) -> Style:
        for i in range(length):
            section = self._array_entry(path, i)
            if section.entries:
                first = section.entries[0]
                return replace(
                    self.style,
                    indent=self.text[first.start : first.key_start],
                    eq=self.text[first.key_end : first.value_start],
                )
        return self.style


def _merge(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged
