"""Helpers shared by the JSONC editor tests: an independent oracle parser, a random
JSONC writer (random layout, comments in every gap, trailing commas) and a plain-Python edit model."""

from __future__ import annotations

import copy
import json
import random
import re
from collections.abc import Callable
from typing import Any

from elydora_config.errors import MalformedConfigError
from elydora_config.jsonc import Dialect
from elydora_config.jsonc._reference_scanner import ReferenceScanner

JsonPath = tuple[Any, ...]


# -- an independent oracle: strip comments and trailing commas by hand, then json.loads ----------------


class DuplicateKeyError(ValueError):
    pass


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result = dict(pairs)
    if len(result) != len(pairs):
        raise DuplicateKeyError("duplicate key")
    return result


def oracle_loads(text: str) -> Any:
    """Parse JSONC with a character-by-character comment stripper and the stdlib parser (no shared code)."""
    if text.startswith("\ufeff"):
        text = text[1:]
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == '"':
            j = i + 1
            while text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append(text[i : j + 1])
            i = j + 1
        elif text.startswith("//", i):
            while i < n and text[i] not in "\r\n":
                i += 1
        elif text.startswith("/*", i):
            i = text.index("*/", i + 2) + 2
            out.append(" ")
        else:
            out.append(ch)
            i += 1
    return json.loads(remove_trailing_commas("".join(out)), object_pairs_hook=_no_duplicates)


def oracle_strict(text: str) -> Any:
    return json.loads(text, object_pairs_hook=_no_duplicates)


