"""Planning minimal text edits: which spans of the old text to replace, and with what.

A plan is a short list of ``(start, end, text)`` splices on the old text, sorted and non-overlapping.
The rules (see ``docs/editors.md`` for examples):

* An entry owns its key, value, comma, the comments that start on the line where it ends, and the lines of
  one comment each right above it (no blank line between); any other comment belongs to no entry and is never
  moved or removed. A new entry never goes between an entry and its comment lines.
* Removing an entry removes what it owns, its whole line(s) when it sits on lines of its own, and one
  separator: its own comma, or for a last entry without one, the comma of the entry before it. A last entry
  also takes the blank lines between it and the entry before it.
* A comma-first container (``  1`` / ``, 2``) keeps its form: an entry is added or removed with its
  ``, entry`` line.
* Inserting writes one entry, one separator and the indentation taken from the neighbours; a comma added
  after an entry goes right after its value, before any comment on that line.
* Each insertion is undone exactly by removing the entry it added (install then uninstall gives back the
  original bytes), with one normalisation: a container emptied by a removal whose interior was only
  whitespace and line breaks becomes ``{}`` / ``[]``.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable

from ._layout import Style
from ._lexical import (
    HSPACE_RE,
    after_line_break,
    before_hspace,
    gap_has_comment,
    is_line_break,
    line_indent,
    line_start,
    starts_line,
    tail_end,
)
from ._located import NO_COMMA, Container, Member

Plan = list[tuple[int, int, str]]
Render = Callable[[str, bool], str]
"""``render(base_indent, pretty)`` -> the text of the new entry (``"key": value`` or just the value)."""


def _merge(plan: Plan) -> Plan:
    plan.sort(key=lambda splice: (splice[0], splice[1]))  # stable: equal offsets keep their order
    merged: Plan = []
    for start, end, text in plan:
        if merged and merged[-1][1] == start:
            first, _, before = merged[-1]
            merged[-1] = (first, end, before + text)
        else:
            merged.append((start, end, text))
    return merged


def _comma(member: Member) -> int | None:
    return None if member.comma == NO_COMMA else member.comma


def _has_line_break(text: str, start: int, end: int) -> bool:
    return text.find("\n", start, end) >= 0 or text.find("\r", start, end) >= 0


def _break_at(text: str, pos: int) -> str | None:
    """The line break that starts at ``pos`` after optional spaces/tabs."""
    pos = re.compile(HSPACE_RE).match(text, pos).end()  # type: ignore[union-attr]
    if text.startswith("\r\n", pos):
        return "\r\n"
    if pos < len(text) and text[pos] in "\r\n":
        return text[pos]
    return None


# -- insert -----------------------------------------------------------------------------------------


def plan_insert(
    text: str, container: Container, index: int, render: Render, style: Style, entry_own_line: bool
) -> Plan:
    """Splices that insert a new entry so that it becomes member ``index`` of ``container``."""
    members = container.members
    opener_indent = line_indent(text, container.start)
    step_indent = opener_indent + style.unit
    if _comma_first(text, container):
        return _insert_comma_first(text, container, index, render, style)
    if not members:
        return _insert_into_empty(text, container, render, style, entry_own_line, opener_indent, step_indent)
    if index < len(members):
        return _insert_before(text, container, index, render, style)
    last = members[-1]
    comma = _comma(last)
    tail, line_comment = tail_end(text, last.value_end, comma)
    if comma is not None and comma >= tail:  # a trailing comma on a later line: append after it
        tail, line_comment = tail_end(text, comma, comma)
    trailing = "," if comma is not None else ""
    plan: Plan = [] if comma is not None else [(last.value_end, last.value_end, ",")]
    if starts_line(text, last.start, container.start + 1) or line_comment:
        # a new line of its own, indented like the last entry (or one step in from the opening line)
        indent = line_indent(text, last.start) if starts_line(text, last.start) else step_indent
        entry = render(indent, style.multiline)
        after = after_line_break(text, tail)
        if after is not None:
            eol = _break_at(text, tail) or style.eol
            plan.append((after, after, indent + entry + trailing + eol))
        else:
            plan.append((tail, tail, style.eol + indent + entry + trailing))
        return _merge(plan)
    if style.multiline and entry_own_line and text.startswith(_closer(container), tail):
        entry = render(step_indent, True)
        if "\n" in entry or "\r" in entry:
            # a one-line container in a multi-line file, given a multi-line entry: open it up below
            plan.append((tail, tail, style.eol + step_indent + entry + trailing + style.eol + opener_indent))
            return _merge(plan)
    entry = render("", False)
    space = style.item_sep[1:] if style.item_sep.startswith(",") else " "
    plan.append((tail, tail, space + entry + trailing))
    return _merge(plan)


def _closer(container: Container) -> str:
    return "}" if container.is_object else "]"


def _insert_into_empty(
    text: str,
    container: Container,
    render: Render,
    style: Style,
    entry_own_line: bool,
    opener_indent: str,
    step_indent: str,
) -> Plan:
    inner_start, closer = container.start + 1, container.closer
    if gap_has_comment(text, inner_start, closer):
        if starts_line(text, closer):
            # below the opening line: a comment line inside stays below the entry, not its own comment above it
            at = after_line_break(text, tail_end(text, inner_start, None)[0]) or before_hspace(text, closer)
            indent = line_indent(text, closer) + style.unit
            return [(at, at, indent + render(indent, style.multiline) + style.eol)]
        entry = render("", False)
        if text[closer - 1] in " \t":
            return [(closer, closer, entry + " ")]
        return [(closer, closer, " " + entry)]
    inner = text[inner_start:closer]
    if _has_line_break(text, inner_start, closer) or (style.multiline and entry_own_line):
        entry = render(step_indent, True)
        return [(inner_start, closer, style.eol + step_indent + entry + style.eol + opener_indent)]
    return [(inner_start, closer, inner + render("", False) + inner)]


def _insert_before(text: str, container: Container, index: int, render: Render, style: Style) -> Plan:
    members = container.members
    target = members[index]
    if not starts_line(text, target.start, container.start + 1):
        return [(target.start, target.start, render("", False) + style.item_sep)]
    indent = line_indent(text, target.start)
    at = before_hspace(text, target.start)
    if index > 0:
        floor = tail_end(text, members[index - 1].value_end, _comma(members[index - 1]))[0]
    else:
        floor = container.start + 1
    at = _above_own_comments(text, at, floor)
    eol = _break_at(text, target.value_end) or style.eol
    return [(at, at, indent + render(indent, style.multiline) + "," + eol)]


def _blank_lines_above(text: str, previous_tail: int, lead: int) -> int:
    """The start of the blank lines between the line ending at ``previous_tail`` and the line starting at
    ``lead`` (``lead`` itself when there are none, or when anything but whitespace stands between)."""
    start = after_line_break(text, previous_tail)
    if start is None or start >= lead or text[start:lead].strip(" \t\r\n"):
        return lead
    return start


def _above_own_comments(text: str, at: int, floor: int) -> int:
    """Move a line start up over the lines right above it that hold nothing but one comment."""
    while at > floor:
        prev_end = at - 2 if text.startswith("\r\n", at - 2) else at - 1
        prev_start = line_start(text, prev_end)
        if prev_start <= floor:
            break
        line = text[prev_start:prev_end].strip(" \t")
        single_block = line.startswith("/*") and line.endswith("*/") and line.find("*/") == len(line) - 2
        if not (line.startswith("//") or single_block):
            break
        at = prev_start
    return at


# -- remove -----------------------------------------------------------------------------------------


def plan_remove(text: str, container: Container, index: int) -> Plan:
    """Splices that remove member ``index`` of ``container`` with what it owns and one separator."""
    if _comma_first(text, container):
        return _remove_comma_first(text, container, index)
    return [_whole_blank_line(text, splice) for splice in _plan_remove(text, container, index)]


# -- comma-first containers ('  1' / ', 2' / ', 3': each later entry's line starts with its comma) ------------


def _comma_first(text: str, container: Container) -> bool:
    """Whether ``container`` is written comma-first: two or more entries, the first starting its line (or right
    after the opening bracket), each
    later one on a line of its own that starts with the comma before it, each line ending right after its
    entry's value (no comment, no trailing comma)."""
    members = container.members
    if len(members) < 2 or not container.complete or _comma(members[-1]) is not None:
        return False
    if not (starts_line(text, members[0].start) or not text[container.start + 1 : members[0].start].strip(" \t")):
        return False
    for previous, member in itertools.pairwise(members):
        comma = _comma(previous)
        if comma is None or not starts_line(text, comma, container.start + 1):
            return False
        if text[comma + 1 : member.start].strip(" \t") or after_line_break(text, _end_spaces(text, previous)) is None:
            return False
    return after_line_break(text, _end_spaces(text, members[-1])) is not None


