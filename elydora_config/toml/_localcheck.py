"""Proving a span edit by parsing only the text it changed.

``tomllib`` checked the whole document when it was parsed. For two shapes of edit, parsing the changed piece
alone (a few bytes) proves what re-parsing the whole new text would, without building a second tree of the
whole document:

- a value swapped in place: the one splice covers exactly the value of the ``key = value`` statement at the
  edited path, the old text of that span decodes to the old value (the scanner found the right span) and the
  new text decodes, as one complete value, to the new value. The key, and what follows the value on its line,
  are untouched, so every other byte of the document means what it meant;
- a table appended to an array of tables (``[[a.b]]``, string keys only): the one splice inserts whole lines at
  a section boundary after every section of the array's entries, only blank and comment lines lie between it
  and the next header, and the inserted text parses alone to ``{"a": {"b": [<the table>]}}``.

Each function returns the decoded new value (what the document's data gets) or :data:`NOT_LOCAL` when the edit
does not have its shape; the caller then re-parses the whole text.
"""

from __future__ import annotations

import re
from typing import Any

from elydora_config.toml._decoding import decode_error, loads
from elydora_config.toml._scanner import starts_with
from elydora_config.toml._spans import SpanEditor, Splice
from elydora_config.toml._values import Path, same

NOT_LOCAL: Any = object()
_GAP = r"(?:[ \t]*(?:#[^\n]*)?\r?\n)*[ \t]*(?:#[^\n]*)?"  # blank and comment lines


def _decode(value_text: str) -> Any:
    return loads("v = " + value_text)["v"]


def swapped_value(editor: SpanEditor, splices: list[Splice], path: Path, old: Any, new: Any) -> Any:
    """The new value at ``path`` when ``splices`` only swap the text of its ``key = value`` statement's value."""
    if len(splices) != 1:
        return NOT_LOCAL
    start, end, text = splices[0]
    entry = editor.covering_entry(path)
    if entry is None or entry.path != path or (start, end) != (entry.value_start, entry.value_end):
        return NOT_LOCAL
    try:
        if not same(_decode(editor.text[start:end]), old):
            return NOT_LOCAL
        decoded = _decode(text)
    except decode_error():
        return NOT_LOCAL
    return decoded if same(decoded, new) else NOT_LOCAL


def appended_table(editor: SpanEditor, splices: list[Splice], path: Path, table: Any) -> Any:
    """The new last table of the array of tables at ``path`` when ``splices`` only append its block."""
    if len(splices) != 1 or not path or not all(isinstance(key, str) for key in path):
        return NOT_LOCAL
    at, end, inserted = splices[0]
    text = editor.text
    if at != end or editor.covering_entry(path) is not None:
        return NOT_LOCAL
    if not (at == 0 or text[at - 1] == "\n" or inserted.startswith(("\n", "\r\n"))):
        return NOT_LOCAL
    if not (at == len(text) or inserted.endswith("\n")):
        return NOT_LOCAL
    sections = editor.scan.sections
    if any(s.content_end > at for s in sections if starts_with(s.path, path)):
        return NOT_LOCAL  # a section of an existing entry follows: it would now belong to the new one
    following = min((s.start for s in sections[1:] if s.start >= at), default=len(text))
    if re.compile(_GAP).fullmatch(text, at, following) is None:
        return NOT_LOCAL
    try:
        node: Any = loads(inserted)
    except decode_error():
        return NOT_LOCAL
    for key in path:
        if type(node) is not dict or list(node) != [key]:
            return NOT_LOCAL
        node = node[key]
    if type(node) is not list or len(node) != 1 or not same(node[0], table):
        return NOT_LOCAL
    return node[0]