def remove_trailing_commas(text: str) -> str:
    """Drop commas that are followed only by whitespace and a closing bracket, outside strings."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == '"':
            j = i + 1
            while text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append(text[i : j + 1])
            i = j + 1
            continue
        if ch == ",":
            j = i + 1
            while j < n and text[j] in " \t\r\n":
                j += 1
            if j < n and text[j] in "]}":
                i += 1
                continue
        out.append(ch)
        i += 1
    return "".join(out)


def comment_ids(text: str) -> list[str]:
    """Ids of the generated comments (``/*c12*/`` and ``//c12``), in order of appearance."""
    return re.findall(r"(?://|/\*) ?(c\d+)\b", text)


# -- a random JSONC writer --------------------------------------------------------------------------------


TRICKY_STRINGS = [
    "http://example.test/a//b",
    "/* not a comment */",
    "// nor this",
    "a,]b",
    'quote " inside',
    "back\\slash",
    "tab\tnewline\n",
    "caf\u00e9 \u65e5\u672c",
    "\U0001f600",
    "",
    ",}",
]


class Writer:
    """Writes a value as JSONC text with random but consistent-enough layout choices."""

    def __init__(self, rnd: random.Random, *, comments: bool, trailing_commas: bool) -> None:
        self.rnd = rnd
        self.comments = comments
        self.trailing_commas = trailing_commas
        self.eol = rnd.choice(["\n", "\r\n"])
        self.unit = rnd.choice(["\t", "  ", "    ", None])
        self.key_sep = rnd.choice([": ", ":", " : "])
        self.item_sep = rnd.choice([", ", ","])
        self.ensure_ascii = rnd.random() < 0.3
        self.counter = 0
        self.used_comments = False
        self.used_trailing = False

    def comment(self, indent: str, may_break: bool) -> str:
        """A gap: nothing, or a block comment, or a line comment followed by a line break."""
        if not self.comments or self.rnd.random() < 0.55:
            return ""
        self.counter += 1
        self.used_comments = True
        cid = f"c{self.counter}"
        if may_break and self.rnd.random() < 0.5:
            return f" //{' ' if self.rnd.random() < 0.5 else ''}{cid}" + self.eol + indent
        return f" /* {cid} */ " if self.rnd.random() < 0.5 else f"/*{cid}*/"

    def own_line_comment(self, indent: str) -> str:
        if not self.comments or self.rnd.random() < 0.7:
            return ""
        self.counter += 1
        self.used_comments = True
        return f"// c{self.counter}" + self.eol + indent

    def scalar(self, value: Any) -> str:
        return json.dumps(value, ensure_ascii=self.ensure_ascii)

    def write(self, value: Any, level: int = 0) -> str:
        if not isinstance(value, (dict, list)):
            return self.scalar(value)
        is_object = isinstance(value, dict)
        opener, closer = ("{", "}") if is_object else ("[", "]")
        items = list(value.items()) if is_object else [(None, v) for v in value]
        multiline = self.unit is not None and bool(items) and self.rnd.random() < 0.75
        outer = (self.unit or "") * level
        inner = (self.unit or "") * (level + 1) if multiline else ""
        if not items:
            return opener + (self.comment(outer, self.unit is not None) if self.rnd.random() < 0.3 else "") + closer
        parts = [opener]
        if multiline:
            parts.append(self.comment(inner, True) + self.eol + inner + self.own_line_comment(inner))
        else:
            parts.append(self.comment(inner, self.unit is not None))
        for i, (key, item) in enumerate(items):
            if key is not None:
                parts.append(json.dumps(key, ensure_ascii=self.ensure_ascii))
                parts.append(self.comment(inner, multiline) + self.key_sep + self.comment(inner, multiline))
            parts.append(self.write(item, level + 1))
            last = i == len(items) - 1
            if not last or (self.trailing_commas and self.rnd.random() < 0.4):
                if last:
                    self.used_trailing = True
                parts.append(self.comment(inner, multiline) + ",")
                if multiline:
                    parts.append(self.comment(inner, False) + self.eol + inner + self.own_line_comment(inner))
                elif not last:
                    parts.append(self.item_sep[1:] + self.comment(inner, self.unit is not None))
            if last:
                if multiline:
                    parts.append(self.comment(inner, False) + self.eol + outer)
                else:
                    parts.append(self.comment(inner, self.unit is not None))
        parts.append(closer)
        return "".join(parts)

    def document(self, value: Any, bom: bool) -> str:
        head = ("// c0 header" + self.eol) if self.comments and self.rnd.random() < 0.3 else ""
        if head:
            self.used_comments = True
        end = self.eol if self.rnd.random() < 0.8 else ""
        return ("\ufeff" if bom else "") + head + self.write(value) + end


# -- the plain-Python model of the edits ---------------------------------------------------------------


def model_get(value: Any, path: JsonPath) -> Any:
    for element in path:
        value = value[element]
    return value


def model_apply(value: Any, op: tuple[Any, ...]) -> Any:
    """Apply ``("set", path, v)``, ``("insert", path, index, v)`` or ``("remove", path)`` to a copy."""
    value = copy.deepcopy(value)
    kind, path = op[0], op[1]
    if kind == "set" and not path:
        return copy.deepcopy(op[2])
    if kind == "set":
        model_get(value, path[:-1])[path[-1]] = copy.deepcopy(op[2])
    elif kind == "insert":
        array = model_get(value, path)
        index = len(array) if op[2] == -1 else op[2]
        array.insert(index, copy.deepcopy(op[3]))
    elif kind == "remove":
        del model_get(value, path[:-1])[path[-1]]
    return value


def all_paths(value: Any, path: JsonPath = ()) -> list[tuple[JsonPath, Any]]:
    found = [(path, value)]
    if isinstance(value, dict):
        for key, item in value.items():
            found.extend(all_paths(item, (*path, key)))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found.extend(all_paths(item, (*path, index)))
    return found


def derive_ops(before: Any, after: Any, path: JsonPath = ()) -> list[tuple[Any, ...]]:
    """Edit operations that turn ``before`` into ``after`` the way an installer would: removals first,
    then recursion into kept members, then new keys and new array elements appended at the end."""
    ops: list[tuple[Any, ...]] = []
    if isinstance(before, dict) and isinstance(after, dict):
        ops += [("remove", (*path, key)) for key in before if key not in after]
        for key in before:
            if key in after:
                ops += derive_ops(before[key], after[key], (*path, key))
        ops += [("set", (*path, key), after[key]) for key in after if key not in before]
    elif isinstance(before, list) and isinstance(after, list):
        kept, j = [], 0
        for i, item in enumerate(before):
            if j < len(after) and after[j] == item:
                kept.append(i)
                j += 1
        ops += [("remove", (*path, i)) for i in reversed(range(len(before))) if i not in kept]
        ops += [("insert", path, -1, item) for item in after[j:]]
    elif before != after or type(before) is not type(after):
        ops.append(("set", path, after))
    return ops


def assert_agrees_with_reference(text: str, dialects: tuple[Dialect, ...], parse: Callable[[Dialect], Any],
                                 path: str) -> None:
    """``parse(dialect)`` gives what the reference scanner gives for ``text`` in each dialect: the same value,
    or a refusal at the same line and column for the same reason (``path`` names the parser in messages)."""
    for candidate in dialects:
        try:
            expected: Any = ReferenceScanner(text, candidate).document()[0]
        except MalformedConfigError as exc:
            expected = exc
        try:
            got: Any = parse(candidate)
        except MalformedConfigError as exc:
            got = exc
        if isinstance(expected, MalformedConfigError):
            assert isinstance(got, MalformedConfigError), f"{path} accepted {text!r}"
            assert (got.line, got.column, got.reason) == (expected.line, expected.column, expected.reason)
        else:
            assert not isinstance(got, MalformedConfigError), f"{path} refused {text!r}: {got}"
            assert got == expected