def _end_spaces(text: str, member: Member) -> int:
    match = re.compile(HSPACE_RE).match(text, member.value_end)
    return member.value_end if match is None else match.end()


def _first_head(text: str, container: Container) -> int:
    """Where the first entry's own text starts: its line start, or the entry itself after the opening bracket."""
    first = container.members[0].start
    return line_start(text, first) if starts_line(text, first) else first


def _insert_comma_first(text: str, container: Container, index: int, render: Render, style: Style) -> Plan:
    members = container.members
    lead = text[line_start(text, members[1].start) : members[1].start]  # e.g. ", " or "  , "
    eol = _break_at(text, _end_spaces(text, members[0])) or style.eol
    base = line_indent(text, members[1].start)
    if index == 0:
        begin = _first_head(text, container)
        indent = text[begin : members[0].start]
        return [(begin, members[0].start, indent + render(base, style.multiline) + eol + lead)]
    if index < len(members):
        at = line_start(text, _comma(members[index - 1]) or 0)
        return [(at, at, lead + render(base, style.multiline) + eol)]
    after = after_line_break(text, _end_spaces(text, members[-1]))
    assert after is not None  # (checked by _comma_first)
    return [(after, after, lead + render(base, style.multiline) + eol)]


def _remove_comma_first(text: str, container: Container, index: int) -> Plan:
    members = container.members
    if index == 0:  # the second entry takes the first one's place and form
        begin = _first_head(text, container)
        return [(begin, members[1].start, text[begin : members[0].start])]
    member = members[index]
    end = after_line_break(text, _end_spaces(text, member))
    assert end is not None
    return [(line_start(text, _comma(members[index - 1]) or 0), end, "")]


