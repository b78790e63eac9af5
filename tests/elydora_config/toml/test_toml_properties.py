"""Property tests: random TOML documents in random styles, random sequences of edits.

The documents are written by this test's own renderer (not the library's), together with the data
they hold and a record of how each table is written (header, dotted keys, inline). After every edit:
the text re-parses with tomllib to the intended data (computed here on plain Python data), and the
lines outside the edited place are unchanged (checked on a line diff, with what each kind of edit may
touch). Reversible edits are then undone in reverse order and must give back the original bytes.

Runtime is bounded by the "elydora-toml" hypothesis profile (ELYDORA_TOML_EXAMPLES overrides the
number of examples).
"""

from __future__ import annotations

import copy
import json
import os
import re
import sys
from dataclasses import dataclass, field
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from elydora_config.toml import TomlDocument

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib  # type: ignore[import-not-found, no-redef, unused-ignore]

settings.register_profile(
    "elydora-toml",
    max_examples=int(os.environ.get("ELYDORA_TOML_EXAMPLES", "120")),
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
PROFILE = settings.get_profile("elydora-toml")

NAMES = [
    "alpha", "beta", "gamma", "delta", "eps", "zeta", "eta", "theta", "iota", "kappa", "lam", "mu", "nu",
    "xi", "pi", "rho", "sigma", "tau", "phi", "chi", "psi", "omega", "with space", "dot.ted", "ключ",
    "x-1", "_u", "9", "true", "1.5", "o", "p", "q", "r", "s", "t", "u", "v", "w",
]  # fmt: skip
TEXT = "abcXYZ019 _-.#=[]{},'\"\\\né\t"
BARE = re.compile(r"[A-Za-z0-9_-]+\Z")
HEADER = re.compile(r"\s*\[")

Path = tuple[Any, ...]


def key_text(key: str) -> str:
    return key if BARE.match(key) else json.dumps(key, ensure_ascii=False)


def dotted(keys: Path) -> str:
    return ".".join(key_text(str(key)) for key in keys)


# -- values: (data, text) --------------------------------------------------------------------------


@st.composite
def scalars(draw: st.DrawFn) -> tuple[Any, str]:
    kind = draw(st.sampled_from(["int", "bool", "float", "str", "str"]))
    if kind == "int":
        number = draw(st.integers(-(10**6), 10**6))
        return number, str(number)
    if kind == "bool":
        flag = draw(st.booleans())
        return flag, "true" if flag else "false"
    if kind == "float":
        real = draw(st.floats(allow_nan=False, allow_infinity=False, width=32))
        return real, repr(real)
    text = draw(st.text(alphabet=TEXT, max_size=8))
    if draw(st.booleans()) and not re.search(r"['\n\t]", text):
        return text, "'" + text + "'"
    return text, json.dumps(text, ensure_ascii=False)


@st.composite
def values(draw: st.DrawFn, indent: str, nl: str) -> tuple[Any, str]:
    kind = draw(st.sampled_from(["scalar", "scalar", "scalar", "array", "table"]))
    if kind == "scalar":
        return draw(scalars())
    if kind == "table":
        keys = draw(st.lists(st.sampled_from(NAMES), unique=True, max_size=3))
        pairs = [(key, draw(scalars())) for key in keys]
        if not pairs:
            return {}, "{}"
        eq, pad = draw(st.sampled_from([" = ", "="])), draw(st.sampled_from([" ", ""]))
        inner = ", ".join(key_text(k) + eq + text for k, (_, text) in pairs)
        return {k: value for k, (value, _) in pairs}, "{" + pad + inner + pad + "}"
    items = draw(st.lists(scalars(), max_size=4))
    data = [value for value, _ in items]
    if not draw(st.booleans()):
        sep, pad = draw(st.sampled_from([", ", ",", " , "])), draw(st.sampled_from(["", " "]))
        return data, "[" + pad + sep.join(text for _, text in items) + pad + "]"
    inner = indent + "    "
    trailing = draw(st.booleans())
    lines = ["["]
    for i, (_, text) in enumerate(items):
        comma = "," if i < len(items) - 1 or trailing else ""
        comment = draw(st.sampled_from(["", "", "  # note, [x]"]))
        lines.append(inner + text + comma + comment)
    lines.append(indent + "]")
    return data, nl.join(lines)


# -- documents -------------------------------------------------------------------------------------


@dataclass
class Layout:
    """How the document writes its tables: which have a header, which values sit on a key line."""

    headers: dict[Path, str] = field(default_factory=lambda: {(): ""})  # path -> header text
    aots: set[Path] = field(default_factory=set)  # [[arrays of tables]]
    inline: set[Path] = field(default_factory=set)  # values written after `key =`

    def is_inline(self, path: Path) -> bool:
        """Inside (or being) a value written on a key line."""
        return any(path[:size] in self.inline for size in range(1, len(path) + 1))

    def is_entry(self, path: Path) -> bool:
        return bool(path) and path[:-1] in self.aots and isinstance(path[-1], int)

    def implicit(self, path: Path) -> bool:
        return bool(path) and path not in self.headers and not self.is_inline(path) and not self.is_entry(path)

    def drop(self, path: Path) -> None:
        """Forget ``path`` and what is under it; renumber later entries of an array of tables."""

        def moved(item: Path) -> Path | None:
            if item[: len(path)] == path:
                return None
            if self.is_entry(path) and item[: len(path) - 1] == path[:-1] and len(item) >= len(path):
                index = item[len(path) - 1]
                if isinstance(index, int) and index > path[-1]:
                    return (*path[:-1], index - 1, *item[len(path) :])
            return item

        self.headers = {new: text for old, text in self.headers.items() if (new := moved(old)) is not None}
        self.inline = {new for old in self.inline if (new := moved(old)) is not None}
        self.aots = {new for old in self.aots if (new := moved(old)) is not None}


@dataclass
class Doc:
    text: str
    data: dict[str, Any]
    layout: Layout


@st.composite
def documents(draw: st.DrawFn) -> Doc:
    nl = draw(st.sampled_from(["\n", "\r\n"]))
    eq = draw(st.sampled_from([" = ", "=", "  =  "]))
    indent = draw(st.sampled_from(["", "", "  ", "\t"]))
    names = list(draw(st.permutations(NAMES)))
    spare = iter(range(1_000_000))

    def fresh() -> str:
        """A key not used yet in this document: the drawn names first, then numbered ones (the largest
        layouts need more keys than NAMES has)."""
        return names.pop() if names else f"key_{next(spare)}"

    layout = Layout()
    data: dict[str, Any] = {}

    def body(table: dict[str, Any], where: Path, count: int, prefix: str) -> list[str]:
        lines: list[str] = []
        for _ in range(count):
            if draw(st.integers(0, 5)) == 0:
                lines.append(prefix + "# " + draw(st.sampled_from(["a comment", "[not] = a header"])))
            key = fresh()
            value, text = draw(values(prefix, nl))
            keys: Path = (key,)
            if draw(st.integers(0, 5)) == 0:  # a dotted key: `key.inner = value`
                keys = (key, fresh())
                table[key] = {keys[1]: value}
            else:
                table[key] = value
            layout.inline.add((*where, *keys))
            tail = draw(st.sampled_from(["", "", " # trailing, comment"]))
            lines.append(prefix + dotted(keys) + eq + text + tail)
        return lines

    def gap() -> list[str]:
        return [""] * draw(st.integers(0, 2))

    def lead() -> list[str]:
        return ["# about the next table"] if draw(st.integers(0, 3)) == 0 else []

    def table_block(path: Path, holder: dict[str, Any], is_entry: bool) -> list[str]:
        """Lines of `[path]` (or one `[[path]]` entry) and maybe a sub-table after it."""
        table: dict[str, Any] = {}
        header = f"[[{dotted(path)}]]" if is_entry else f"[{dotted(path)}]"
        where: Path = (*path, len(holder[path[-1]])) if is_entry else path
        if is_entry:
            holder[path[-1]].append(table)
        else:
            holder[path[-1]] = table
            layout.headers[where] = header
        lines = [*lead(), header + draw(st.sampled_from(["", "", " # header comment"]))]
        lines += body(table, where, draw(st.integers(0, 3)), indent)
        if draw(st.integers(0, 3)) == 0:  # a sub-table
            sub = fresh()
            lines += gap()
            sub_table: dict[str, Any] = {}
            table[sub] = sub_table
            sub_header = f"[{dotted((*path, sub))}]"
            sub_path = (*where, sub)
            layout.headers[sub_path] = sub_header
            lines += [sub_header, *body(sub_table, sub_path, draw(st.integers(0, 2)), indent)]
        return lines

    lines: list[str] = []
    if draw(st.booleans()):
        lines += ["# top of file", *gap()]
    lines += body(data, (), draw(st.integers(0, 3)), "")
    if draw(st.integers(0, 3)) == 0:  # an inline array of tables, like Kimi's inline hooks
        name = fresh()
        data[name] = [{"event": "A"}, {"event": "B", "timeout": 10}]
        layout.inline.add((name,))
        lines.append(key_text(name) + eq + '[{ event = "A" }, {event = "B", timeout = 10}]')
    blocks: list[list[str]] = []
    for _ in range(draw(st.integers(0, 3))):
        blocks.append(table_block((fresh(),), data, is_entry=False))
    for _ in range(draw(st.integers(0, 2))):
        name = fresh()
        data[name] = []
        layout.aots.add((name,))
        group: list[str] = []
        for index in range(draw(st.integers(1, 3))):
            if index:
                group += gap()
            group += table_block((name,), data, is_entry=True)
        blocks.append(group)
    for position in draw(st.permutations(range(len(blocks)))):
        if lines:
            lines += gap()
        lines += blocks[position]
    text = nl.join(lines)
    if lines and draw(st.integers(0, 4)) > 0:
        text += nl
    return Doc(text=text, data=data, layout=layout)


# -- helpers -------------------------------------------------------------------------------------


def at(data: Any, path: Path) -> Any:
    for key in path:
        data = data[key]
    return data


def walk(data: Any, path: Path = ()) -> list[tuple[Path, Any]]:
    found = [(path, data)]
    if type(data) is dict:
        for key, item in data.items():
            found += walk(item, (*path, key))
    elif type(data) is list:
        for i, item in enumerate(data):
            found += walk(item, (*path, i))
    return found


def lines_of(text: str) -> list[str]:
    """Lines without their endings (whether the last line has one is not a matter of locality)."""
    lines = re.split(r"\r?\n", text)
    if lines[-1] == "":
        lines.pop()
    return lines


def line_diff(old: str, new: str) -> tuple[list[str], list[str]]:
    """The lines of ``old`` and of ``new`` between their common first and last lines."""
    a, b = lines_of(old), lines_of(new)
    start = 0
    while start < min(len(a), len(b)) and a[start] == b[start]:
        start += 1
    end = 0
    while end < min(len(a), len(b)) - start and a[-1 - end] == b[-1 - end]:
        end += 1
    return a[start : len(a) - end], b[start : len(b) - end]


def headers_in(lines: list[str]) -> list[str]:
    return [line.strip().split("#")[0].strip() for line in lines if HEADER.match(line)]


def newline_of(text: str) -> str:
    return "\r\n" if "\r\n" in text else "\n"


def check(document: TomlDocument, intended: dict[str, Any], nl: str) -> None:
    assert tomllib.loads(document.text) == intended
    assert document.value == intended
    if nl == "\r\n":
        assert re.search(r"(?<!\r)\n", document.text) is None, "bare LF in a CRLF document"
    else:
        assert "\r" not in document.text


@st.composite
def same_kind(draw: st.DrawFn, old: Any) -> Any:
    """A new value of the old value's type (strings safe for either quote style), so that setting the
    old value back must reproduce the original text."""
    if type(old) is bool:
        return draw(st.booleans())
    if type(old) is int:
        return draw(st.integers(-(10**6), 10**6))
    if type(old) is float:
        return draw(st.floats(allow_nan=False, allow_infinity=False, width=32))
    return draw(st.text(alphabet="abcXYZ019 _-.#=[]{},é", max_size=8))


def new_values() -> st.SearchStrategy[Any]:
    plain = st.one_of(st.integers(-50, 50), st.booleans(), st.text(alphabet=TEXT, max_size=5))
    return st.one_of(
        plain,
        st.lists(plain, max_size=3),
        st.dictionaries(st.sampled_from(NAMES), plain, max_size=2),
    )


# -- the tests ----------------------------------------------------------------------------------------


@PROFILE
@given(doc=documents())
def test_unedited_document_keeps_its_bytes_and_data(doc: Doc) -> None:
    assert tomllib.loads(doc.text) == doc.data  # the generator writes what it says
    parsed = TomlDocument.parse(doc.text)
    assert parsed.text == doc.text
    assert parsed.value == doc.data


@PROFILE
@given(doc=documents(), data=st.data())
def test_reversible_edits_touch_only_their_place_and_undo_exactly(doc: Doc, data: st.DataObject) -> None:
    nl = newline_of(doc.text)
    document = TomlDocument.parse(doc.text)
    expected = copy.deepcopy(doc.data)
    layout = doc.layout
    undo: list[tuple[str, Path, Any]] = []
    for step in range(data.draw(st.integers(1, 5), label="steps")):
        kind = data.draw(st.sampled_from(["set", "add", "append", "insert"]), label="kind")
        before = document.text
        intended = copy.deepcopy(expected)
        if kind == "set":
            leaves = [(p, v) for p, v in walk(expected) if p and type(v) not in (dict, list)]
            if not leaves:
                continue
            path, old = data.draw(st.sampled_from(leaves), label="leaf")
            new = data.draw(same_kind(old), label="new value")
            document.set(path, new)
            at(intended, path[:-1])[path[-1]] = new
            check(document, intended, nl)
            old_mid, new_mid = line_diff(before, document.text)
            assert len(old_mid) == len(new_mid) <= 1, (old_mid, new_mid)
            undo.append(("set", path, old))
        elif kind == "add":
            path = data.draw(st.sampled_from([p for p, v in walk(expected) if type(v) is dict]), label="table")
            key = f"new{step}"
            value = data.draw(new_values(), label="value")
            document.set((*path, key), value)
            at(intended, path)[key] = value
            check(document, intended, nl)
            old_mid, new_mid = line_diff(before, document.text)
            if layout.is_inline(path):
                assert len(old_mid) == len(new_mid) == 1 and key in new_mid[0], (old_mid, new_mid)
            else:
                assert old_mid == [] and new_mid, (old_mid, new_mid)
                headers = headers_in(new_mid)
                if type(value) is dict and value:
                    assert headers and all(key in header for header in headers), new_mid
                    added = (*path, key)
                    layout.headers[added] = headers[0]
                else:
                    added_lines = [line for line in new_mid if line]  # a blank line after a comment-only table
                    assert headers == [] and len(added_lines) == 1 and key in added_lines[0], new_mid
                    layout.inline.add((*path, key))
            undo.append(("remove", (*path, key), None))
        elif kind == "append":
            inline = [n for n, v in expected.items() if (n,) in layout.inline and type(v) is list]
            tables = [n for n in inline if all(type(i) is dict for i in expected[n])]
            choices = sorted(p[0] for p in layout.aots if len(p) == 1) + tables
            name = data.draw(st.sampled_from([*choices, f"new{step}"]), label="array")
            table = data.draw(st.dictionaries(st.sampled_from(NAMES), st.integers(0, 9), max_size=2), label="table")
            document.append_table((name,), table)
            intended.setdefault(name, []).append(table)
            check(document, intended, nl)
            old_mid, new_mid = line_diff(before, document.text)
            if name in inline:  # a one-line array: its line changes; a multi-line one gets a line for the item,
                # and the item before it, when it has no trailing comma, its comma
                grown = document.text.count("\n") - before.count("\n")
                assert grown in (0, 1) and len(old_mid) <= 1, (old_mid, new_mid)
                assert len(new_mid) == len(old_mid) + grown, (old_mid, new_mid)
                if old_mid and grown:
                    assert new_mid[0] == old_mid[0] + ",", (old_mid, new_mid)
            else:
                layout.aots.add((name,))
                assert old_mid == [] and headers_in(new_mid) == [f"[[{key_text(name)}]]"], (old_mid, new_mid)
            undo.append(("remove", (name, len(intended[name]) - 1), None))
        else:
            arrays = [p for p, v in walk(expected) if type(v) is list and p not in layout.aots]
            if not arrays:
                continue
            path = data.draw(st.sampled_from(arrays), label="array")
            index = data.draw(st.integers(0, len(at(expected, path))), label="index")
            value = data.draw(scalars(), label="item")[0]
            document.insert(path, index, value)
            at(intended, path).insert(index, value)
            check(document, intended, nl)
            old_mid, new_mid = line_diff(before, document.text)
            assert len(old_mid) <= 1 and len(new_mid) - len(old_mid) in (0, 1), (old_mid, new_mid)
            undo.append(("remove", (*path, index), None))
        assert document._last_engine in ("span", None)
        expected = intended
    for action, path, old in reversed(undo):
        if action == "set":
            document.set(path, old)
        else:
            document.remove(path)
        assert document._last_engine in ("span", None)
    assert document.text == doc.text


@PROFILE
@given(doc=documents(), data=st.data())
def test_removals_take_exactly_what_they_own(doc: Doc, data: st.DataObject) -> None:
    nl = newline_of(doc.text)
    document = TomlDocument.parse(doc.text)
    expected = copy.deepcopy(doc.data)
    layout = doc.layout
    for _ in range(data.draw(st.integers(1, 5), label="steps")):
        candidates = [p for p, _ in walk(expected) if p]
        if not candidates:
            break
        path = data.draw(st.sampled_from(candidates), label="path")
        before = document.text
        document.remove(path)
        intended = copy.deepcopy(expected)
        del at(intended, path[:-1])[path[-1]]
        holder = path[:-1]  # containers left empty that have no text of their own disappear
        while holder and not at(intended, holder) and (layout.implicit(holder) or holder in layout.aots):
            del at(intended, holder[:-1])[holder[-1]]
            holder = holder[:-1]
        check(document, intended, nl)
        assert document._last_engine == "span"
        old_mid, new_mid = line_diff(before, document.text)
        owned = sorted(text for p, text in layout.headers.items() if p and p[: len(path)] == path)
        if layout.is_inline(path) and path not in layout.inline:  # inside an inline array / table
            assert len(new_mid) <= 1 and len(old_mid) - len(new_mid) in (0, 1), (old_mid, new_mid)
        else:
            assert new_mid == [] and old_mid, (old_mid, new_mid)
            found = headers_in(old_mid)
            if path in layout.aots:
                assert set(found) - set(owned) == {f"[[{dotted(path)}]]"}, old_mid
            elif layout.is_entry(path):
                assert sorted(h for h in found if h.startswith("[[")) == [f"[[{dotted(path[:-1])}]]"], old_mid
                assert sorted(h for h in found if not h.startswith("[[")) == owned, old_mid
            else:  # a table with a header (and its sub-tables), a key line, or dotted key lines
                assert sorted(found) == owned, (old_mid, owned)
        layout.drop(path)
        expected = intended
