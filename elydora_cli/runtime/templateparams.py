"""The parameter lines of a template (``runtime/templates/``), found with string methods.

A template marks each value the generator fills in with a line of its own: ``NAME = <value>  # @param`` in the
Python templates (``NAME: <annotation> = ...`` too), ``const NAME = <value>; // @param`` in the JavaScript one.
:func:`cut` returns the texts between those lines and their names, so that rendering is a join. It reads a
template exactly as the pattern ``^LEAD([A-Z_]+)(?:: [^=]+)? = .*TRAIL$`` (multi-line mode) would, without
compiling one: every ``status`` renders the runtime of each installed agent to compare it with the installed
files.
"""

from __future__ import annotations

NAME_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ_")
"""What a parameter name is made of."""
PYTHON_TRAIL = "  # @param"
JAVASCRIPT_LEAD, JAVASCRIPT_TRAIL = "const ", "; // @param"


def cut_python(source: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """:func:`cut` for a Python template: ``NAME[: annotation] = <value>  # @param``."""
    return cut(source, lead="", trail=PYTHON_TRAIL, annotated=True)


def cut_javascript(source: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """:func:`cut` for a JavaScript template: ``const NAME = <value>; // @param``."""
    return cut(source, lead=JAVASCRIPT_LEAD, trail=JAVASCRIPT_TRAIL, annotated=False)


def joined(texts: tuple[str, ...], lines: list[str]) -> str:
    """The template again, with ``lines`` (one per parameter, in order) in place of its parameter lines."""
    parts = [texts[0]]
    for line, text in zip(lines, texts[1:], strict=True):
        parts += (line, text)
    return "".join(parts)


def cut(source: str, *, lead: str, trail: str, annotated: bool) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """``(texts, names)``: ``source`` cut at its parameter lines (see the module), ``len(texts) == len(names) +
    1``; ``lead`` starts a parameter line and ``trail`` ends it, ``annotated``: a ``: <annotation>`` (free of
    ``=``, possibly running over lines) may follow the name.

    Only the lines ending in ``trail`` are looked at: a parameter ends on one, and starts on it or, after an
    annotation running over lines, on one of the lines free of ``=`` just before it (the first that fits)."""
    texts: list[str] = []
    names: list[str] = []
    cut_at = first = 0  # the text before cut_at is taken; a parameter starts on a line at or after first
    at = source.find(trail)
    while at >= 0:
        end = at + len(trail)
        if end == len(source) or source[end] == "\n":
            found = _ending_at(source, first, at, end, lead, trail, annotated)
            if found is not None:
                start, name = found
                texts.append(source[cut_at:start])
                names.append(name)
                cut_at, first = end, end + 1
        at = source.find(trail, at + 1)
    texts.append(source[cut_at:])
    return tuple(texts), tuple(names)


def _ending_at(
    source: str, first: int, at: int, end: int, lead: str, trail: str, annotated: bool
) -> tuple[int, str] | None:
    """``(start, name)`` of the parameter whose ``trail`` is at ``at`` (its line ending at ``end``), starting
    on a line at or after ``first``: the line of ``at``, or one of the lines free of ``=`` before it."""
    last = source.rfind("\n", 0, at) + 1  # the start of the line of ``at``
    if last < first:
        return None
    equals = source.rfind("=", first, last)
    start = source.find("\n", equals) + 1 if equals >= 0 else first
    while True:
        found = _parameter(source, start, lead, trail, annotated)
        if found is not None and found[1] == end:
            return start, found[0]
        if start >= last:
            return None
        start = source.find("\n", start) + 1


def _parameter(source: str, start: int, lead: str, trail: str, annotated: bool) -> tuple[str, int] | None:
    """``(name, end)`` when a parameter line starts at ``start`` (``end``: the end of its last line)."""
    if not source.startswith(lead, start):
        return None
    first = end = start + len(lead)
    while end < len(source) and source[end] in NAME_CHARS:
        end += 1
    if end == first:
        return None
    equals = end  # where " = " starts
    if annotated and source.startswith(": ", end):
        sign = source.find("=", end + 2)  # the annotation runs up to the first "=", which " = " holds
        equals = sign - 1
        if sign < 0 or equals < end + 3 or source[equals] != " " or source[sign + 1 : sign + 2] != " ":
            return None
    elif not source.startswith(" = ", end):
        return None
    line_end = source.find("\n", equals)
    line_end = len(source) if line_end < 0 else line_end
    if line_end - (equals + 3) < len(trail) or not source.startswith(trail, line_end - len(trail)):
        return None
    return source[first:end], line_end
