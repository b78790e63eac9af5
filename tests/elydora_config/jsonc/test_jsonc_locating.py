"""Locating along a path: containers walked only up to the member a path needs, and further when asked."""

from __future__ import annotations

import json
from typing import Any

import pytest

from elydora_config.jsonc import JSONC, STRICT_JSON, Dialect, JsoncDocument
from elydora_config.jsonc._layout import Style, render, render_scalar
from elydora_config.jsonc._located import NO_END, Container

TEXT = """{
  // settings
  "top": 1,
  "outer": {"inner": {
    "a": {"deep": [1, 2, 3, 4, 5, 6]},
    "b": [10, 20, 30, 40, 50],
    "c": "three", /* after c */
    "d": {"x": 1, "y": 2},
    "e": [true,],
  }},
  "tail": null
}
"""  # "outer" is located by the parse; "inner" (the third level) only by the paths that go through it
IN = ("outer", "inner")
MANY = Dialect("MANY", comments=True, trailing_commas=True, bom=True, duplicate_keys=True)


def _node(doc: JsoncDocument, *path: str | int) -> Container:
    """The located container at ``path`` (white box: the tree a set/get leaves behind)."""
    node = doc._root
    for element in path:
        assert node is not None
        node = node.members[node.keys[element]].node if isinstance(element, str) else node.members[element].node
    assert node is not None
    return node


def _fresh(text: str = TEXT, dialect: Dialect = JSONC, data: bool = False) -> JsoncDocument:
    return JsoncDocument.parse_bytes(text.encode(), dialect) if data else JsoncDocument.parse(text, dialect)


def _walk_everything(doc: JsoncDocument, path: tuple[str | int, ...] = ()) -> None:
    """Walk every container completely: an absent key in each object, the last element of each array."""
    value = doc.get(path)
    if isinstance(value, dict):
        assert not doc.has((*path, "\0absent"))
        for key in value:
            _walk_everything(doc, (*path, key))
    elif isinstance(value, list) and value:
        doc.get((*path, -1))
        for index in range(len(value)):
            _walk_everything(doc, (*path, index))


def _whole(text: str, dialect: Dialect, op: Any) -> str:
    """``op`` on a document whose every container was first walked completely."""
    doc = _fresh(text, dialect)
    _walk_everything(doc)
    assert _node(doc, "outer", "inner").complete
    op(doc)
    return doc.text


def test_a_walk_stops_at_the_member_the_path_needs_and_goes_on_in_place_when_asked() -> None:
    doc = _fresh()
    assert doc.get(("outer", "inner", "b", 1)) == 20
    inner = _node(doc, "outer", "inner")
    assert not inner.complete and inner.end == NO_END and [m.key for m in inner.members] == ["a", "b"]
    assert [m.value_start for m in _node(doc, *IN, "b").members] == [TEXT.index("20") - 4, TEXT.index("20")]
    assert doc.get(("outer", "inner", "d", "y")) == 2
    assert _node(doc, "outer", "inner") is inner and [m.key for m in inner.members] == ["a", "b", "c", "d"]
    assert doc.get(("outer", "inner", "b", -1)) == 50  # a negative index needs the whole array
    assert _node(doc, "outer", "inner", "b").complete
    assert not doc.has(("outer", "inner", "zz"))  # an absent key is known only after the last member
    assert inner.complete and TEXT[inner.end - 1] == "}"


