"""The YAML editor: every insertion is undone byte for byte by removing what it inserted, comments and the
user's formatting are kept, each edit re-reads as the intended data, and shapes it does not splice are refused
with the place named."""

from __future__ import annotations

import re
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from elydora_config.errors import MalformedConfigError
from elydora_config.yaml import YamlDocument

ENTRY = {"command": "'/usr/bin/python3' '-I' '-S' '/home/me/.elydora/hermes/guard.py'", "timeout": 10}
OTHER = {"command": "'/usr/bin/python3' '-I' '-S' '/home/me/.elydora/hermes/hook.py'", "timeout": 10}

BEFORE = [
    "",
    "# only a comment\n",
    "model:\n  default: fake   # mine\n",
    "model:\n  default: fake",  # no line break at the end
    "model:\r\n  default: fake\r\n",
    "\ufeffmodel: 1\n",
    "model: x   # trailing\n\n\n# the end\n",
    "prompt: |\n  line one\n  line two\n\n",
    "---\nmodel: x\n",
    "model: x\nhooks: {}\n",
    "model: x\nhooks: {}",
    "hooks:\n  on_session_start:\n  - command: notify-send hi\n  # my own note\nlast: 1\n",
    "hooks:\n    pre_tool_call:\n        -   command: mine\n            timeout: 5\n",
    "hooks:\n  pre_tool_call: []   # filled later\n  post_tool_call:\n    - command: mine\n",
    "hooks:\r\n  pre_tool_call:\r\n    - command: mine\r\n",
]


def install(text: str) -> tuple[str, set[tuple[str, ...]]]:
    """What the Hermes provider does through the hook map: add each entry, noting the keys it created."""
    doc = YamlDocument.parse(text)
    made: set[tuple[str, ...]] = set()
    if not isinstance(doc.get(("hooks",), None), dict):
        doc.set(("hooks",), {"pre_tool_call": [ENTRY], "post_tool_call": [OTHER]})
        made |= {("hooks",), ("hooks", "pre_tool_call"), ("hooks", "post_tool_call")}
        return doc.text, made
    for event, entry in (("pre_tool_call", ENTRY), ("post_tool_call", OTHER)):
        existing = doc.get(("hooks", event), None)
        if isinstance(existing, list):
            doc.insert(("hooks", event), len(existing), entry)
        else:
            doc.set(("hooks", event), [entry])
            made.add(("hooks", event))
    return doc.text, made


def uninstall(text: str, made: set[tuple[str, ...]]) -> str:
    doc = YamlDocument.parse(text)
    for event in ("pre_tool_call", "post_tool_call"):
        entries = doc.get(("hooks", event))
        for index in reversed(range(len(entries))):
            if entries[index] in (ENTRY, OTHER):
                doc.remove(("hooks", event, index))
        if ("hooks", event) in made and doc.get(("hooks", event)) == []:
            doc.remove(("hooks", event))
    if ("hooks",) in made and doc.get(("hooks",)) == {}:
        doc.remove(("hooks",))
    return doc.text


@pytest.mark.parametrize("before", BEFORE)
def test_install_then_uninstall_gives_back_every_byte(before: str) -> None:
    after, made = install(before)
    data = yaml.safe_load(after)
    assert data["hooks"]["pre_tool_call"][-1] == ENTRY and data["hooks"]["post_tool_call"][-1] == OTHER
    assert uninstall(after, made) == before


@pytest.mark.parametrize("before", BEFORE)
def test_an_edit_only_adds_lines_and_keeps_comments(before: str) -> None:
    after, _ = install(before)
    kept = iter(after)
    assert all(char in kept for char in before.replace(" {}", "").replace(" []", ""))
    for line in before.splitlines():
        if "#" in line:
            assert any(line.split("#", 1)[1] in kept_line for kept_line in after.splitlines())


def test_new_lines_follow_the_documents_indentation_and_line_breaks() -> None:
    after, _ = install("hooks:\r\n    on_session_start:\r\n    -   command: x\r\n")
    assert "\r\n    pre_tool_call:\r\n    -   command: " not in after  # the item form is ours, the offsets theirs
    assert "\r\n    pre_tool_call:\r\n    - command: " in after and "\n" not in after.replace("\r\n", "")


def test_inserting_before_an_item_and_reading_parts() -> None:
    doc = YamlDocument.parse("list:\n  - a\n  - b\n")
    doc.insert(("list",), 1, "between")
    assert doc.text == "list:\n  - a\n  - between\n  - b\n"
    assert doc.get(("list", 1)) == "between" and doc.has(("list", -1)) and not doc.has(("list", 3))
    assert doc.get(("nope",), None) is None
    with pytest.raises(KeyError):
        doc.get(("nope",))


