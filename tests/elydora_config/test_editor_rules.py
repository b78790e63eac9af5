"""One rule per verb for the three editors (docs/editors.md, "One rule per verb"): ``set`` replaces an existing
value where it is and creates missing parents, ``insert`` appends with -1, a path that names nothing is a
``KeyError``, and an entry's comment lines go with it, in JSONC, TOML and YAML."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from elydora_config.errors import MalformedConfigError
from elydora_config.jsonc import JSONC, JsoncDocument
from elydora_config.toml import TomlDocument
from elydora_config.yaml import YamlDocument

Parse = Callable[[str], Any]
EDITORS: dict[str, tuple[Parse, str]] = {
    "jsonc": (lambda text: JsoncDocument.parse(text, JSONC), '{\n  "a": 1,\n  "b": 2\n}\n'),
    "toml": (TomlDocument.parse, "a = 1\nb = 2\n"),
    "yaml": (YamlDocument.parse, "a: 1\nb: 2\n"),
}


@pytest.fixture(params=sorted(EDITORS))
def editor(request: pytest.FixtureRequest) -> tuple[Parse, str]:
    return EDITORS[request.param]


def test_set_creates_missing_parents(editor: tuple[Parse, str]) -> None:
    parse, text = editor
    doc = parse(text)
    doc.set(("hooks", "pre", "timeout"), 5)
    assert doc.value == {"a": 1, "b": 2, "hooks": {"pre": {"timeout": 5}}}
    doc.set(("hooks", "pre", "x"), 6)  # the parent now exists: a new key of it
    assert doc.value["hooks"] == {"pre": {"timeout": 5, "x": 6}}
    assert parse(doc.text).value == doc.value


def test_set_creates_no_array_index(editor: tuple[Parse, str]) -> None:
    parse, text = editor
    doc = parse(text)
    with pytest.raises(KeyError):
        doc.set(("new", 0, "x"), 2)
    assert doc.text == text


def test_set_through_a_scalar_changes_nothing(editor: tuple[Parse, str]) -> None:
    parse, text = editor
    doc = parse(text)
    with pytest.raises((KeyError, MalformedConfigError)):  # YAML refuses it as a shape it does not splice
        doc.set(("a", "x"), 2)
    assert doc.text == text
    assert doc.value == {"a": 1, "b": 2}


def test_jsonc_set_through_a_scalar_is_a_key_error() -> None:
    doc = JsoncDocument.parse('{"a": 1}', JSONC)
    with pytest.raises(KeyError):
        doc.set(("a", "x", "y"), 2)
    assert doc.text == '{"a": 1}'


@pytest.mark.parametrize(
    ("where", "order"),
    [({"before": "b"}, "acb"), ({"after": "a"}, "acb"), ({"before": "a"}, "cab"), ({"after": "b"}, "abc"), ({}, "abc")],
)
def test_set_places_a_new_key_before_or_after_a_sibling(
    editor: tuple[Parse, str], where: dict[str, str], order: str
) -> None:
    parse, text = editor
    doc = parse(text)
    doc.set(("c",), 3, **where)
    assert "".join(doc.value) == order
    assert "".join(parse(doc.text).value) == order
    doc.remove(("c",))
    assert doc.text == text  # and its removal gives back every byte


def test_a_new_key_placed_before_a_sibling_goes_above_the_sibling_s_comment_lines() -> None:
    for parse, text, after in [
        (EDITORS["jsonc"][0], '{\n  // about a\n  "a": 1\n}', '{\n  "c": 3,\n  // about a\n  "a": 1\n}'),
        (TomlDocument.parse, "# top\n\n# about a\na = 1\n", "# top\n\nc = 3\n# about a\na = 1\n"),
        (YamlDocument.parse, "# top\n\n# about a\na: 1\n", "# top\n\nc: 3\n# about a\na: 1\n"),
    ]:
        doc = parse(text)
        doc.set(("c",), 3, before="a")
        assert doc.text == after


def test_a_position_must_name_a_sibling_and_only_one(editor: tuple[Parse, str]) -> None:
    parse, text = editor
    doc = parse(text)
    with pytest.raises(KeyError):
        doc.set(("c",), 3, before="nope")
    with pytest.raises(KeyError):
        doc.set(("new", "c"), 3, after="a")  # a parent to create has no siblings
    with pytest.raises(TypeError):
        doc.set(("c",), 3, before="a", after="b")
    assert doc.text == text


def test_a_position_does_not_move_an_existing_value(editor: tuple[Parse, str]) -> None:
    parse, text = editor
    doc = parse(text)
    doc.set(("b",), 20, before="a")
    assert list(doc.value.items()) == [("a", 1), ("b", 20)]


def test_set_replaces_an_existing_value_and_an_existing_item_in_place(editor: tuple[Parse, str]) -> None:
    parse, text = editor
    doc = parse(text)
    doc.set(("a",), "x")
    doc.set(("list",), [1, 2])
    doc.set(("list", -1), 3)  # an item by its index, negative from the end
    assert doc.value == {"a": "x", "b": 2, "list": [1, 3]}
    assert parse(doc.text).value == doc.value
    with pytest.raises(KeyError):
        doc.set(("list", 2), 4)  # set adds no item: that is insert's job
    assert doc.value["list"] == [1, 3]


# -- layouts, held against the peers (microsoft/node-jsonc-parser, tomlkit) -----------------------------------

LAYOUTS: list[tuple[Parse, str, tuple[Any, ...], str]] = [
    # an item added to an empty multi-line array gets a line of its own (tomlkit: 'a = [\n    1\n]')
    (TomlDocument.parse, "a = [\n]\n", ("insert", ("a",), 0, 1), "a = [\n    1\n]\n"),
    # ... also where a comment ends the opening line: the item goes below it (tomlkit: 'a = [ # c\n    1\n]')
    (TomlDocument.parse, "a = [ # c\n]\n", ("insert", ("a",), 0, 1), "a = [ # c\n    1\n]\n"),
    (EDITORS["jsonc"][0], "[ // c\n]", ("insert", (), 0, 1), "[ // c\n  1\n]"),
    # a comment line inside an empty container stays below the new entry (above it, it would be the entry's own)
    (EDITORS["jsonc"][0], "{\n  // c\n}", ("set", ("a",), 1), '{\n  "a": 1\n  // c\n}'),
    (EDITORS["jsonc"][0], "[\n  // c\n]", ("insert", (), 0, 1), "[\n  1\n  // c\n]"),
    (TomlDocument.parse, "a = [\n  # c\n]\n", ("insert", ("a",), 0, 1), "a = [\n    1\n  # c\n]\n"),
    # a comma-first array is followed (both peers write ', 2, 3' on the last line)
    (TomlDocument.parse, "a = [\n    1\n  , 2\n]\n", ("insert", ("a",), 2, 3), "a = [\n    1\n  , 2\n  , 3\n]\n"),
    (TomlDocument.parse, "a = [\n    1\n  , 2\n]\n", ("insert", ("a",), 0, 0), "a = [\n    0\n  , 1\n  , 2\n]\n"),
    (TomlDocument.parse, "a = [\n    1\n  , 2\n]\n", ("insert", ("a",), 1, 9), "a = [\n    1\n  , 9\n  , 2\n]\n"),
    (EDITORS["jsonc"][0], "[\n  1\n, 2\n]", ("insert", (), -1, 3), "[\n  1\n, 2\n, 3\n]"),
    (EDITORS["jsonc"][0], '{ "a": 1\n, "b": 2\n}', ("set", ("c",), 3), '{ "a": 1\n, "b": 2\n, "c": 3\n}'),
    (EDITORS["jsonc"][0], "[\n  1\n, 2\n]", ("insert", (), 0, 0), "[\n  0\n, 1\n, 2\n]"),
    (EDITORS["jsonc"][0], "[\n  1\n, 2\n]", ("insert", (), 1, 9), "[\n  1\n, 9\n, 2\n]"),
]


@pytest.mark.parametrize(("parse", "before", "edit", "after"), LAYOUTS)
def test_an_insertion_reads_like_the_best_peer_and_its_removal_gives_back_every_byte(
    parse: Parse, before: str, edit: tuple[Any, ...], after: str
) -> None:
    doc = parse(before)
    getattr(doc, edit[0])(*edit[1:])
    assert doc.text == after
    if edit[0] == "insert":
        index = edit[2] if edit[2] != -1 else len(doc.get(edit[1])) - 1
        added = (*edit[1], index)
    else:
        added = edit[1]
    doc.remove(added)
    assert doc.text == before


REMOVALS: list[tuple[Parse, str, tuple[Any, ...], str]] = [
    # a removed last entry takes the blank lines above it: none is left where it was (jsonc-parser)
    (EDITORS["jsonc"][0], '{\n  "a": 1,\n\n  "b": 2\n}', ("b",), '{\n  "a": 1\n}'),
    (EDITORS["jsonc"][0], '{\n  "a": 1,\n\n  "b": 2,\n}', ("b",), '{\n  "a": 1,\n}'),
    (TomlDocument.parse, "[t]\nx = 1\n\ny = 2\n\n[u]\n", ("t", "y"), "[t]\nx = 1\n\n[u]\n"),
    (TomlDocument.parse, "x = 1\n\ny = 2\n", ("y",), "x = 1\n"),
    (YamlDocument.parse, "a:\n  x: 1\n\n  y: 2\nb: 3\n", ("a", "y"), "a:\n  x: 1\nb: 3\n"),
    (YamlDocument.parse, "l:\n- 1\n\n- 2\n", ("l", 1), "l:\n- 1\n"),
    # ... and an entry followed by another leaves the gap above to it
    (EDITORS["jsonc"][0], '{\n  "a": 1,\n\n  "b": 2,\n  "c": 3\n}', ("b",), '{\n  "a": 1,\n\n  "c": 3\n}'),
    # ... and not across a comment line that is not the entry's own
    (TomlDocument.parse, "x = 1\n\n# c\n\ny = 2\n", ("y",), "x = 1\n\n# c\n"),
    # the comment lines right above an entry (no blank line between) are its own: they go with it, in every
    # editor, as they do with a TOML table (jsonc-parser too)
    (EDITORS["jsonc"][0], '{\n  "a": 1,\n  // about b\n  "b": 2\n}', ("b",), '{\n  "a": 1\n}'),
    (EDITORS["jsonc"][0], '{\n  // about a\n  "a": 1,\n  "b": 2\n}', ("a",), '{\n  "b": 2\n}'),
    (EDITORS["jsonc"][0], '{\n  "a": 1,\n  /* about b */\n  // more\n  "b": 2,\n  "c": 3\n}', ("b",),
     '{\n  "a": 1,\n  "c": 3\n}'),
    (EDITORS["jsonc"][0], "[\n  1,\n  // about 2\n  2\n]", (1,), "[\n  1\n]"),
    (EDITORS["jsonc"][0], '{\n  "a": 1,\n\n  // about b\n  "b": 2\n}', ("b",), '{\n  "a": 1\n}'),
    (TomlDocument.parse, "x = 1\n# about y\ny = 2\n", ("y",), "x = 1\n"),
    (TomlDocument.parse, "x = 1\n\n# c\ny = 2\n", ("y",), "x = 1\n"),
    (TomlDocument.parse, "[t]\n# about a\na = 1\nb = 2\n", ("t", "a"), "[t]\nb = 2\n"),
    (TomlDocument.parse, "a = [\n  1,\n  # about 2\n  2,\n]\n", ("a", 1), "a = [\n  1,\n]\n"),
    (YamlDocument.parse, "x: 1\n# about y\ny: 2\n", ("y",), "x: 1\n"),
    (YamlDocument.parse, "# about x\nx: 1\ny: 2\n", ("x",), "y: 2\n"),
    (YamlDocument.parse, "l:\n- 1\n# about 2\n- 2\n- 3\n", ("l", 1), "l:\n- 1\n- 3\n"),
    # ... not when a blank line stands between
    (EDITORS["jsonc"][0], '{\n  // header\n\n  "a": 1,\n  "b": 2\n}', ("a",), '{\n  // header\n\n  "b": 2\n}'),
    (TomlDocument.parse, "# file\n\na = 1\nc = 3\n", ("a",), "# file\n\nc = 3\n"),
    (YamlDocument.parse, "# file\n\na: 1\nc: 3\n", ("a",), "# file\n\nc: 3\n"),
    # a comma-first member goes with its line (both peers leave ' 2' or '    2' behind)
    (EDITORS["jsonc"][0], "[\n  1\n, 2\n, 3\n]", (1,), "[\n  1\n, 3\n]"),
    (EDITORS["jsonc"][0], "[\n  1\n, 2\n]", (0,), "[\n  2\n]"),
    (EDITORS["jsonc"][0], '{ "a": 1\n, "b": 2\n}', ("a",), '{ "b": 2\n}'),
    (TomlDocument.parse, "a = [\n    1\n  , 2\n  , 3\n]\n", ("a", 1), "a = [\n    1\n  , 3\n]\n"),
]


@pytest.mark.parametrize(("parse", "before", "path", "after"), REMOVALS)
def test_a_removal_takes_what_the_entry_owns(parse: Parse, before: str, path: tuple[Any, ...], after: str) -> None:
    doc = parse(before)
    doc.remove(path)
    assert doc.text == after


def test_an_entry_added_below_a_comment_only_head_is_kept_apart_from_it() -> None:
    # a key added where a comment line would stand right above it gets a blank line between, so that the
    # comment does not become the key's own (and go with it when the key is removed)
    for parse, before, after in [
        (TomlDocument.parse, "# my config\n", "# my config\n\nk = 1\n"),
        (YamlDocument.parse, "# my config\n", "# my config\n\nk: 1\n"),
        (TomlDocument.parse, "# my config\n\n[a]\nx = 1\n", '# my config\n\nk = 1\n\n[a]\nx = 1\n'),
    ]:
        doc = parse(before)
        doc.set(("k",), 1)
        assert doc.text == after
        doc.remove(("k",))
        assert doc.text == before