@pytest.mark.parametrize("data", [False, True])
@pytest.mark.parametrize(
    "op",
    [
        lambda doc: doc.set(("outer", "inner", "new"), {"k": [1, 2]}),
        lambda doc: doc.set(("outer", "inner", "b"), [1, {"z": 2}]),
        lambda doc: doc.set(("outer", "inner", "a", "deep", 2), "x"),
        lambda doc: doc.remove(("outer", "inner", "b")),
        lambda doc: doc.remove(("outer", "inner", "e", 0)),
        lambda doc: doc.insert(("outer", "inner", "b"), -1, {"n": 1}),
        lambda doc: (doc.set((*IN, "a", "deep", 0), "longer value"), doc.set((*IN, "d", "x"), [7, 8])),
        lambda doc: (doc.get((*IN, "a")), doc.set((*IN, "e", 0), False), doc.remove((*IN, "d", "y"))),
    ],
)
def test_edits_on_partly_walked_containers_equal_those_on_whole_ones(data: bool, op: Any) -> None:
    doc = _fresh(data=data)
    doc.get(("outer", "inner", "a"))  # "inner" is now walked up to "a" only
    op(doc)
    assert doc.text == _whole(TEXT, JSONC, op)
    again = JsoncDocument.parse(doc.text, JSONC)
    assert again.value == doc.value


def test_a_walk_goes_on_at_the_shifted_offsets_after_an_edit_before_it() -> None:
    for data in (False, True):
        doc = _fresh(data=data)
        doc.set(("outer", "inner", "a", "deep", 0), "a much longer value than before")
        assert not _node(doc, "outer", "inner").complete
        doc.set(("outer", "inner", "d", "y"), 3)
        doc.set(("tail",), "end")
        expected = json.loads(json.dumps(JsoncDocument.parse(TEXT, JSONC).value))
        expected["outer"]["inner"]["a"]["deep"][0] = "a much longer value than before"
        expected["outer"]["inner"]["d"]["y"] = 3
        expected["tail"] = "end"
        assert doc.value == expected and JsoncDocument.parse(doc.text, JSONC).value == expected


def test_where_keys_may_repeat_the_walk_goes_on_to_find_the_last_one() -> None:
    text = '{"o": {"k": 1, "j": 2, "k": 3, "m": 4}, "k": 0}'
    doc = JsoncDocument.parse(text, MANY)
    assert doc.get(("o", "k")) == 3 and _node(doc, "o").complete
    doc.set(("o", "k"), 5)
    assert doc.text == '{"o": {"k": 1, "j": 2, "k": 5, "m": 4}, "k": 0}'
    strict = JsoncDocument.parse('{"o": {"k": 1, "j": 2, "m": 4}}', STRICT_JSON)
    assert strict.get(("o", "k")) == 1 and not _node(strict, "o").complete


def test_a_scalar_set_writes_what_a_styled_one_would() -> None:
    text = '{\n\t"a": {"b": "caf\\u00e9", "c": 1}\n}'
    for value in ("日本", 2.5, None, True, -3, "line\nbreak"):
        doc = JsoncDocument.parse(text, JSONC)
        doc.set(("a", "b"), value)
        assert doc.text == text.replace('"caf\\u00e9"', json.dumps(value, ensure_ascii=True))
        doc = JsoncDocument.parse(text.replace("\\u00e9", "\u00e9"), JSONC)
        doc.set(("a", "c"), value)
        assert doc.text == '{\n\t"a": {"b": "caf\u00e9", "c": ' + json.dumps(value, ensure_ascii=False) + "}\n}"


def test_the_style_is_read_off_the_whole_container_even_when_the_path_needed_only_its_first_member() -> None:
    doc = JsoncDocument.parse('{"o": {"p": {"a": [1],\n "b": 2,  "c": 3}}}', JSONC)
    doc.set(("o", "p", "a"), [1, 2])  # the separator is the one between "b" and "c"
    assert doc.text == '{"o": {"p": {"a": [1,  2],\n "b": 2,  "c": 3}}}'


@pytest.mark.parametrize("value", ["caf\u00e9 \U0001f600", "lone \ud800", 0.1, 1e300, -0.0, 10**30, True, None, ""])
def test_render_scalar_writes_what_render_writes_in_every_style(value: Any) -> None:
    for style in (Style(), Style(ensure_ascii=True), Style(unit="\t", key_sep=" : ", item_sep=",", eol="\r\n")):
        for base, pretty in (("", False), ("    ", True)):
            assert render_scalar(value, style.ensure_ascii) == render(value, style, base, pretty)