@pytest.mark.parametrize(
    ("text", "path", "reason"),
    [
        ("hooks:\n  pre_tool_call: [{command: x}]\n", ("hooks", "pre_tool_call"), "flow style"),
        ("hooks:\n", ("hooks", "pre_tool_call"), "is not a mapping (a key without a value?)"),
        ("base: &b {}\nhooks: *b\n", ("hooks", "pre_tool_call"), "anchor, alias or tag"),
        ("hooks:\n  a: 1\nhooks:\n  b: 2\n", ("hooks", "pre_tool_call"), "appears more than once"),
        ("hooks: 3\n", ("hooks", "pre_tool_call"), "is not a mapping"),
    ],
)
def test_shapes_it_does_not_splice_are_refused_and_the_text_stays(
    text: str, path: tuple[str, ...], reason: str
) -> None:
    doc = YamlDocument.parse(text)
    with pytest.raises(MalformedConfigError, match=re.escape(reason)):
        if doc.has(path):
            doc.insert(path, 1, ENTRY)
        else:
            doc.set(path, [ENTRY])
    assert doc.text == text


def test_an_existing_value_is_replaced_where_it_is() -> None:
    doc = YamlDocument.parse("hooks:\n  pre_tool_call:\n  - command: x\n# after\nmodel: old # keep\n")
    doc.set(("model",), "new")  # a scalar on its key's line: only its text, the comment stays
    assert doc.text == "hooks:\n  pre_tool_call:\n  - command: x\n# after\nmodel: new # keep\n"
    doc.set(("hooks", "pre_tool_call"), [{"command": "w"}])  # a block: its lines written anew in place
    assert doc.text == "hooks:\n  pre_tool_call:\n  - command: w\n# after\nmodel: new # keep\n"
    doc.set(("hooks", "pre_tool_call", 0), "z")  # an index into a sequence
    assert doc.text == "hooks:\n  pre_tool_call:\n  - z\n# after\nmodel: new # keep\n"
    doc.set(("hooks", "pre_tool_call", 0), "z")  # the same value: nothing changes
    assert doc.value == {"hooks": {"pre_tool_call": ["z"]}, "model": "new"}


@pytest.mark.parametrize(
    ("before", "path", "value", "after"),
    [
        ("a: 1 # one\nb: 2\n", ("a",), [1, 2], "a: # one\n  - 1\n  - 2\nb: 2\n"),
        ("a:\n    x: 1 # x\n    y: 2\nb: 2\n", ("a",), {"z": 3}, "a:\n    z: 3\nb: 2\n"),
        ("a: # about a\n  x: 1\nb: 2\n", ("a",), 5, "a: 5 # about a\nb: 2\n"),
        ("a:\n- 1\n- 2 # two\nb: 2\n", ("a", 1), 3, "a:\n- 1\n- 3 # two\nb: 2\n"),
        ("a:\n  - x: 1\n    y: 2\n  - 3\n", ("a", 0), "s", "a:\n  - s\n  - 3\n"),
        ("a:\n  - 1\n  - 3\n", ("a", -1), {"k": "v"}, "a:\n  - 1\n  - k: v\n"),
        ("a: |\n  text\nb: 2\n", ("a",), "one", "a: one\nb: 2\n"),
        ("a: 'q'\r\nb: [1, 2]\r\n", ("b",), {"c": 1}, "a: 'q'\r\nb:\r\n  c: 1\r\n"),
        ("a: 1\nb: 2", ("b",), [], "a: 1\nb: []"),
        ("a: 1\nb: 2", ("b",), [1], "a: 1\nb:\n  - 1"),
        ("l:\n- a: 1\n  b: 2\n", ("l", 0, "b"), 3, "l:\n- a: 1\n  b: 3\n"),
    ],
)
def test_replacing_splices_only_the_value(before: str, path: tuple[str | int, ...], value: Any, after: str) -> None:
    doc = YamlDocument.parse(before)
    doc.set(path, value)
    assert doc.text == after
    assert YamlDocument.parse(after).get(path) == value