def _whole_blank_line(text: str, splice: tuple[int, int, str]) -> tuple[int, int, str]:
    """A deletion that would leave its line blank takes the whole line (as with a comma-first entry)."""
    start, end, new = splice
    if new or start == end or not starts_line(text, start) or is_line_break(text, end - 1):
        return splice
    line_end = after_line_break(text, end)
    if line_end is None:
        return splice
    return before_hspace(text, start), line_end, new


def _plan_remove(text: str, container: Container, index: int) -> Plan:
    members = container.members
    member = members[index]
    comma = _comma(member)
    tail, _ = tail_end(text, member.value_end, comma)
    comma_in_tail = comma is not None and comma < tail
    lead = before_hspace(text, member.start, container.start + 1)
    own_start = starts_line(text, member.start, container.start + 1)
    line_end = after_line_break(text, tail)
    if own_start and line_end is not None:  # the comment lines right above it are its own
        floor = container.start + 1
        if index > 0:
            floor = tail_end(text, members[index - 1].value_end, _comma(members[index - 1]))[0]
        lead = _above_own_comments(text, lead, floor)
    plan: Plan = []
    if comma is not None and not comma_in_tail:
        plan.append((comma, comma + 1, ""))  # a comma on a later line than its entry
    inner_start, closer = container.start + 1, container.closer

    if len(members) == 1:
        outside_comment = gap_has_comment(text, inner_start, lead) or gap_has_comment(text, tail, closer)
        if not outside_comment and _has_line_break(text, inner_start, closer):
            return [(inner_start, closer, "")]
        if own_start and line_end is not None:
            content_end = lead  # the blank lines between it and a comment above go with it, as for a last entry
            while content_end > inner_start and text[content_end - 1] in " \t\r\n":
                content_end -= 1
            start = _blank_lines_above(text, content_end, lead) if content_end > inner_start else lead
            plan.append((start, line_end, ""))
        else:
            plan.append((lead, tail, ""))
        return _merge(plan)

    last = index == len(members) - 1
    if last:
        previous = members[index - 1]
        prev_comma = _comma(previous)
        prev_tail, prev_line_comment = tail_end(text, previous.value_end, prev_comma)
        hugging = (
            own_start
            and line_end is not None
            and not starts_line(text, previous.start, container.start + 1)
            and not prev_line_comment
            and not gap_has_comment(text, prev_tail, lead)
            and re.compile(HSPACE_RE).match(text, line_end).end() == closer  # type: ignore[union-attr]
        )
        if hugging:  # undo "open up a one-line container below its last entry"
            if comma is None and prev_comma is not None:
                plan.append((prev_comma, prev_comma + 1, ""))
            plan.append((prev_tail, closer, ""))
            return _merge(plan)
        if prev_comma is None:  # cannot happen in valid text: two members always have a comma between
            raise AssertionError("members without a separator")
        if own_start and line_end is None and not prev_line_comment and not gap_has_comment(text, prev_tail, lead):
            # the closing bracket follows on the entry's line: take the line break before the entry
            if comma is None:
                plan.append((prev_comma, prev_comma + 1, ""))
            plan.append((max(prev_tail, prev_comma + 1), tail, ""))
            return _merge(plan)
        if comma is None:
            plan.append((prev_comma, prev_comma + 1, ""))
            start = _blank_lines_above(text, prev_tail, lead) if own_start and line_end is not None else lead
            plan.append((start, line_end if own_start and line_end is not None else tail, ""))
            return _merge(plan)

    # the entry has its own comma (it is not last, or it carries a trailing comma)
    following = members[index + 1] if not last else None
    if own_start and line_end is not None and comma_in_tail:
        start = lead
        if last:  # no blank line is left before the closing bracket
            previous = members[index - 1]
            start = _blank_lines_above(text, tail_end(text, previous.value_end, _comma(previous))[0], lead)
        plan.append((start, line_end, ""))
    elif following is not None and comma_in_tail and re.compile(HSPACE_RE).match(text, tail).end() == following.start:  # type: ignore[union-attr]
        plan.append((member.start, following.start, ""))
    else:
        plan.append((lead, tail, ""))
    return _merge(plan)
