"""The parameter lines of a template (``runtime/templates/``).

A template marks each value the generator fills in with a line of its own: ``NAME = <value>  # @param`` in the
Python templates (``NAME: <annotation> = <value>  # @param`` too), ``const NAME = <value>; // @param`` in the
JavaScript ones. :func:`cut` returns the texts between those lines and their names, so that rendering is a join.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

PYTHON_LINE = r"^([A-Z_]+)(?:: [^=\n]+)? = .*  # @param$"
"""A parameter line of a Python template (its group: the name)."""
JAVASCRIPT_TRAIL = "; // @param"
JAVASCRIPT_LINE = r"^const ([A-Z_]+) = .*; // @param$"
"""A parameter line of a JavaScript template (its group: the name)."""


def cut_python(source: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """:func:`cut` for a Python template."""
    return cut(source, PYTHON_LINE)


def cut_javascript(source: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """:func:`cut` for a JavaScript template."""
    return cut(source, JAVASCRIPT_LINE)


def cut(source: str, line: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """``(texts, names)``: ``source`` cut at the lines matching the pattern ``line`` (each line without its
    newline), ``len(texts) == len(names) + 1``."""
    texts: list[str] = []
    names: list[str] = []
    done = 0
    for start, end, match in line_matches(line, source):
        texts.append(source[done:start])
        names.append(match[1])
        done = end
    texts.append(source[done:])
    return tuple(texts), tuple(names)


def line_matches(line: str, source: str) -> Iterator[tuple[int, int, re.Match[str]]]:
    """``(start, end, match)`` for each match in ``source`` of ``line``, a pattern that starts with ``^``: what
    ``re.finditer(line, source, re.MULTILINE)`` finds, the positions in ``source``.

    The search is for the newline before each such line, in ``"\n" + source``: a pattern that starts with a
    literal is searched for by skipping ahead to that character, one that starts with ``^`` is tried at every
    position of the text (``status`` cuts every template it renders, some 100 KB)."""
    if not line.startswith("^"):
        raise ValueError(f"the pattern of a line must start with ^: {line!r}")
    for match in re.finditer("\n" + line[1:], "\n" + source, re.MULTILINE):
        yield match.start(), match.end() - 1, match


def joined(texts: tuple[str, ...], lines: list[str]) -> str:
    """The template again, with ``lines`` (one per parameter, in order) in place of its parameter lines."""
    parts = [texts[0]]
    for line, text in zip(lines, texts[1:], strict=True):
        parts += (line, text)
    return "".join(parts)