@pytest.mark.parametrize(
    ("text", "path", "error", "reason"),
    [
        ("a: &x 1\nb: 2\n", ("a",), MalformedConfigError, "anchor, alias or tag"),
        ("a: !!str 1\n", ("a",), MalformedConfigError, "anchor, alias or tag"),
        ("a:\nb: 2\n", ("a",), MalformedConfigError, "a key without a value"),
        ("l:\n- - 1\n  - 2\n", ("l", 0, 0), MalformedConfigError, "shares its line"),
        ("l:\n- 1\n", ("l", 3), KeyError, "('l', 3)"),
        ("a: 1\n", (), MalformedConfigError, "whole document"),
    ],
)
def test_a_value_it_cannot_splice_is_refused_and_the_text_stays(
    text: str, path: tuple[str | int, ...], error: type[Exception], reason: str
) -> None:
    doc = YamlDocument.parse(text)
    with pytest.raises(error, match=re.escape(reason)):
        doc.set(path, [9])
    assert doc.text == text


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("a: [1\n", "config.yaml:2:1: invalid YAML"),
        ("- 1\n- 2\n", "the top level must be a YAML mapping"),
        ("a: 1\n---\nb: 2\n", "invalid YAML"),
        ("a:\n\tb: 1\n", "invalid YAML"),
        ("a: 1\nb: x\x00y\n", "config.yaml:2:5: invalid YAML: the character U+0000 is not allowed"),
        ("a: \x85\x07\n", "config.yaml:1:5: invalid YAML: the character U+0007 is not allowed"),
    ],
)
def test_malformed_text_is_refused_with_its_place(text: str, message: str) -> None:
    with pytest.raises(MalformedConfigError) as caught:
        YamlDocument.parse(text, path="config.yaml")
    assert message in str(caught.value)


@pytest.mark.parametrize(
    ("rendered", "reason"), [("hooks: [\n", "would not be valid YAML"), ("hooks: 11\n", "would not read back")]
)
def test_an_edit_that_would_not_read_back_is_refused(
    monkeypatch: pytest.MonkeyPatch, rendered: str, reason: str
) -> None:
    """The splice is checked by reading it again: a wrong rendering never reaches the text."""
    from elydora_config.yaml import _render as render

    monkeypatch.setattr(render, "entry", lambda *args: [rendered.rstrip("\n")])
    doc = YamlDocument.parse("a: 1\n")
    with pytest.raises(MalformedConfigError, match=reason):
        doc.set(("hooks",), {"pre_tool_call": [ENTRY]})
    assert doc.text == "a: 1\n" and doc.value == {"a": 1}


def test_strings_that_would_read_as_something_else_are_quoted() -> None:
    doc = YamlDocument.parse("")
    values = {"yes": "yes", "null": "null", "num": "10", "colon": "a: b", "plain": "notify-send", "n": "N"}
    doc.set(("s",), values)
    assert yaml.safe_load(doc.text) == {"s": values}
    assert "plain: notify-send" in doc.text and 'yes: "yes"' not in doc.text.replace('"yes": "yes"', "")


KEYS = st.text(alphabet="abcdefgh_", min_size=1, max_size=6)
SCALARS = st.one_of(st.integers(-5, 5), st.booleans(), st.none(), st.text(max_size=12))


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(KEYS, SCALARS, min_size=1, max_size=4), st.lists(SCALARS, max_size=3), SCALARS)
def test_any_scalar_data_round_trips(existing: dict[str, object], items: list[object], extra: object) -> None:
    """A user's mapping (written by us, so any scalars), then our sequence added and removed again."""
    base = YamlDocument.parse("")
    base.set(("user",), existing)
    before = base.text
    doc = YamlDocument.parse(before)
    doc.set(("ours",), [*items, extra])
    assert yaml.safe_load(doc.text) == {"user": existing, "ours": [*items, extra]}
    for index in reversed(range(len(items) + 1)):
        doc.remove(("ours", index))
    doc.remove(("ours",))
    assert doc.text == before


VALUES = st.one_of(SCALARS, st.lists(SCALARS, max_size=3), st.dictionaries(KEYS, SCALARS, max_size=3))


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(KEYS, VALUES, min_size=2, max_size=4), st.data())
def test_replacing_a_value_changes_only_its_own_lines(existing: dict[str, object], data: st.DataObject) -> None:
    """Any value replaced by any other: the data reads back, and the entries before it keep their text."""
    doc = YamlDocument.parse("")
    doc.set(("user",), existing)
    keys = list(existing)
    key = data.draw(st.sampled_from(keys))
    new = data.draw(VALUES)
    head = doc.text[: doc.text.index(f"\n  {key}:") if keys.index(key) else 0]
    doc.set(("user", key), new)
    assert yaml.safe_load(doc.text) == {"user": {**existing, key: new}}
    assert doc.text.startswith(head)
    assert list(doc.value["user"]) == keys  # the key stays where it was
