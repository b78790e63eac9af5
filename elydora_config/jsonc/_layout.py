"""Style inference (line break, indentation unit, separators, escaping) and rendering of new values.

Everything is read off the text around the edit: the container being edited first, then its ancestors,
then the whole document, then a default (LF, two spaces, ``": "``, ``", "``).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from itertools import pairwise
from typing import Any

from ..records import record
from ._lexical import (
    NON_ASCII_ESCAPE_RE,
    line_break_near,
    line_indent,
    scanstring,
    starts_line,
)
from ._located import Container

_INDENTED_LINE_RE = r"(?:\r\n|\n|\r)([ \t]+)[^ \t\r\n]"
_SEPARATOR_RE = r"[ \t]*,[ \t]*"
_KEY_SEPARATOR_RE = r"[ \t]*:[ \t]*"

DEFAULT_UNIT = "  "


@record(frozen=True)
class Style:
    """How new JSON text is written at one place of a document."""

    eol: str = "\n"
    unit: str = DEFAULT_UNIT  # one level of indentation
    key_sep: str = ": "  # between a key and its value
    item_sep: str = ", "  # between members written on one line
    ensure_ascii: bool = False  # write non-ASCII characters as \\uXXXX escapes
    multiline: bool = True  # the document spreads over several lines


def check_value(value: Any) -> None:
    """Refuse what cannot be written as strict JSON: other types, non-str keys, NaN and infinities."""
    stack = [value]
    while stack:
        item = stack.pop()
        if item is None or isinstance(item, (str, bool, int)):
            continue
        if isinstance(item, float):
            if not math.isfinite(item):
                raise ValueError(f"{item!r} cannot be written as JSON")
        elif isinstance(item, dict):
            for key, sub in item.items():
                if not isinstance(key, str):
                    raise TypeError(f"JSON object keys must be str, not {type(key).__name__}")
                stack.append(sub)
        elif isinstance(item, (list, tuple)):
            stack.extend(item)
        else:
            raise TypeError(f"{type(item).__name__} values cannot be written as JSON")


def render(value: Any, style: Style, base_indent: str, pretty: bool) -> str:
    """JSON text for ``value``: indented with ``style.unit`` from ``base_indent`` when ``pretty``, else on one line."""
    check_value(value)
    try:
        text = _dumps(value, style, pretty, style.ensure_ascii)
    except RecursionError:
        raise ValueError("value nested too deeply to be written") from None
    if not style.ensure_ascii:
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:  # lone surrogates can only be written escaped
            text = _dumps(value, style, pretty, True)
    if pretty and "\n" in text:
        text = text.replace("\n", style.eol + base_indent)
    return text


_SCALAR_ENCODERS = tuple(json.JSONEncoder(ensure_ascii=flag, allow_nan=False).encode for flag in (False, True))


def render_scalar(value: bool | int | float | str | None, ensure_ascii: bool) -> str:
    """JSON text for a number, string, boolean or null: what :func:`render` writes for it in any style and
    place (indentation and separators do not apply), with an encoder made once instead of per call."""
    check_value(value)
    text = _SCALAR_ENCODERS[ensure_ascii](value)
    if not ensure_ascii:
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:  # lone surrogates can only be written escaped
            text = _SCALAR_ENCODERS[True](value)
    return text


def _dumps(value: Any, style: Style, pretty: bool, ensure_ascii: bool) -> str:
    if pretty:
        return json.dumps(
            value, indent=style.unit, separators=(",", style.key_sep), ensure_ascii=ensure_ascii, allow_nan=False
        )
    return json.dumps(value, separators=(style.item_sep, style.key_sep), ensure_ascii=ensure_ascii, allow_nan=False)


def render_key(key: str, style: Style) -> str:
    """``key`` as a JSON string in the document's escaping style."""
    return json.dumps(key, ensure_ascii=style.ensure_ascii)


# -- inference --------------------------------------------------------------------------------------


def document_unit(text: str) -> str:
    """The indentation of the first indented line: a tab, or that many spaces."""
    found = re.compile(_INDENTED_LINE_RE).search(text)
    if found is None:
        return DEFAULT_UNIT
    indent = found.group(1)
    return "\t" if indent.startswith("\t") else indent


def prefers_ascii(text: str) -> bool:
    """Escape non-ASCII only when the file is pure ASCII and already escapes non-ASCII characters."""
    return text.isascii() and re.compile(NON_ASCII_ESCAPE_RE).search(text) is not None


def container_unit(text: str, container: Container) -> str | None:
    """The indentation step between a container's opening line and its members' lines, if it shows one."""
    base = line_indent(text, container.start)
    for member in container.members:
        if starts_line(text, member.start, container.start + 1):
            indent = line_indent(text, member.start)
            if len(indent) > len(base) and indent.startswith(base):
                return indent[len(base) :]
    return None


def key_separator(text: str, container: Container) -> str | None:
    """The text between a key and its value in ``container`` (``None`` when not uniform)."""
    for member in container.members[:8]:
        if member.key is None:
            return None
        _, key_end = scanstring(text, member.start + 1, True)
        found = re.compile(_KEY_SEPARATOR_RE).fullmatch(text, key_end, member.value_start)
        if found is not None:
            return found.group()
    return None


def item_separator(text: str, container: Container) -> str | None:
    """The separator the container's items use (from the first pair that has a plain one; ``None``: none found)."""
    members = container.members
    for before, after in pairwise(members[:9]):
        found = re.compile(_SEPARATOR_RE).fullmatch(text, before.value_end, after.start)
        if found is not None:
            return found.group().lstrip(" \t")
    return None


def infer_style(text: str, chain: Sequence[Container], near: int, multiline: bool, ascii_only: bool) -> Style:
    """The style for writing at offset ``near`` inside ``chain[-1]`` (``chain`` runs from the root down)."""
    eol = line_break_near(text, near) or "\n"
    unit = key_sep = item_sep = None
    for container in reversed(chain):
        if unit is None:
            unit = container_unit(text, container)
        if key_sep is None and container.is_object:
            key_sep = key_separator(text, container)
        if item_sep is None:
            item_sep = item_separator(text, container)
        if unit is not None and key_sep is not None and item_sep is not None:
            break
    if unit is None:
        unit = document_unit(text)
    return Style(
        eol=eol,
        unit=unit,
        key_sep=key_sep if key_sep is not None else ": ",
        item_sep=item_sep if item_sep is not None else ", ",
        ensure_ascii=ascii_only,
        multiline=multiline,
    )
