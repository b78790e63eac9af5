"""Named regressions (the cases where VS Code's jsonc-parser goes wrong) and edit semantics by example."""

from __future__ import annotations

import pytest

from elydora_config.jsonc import JSONC, JSONC_NO_TRAILING_COMMAS, STRICT_JSON, JsoncDocument


def edit(text: str, *ops: tuple[object, ...], dialect=JSONC) -> str:  # type: ignore[no-untyped-def]
    doc = JsoncDocument.parse(text, dialect)
    for op in ops:
        getattr(doc, str(op[0]))(*op[1:])
        assert JsoncDocument.parse(doc.text, dialect).value == doc.value
    return doc.text


# -- the jsonc-parser failures --------------------------------------------------------------------------


def test_append_after_last_property_with_same_line_comment() -> None:
    before = '{\n  "a": 1 // about a\n}\n'
    after = edit(before, ("set", ("b",), 2))
    assert after == '{\n  "a": 1, // about a\n  "b": 2\n}\n'
    assert edit(after, ("remove", ("b",))) == before


def test_append_after_last_property_with_same_line_block_comment_and_trailing_comma() -> None:
    before = '{\n  "a": 1, /* about a */\n}\n'
    assert edit(before, ("set", ("b",), 2)) == '{\n  "a": 1, /* about a */\n  "b": 2,\n}\n'


def test_remove_property_whose_following_line_is_the_next_propertys_comment() -> None:
    before = '{\n  "a": 1,\n  // about b\n  "b": 2\n}\n'
    assert edit(before, ("remove", ("a",))) == '{\n  // about b\n  "b": 2\n}\n'


def test_remove_last_property_keeps_the_previous_propertys_comment() -> None:
    before = '{\n  "a": 1, // about a\n  "b": 2 // about b\n}\n'
    assert edit(before, ("remove", ("b",))) == '{\n  "a": 1 // about a\n}\n'


def test_insert_into_tab_indented_file() -> None:
    before = '{\n\t"theme": "dark",\n\t"hooks": {\n\t\t"A": []\n\t}\n}\n'
    after = edit(before, ("set", ("hooks", "B"), [{"type": "command"}]))
    assert after == (
        '{\n\t"theme": "dark",\n\t"hooks": {\n\t\t"A": [],\n'
        '\t\t"B": [\n\t\t\t{\n\t\t\t\t"type": "command"\n\t\t\t}\n\t\t]\n\t}\n}\n'
    )


def test_insert_into_one_line_empty_object_file() -> None:
    assert edit("{}", ("set", ("a",), {"b": [1, 2]})) == '{"a": {"b": [1, 2]}}'
    assert edit("{}\n", ("set", ("a",), 1), ("remove", ("a",))) == "{}\n"


def test_insert_into_one_line_empty_array_file() -> None:
    assert edit("[]", ("insert", (), 0, {"b": 1})) == '[{"b": 1}]'
    assert edit("[]", ("insert", (), -1, 1), ("insert", (), -1, 2)) == "[1, 2]"


def test_insert_into_one_line_empty_containers_inside_a_pretty_file() -> None:
    before = '{\r\n\t"theme": "dark",\r\n\t"hooks": {},\r\n\t"list": []\r\n}\r\n'
    after = edit(before, ("set", ("hooks", "Pre"), []), ("insert", ("list",), 0, "x"))
    assert after == (
        '{\r\n\t"theme": "dark",\r\n\t"hooks": {\r\n\t\t"Pre": []\r\n\t},\r\n\t"list": [\r\n\t\t"x"\r\n\t]\r\n}\r\n'
    )
    assert edit(after, ("remove", ("hooks", "Pre")), ("remove", ("list", 0))) == before


def test_insert_into_crlf_file_uses_crlf_everywhere() -> None:
    before = '{\r\n  "a": {\r\n    "b": 1\r\n  }\r\n}\r\n'
    after = edit(before, ("set", ("a", "c"), {"d": [True]}))
    assert after == (
        '{\r\n  "a": {\r\n    "b": 1,\r\n    "c": {\r\n      "d": [\r\n        true\r\n      ]\r\n    }\r\n  }\r\n}\r\n'
    )
    assert "\n" not in after.replace("\r\n", "")


def test_line_ending_comes_from_the_neighbouring_lines_in_a_mixed_file() -> None:
    before = '{\n  "lf": {\n    "a": 1\n  },\r\n  "crlf": {\r\n    "a": 1\r\n  }\r\n}\n'
    after = edit(before, ("set", ("crlf", "b"), 2))
    assert '"a": 1,\r\n    "b": 2\r\n' in after


# -- removal ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("before", "path", "after"),
    [
        ("[1, 2, 3]", (1,), "[1, 3]"),
        ("[1, 2, 3]", (2,), "[1, 2]"),
        ("[1, 2, 3]", (0,), "[2, 3]"),
        ("[1,2,3]", (2,), "[1,2]"),
        ("[1, 2, 3,]", (2,), "[1, 2,]"),
        ("[1, /* c */ 2]", (0,), "[2]"),
        ("[1 /* c */, 2]", (1,), "[1 /* c */]"),
        ('{"a": 1}', ("a",), "{}"),
        ('{ "a": 1 }', ("a",), "{ }"),
        ('{\n  "a": 1\n}', ("a",), "{}"),
        ('{\n  // about a\n  "a": 1\n}', ("a",), "{}"),  # its comment line goes with it
        ('{\n  // keep\n\n  "a": 1\n}', ("a",), "{\n  // keep\n}"),  # a blank line between: not its own
        ('{\n  "a": 1, // a\n  "b": 2, // b\n  "c": 3 // c\n}', ("b",), '{\n  "a": 1, // a\n  "c": 3 // c\n}'),
        ('{\n  "a": 1,\n  "b": 2 }', ("b",), '{\n  "a": 1 }'),
        ('{ "x": 0, "a": 1,\n  "b": 2 }', ("a",), '{ "x": 0,\n  "b": 2 }'),
        ("[\n  1\n  , 2\n]", (1,), "[\n  1\n]"),
        ('{"a": [{"b": 1},\n    {"c": 2}\n  ]}', ("a", 1), '{"a": [{"b": 1}]}'),
    ],
)
def test_remove_examples(before: str, path: tuple[object, ...], after: str) -> None:
    assert edit(before, ("remove", path)) == after


def test_remove_never_joins_a_line_comment_with_what_follows() -> None:
    before = '{\n  "a": 1, // about a\n  "b": 2 }'
    assert edit(before, ("remove", ("b",))) == '{\n  "a": 1 // about a\n }'


# -- insertion -------------------------------------------------------------------------------------------


def test_insert_before_an_element_goes_above_its_own_line_comments() -> None:
    before = "[\n  // first\n  1,\n  2\n]"
    after = edit(before, ("insert", (), 0, 0))
    assert after == "[\n  0,\n  // first\n  1,\n  2\n]"
    assert edit(after, ("remove", (0,))) == before


def test_insert_in_the_middle_of_an_inline_array() -> None:
    assert edit("[1, 3]", ("insert", (), 1, 2)) == "[1, 2, 3]"


def test_one_line_array_in_a_pretty_file_opens_up_below_for_a_multi_line_value() -> None:
    before = '{\n  "hooks": [{ "a": 1 }]\n}\n'
    after = edit(before, ("insert", ("hooks",), -1, {"b": 2}))
    assert after == '{\n  "hooks": [{ "a": 1 },\n    {\n      "b": 2\n    }\n  ]\n}\n'
    assert edit(after, ("remove", ("hooks", 1))) == before


def test_scalars_join_a_one_line_array_on_its_line() -> None:
    assert edit('{\n  "e": [null]\n}', ("insert", ("e",), -1, None)) == '{\n  "e": [null, null]\n}'


def test_separators_and_spacing_follow_the_file() -> None:
    assert edit('{"a":1,"b":2}', ("set", ("c",), [1, {"d": 2}])) == '{"a":1,"b":2,"c":[1,{"d":2}]}'
    assert edit('{\n  "a" : 1\n}', ("set", ("b",), {"c": 1})) == '{\n  "a" : 1,\n  "b" : {\n    "c" : 1\n  }\n}'


def test_trailing_comma_style_is_kept_when_appending() -> None:
    assert edit("[\n  1,\n]", ("insert", (), -1, 2)) == "[\n  1,\n  2,\n]"


def test_replacing_a_value_keeps_its_layout_style() -> None:
    before = '{\n  "one-line": [1, 2],\n  "multi": {\n    "x": 1\n  },\n  "scalar": 0\n}'
    after = edit(
        before, ("set", ("one-line",), [3, 4]), ("set", ("multi",), {"y": 2}), ("set", ("scalar",), {"z": [1]})
    )
    assert after == (
        '{\n  "one-line": [3, 4],\n  "multi": {\n    "y": 2\n  },\n  "scalar": {\n    "z": [\n      1\n    ]\n  }\n}'
    )


def test_replacing_the_top_level_value() -> None:
    doc = JsoncDocument.parse("// header\n[1]\n", JSONC)
    doc.set((), {"a": 1})
    assert doc.text == '// header\n{"a": 1}\n'
    assert doc.value == {"a": 1}


# -- values, numbers, escaping ---------------------------------------------------------------------------


def test_numbers_keep_their_type_and_unedited_text() -> None:
    text = '{"int": 30, "float": 30.0, "exp": 1.0e5, "neg": -0, "big": 123456789012345678901234567890}'
    doc = JsoncDocument.parse(text, STRICT_JSON)
    value = doc.value
    assert value["int"] == 30 and type(value["int"]) is int
    assert value["float"] == 30.0 and type(value["float"]) is float
    assert value["big"] == 123456789012345678901234567890
    doc.set(("int",), 31)
    assert doc.text == text.replace('"int": 30', '"int": 31')
    doc.set(("new",), 2.0)
    assert doc.text.endswith('"new": 2.0}') and type(doc.get(("new",))) is float


def test_non_ascii_is_written_raw_unless_the_file_escapes_it() -> None:
    assert edit('{"a": "caf\u00e9"}', ("set", ("b",), "\u00e9")) == '{"a": "caf\u00e9", "b": "\u00e9"}'
    escaped = '{"a": "caf\\u00e9"}'
    assert edit(escaped, ("set", ("b",), "\u00e9")) == '{"a": "caf\\u00e9", "b": "\\u00e9"}'


def test_lone_surrogates_are_read_and_written_as_escapes() -> None:
    doc = JsoncDocument.parse('["\\ud800"]', STRICT_JSON)
    assert doc.value == ["\ud800"]
    doc.insert((), -1, "x\udc00")
    assert doc.text == '["\\ud800", "x\\udc00"]'
    doc.to_bytes()  # encodable: the surrogate is escaped, never written raw


def test_bad_values_are_refused_before_any_change() -> None:
    doc = JsoncDocument.parse('{"a": 1}', STRICT_JSON)
    with pytest.raises(TypeError):
        doc.set(("b",), {1: "x"})
    with pytest.raises(ValueError, match="nan"):
        doc.set(("b",), float("nan"))
    with pytest.raises(TypeError):
        doc.set(("b",), {1, 2})
    assert doc.text == '{"a": 1}' and doc.edits == ()


# -- paths -----------------------------------------------------------------------------------------------


def test_get_and_paths() -> None:
    doc = JsoncDocument.parse('{"a": [10, {"b": null}], "s": "x"}', STRICT_JSON)
    assert doc.get(("a", -1, "b")) is None
    assert doc.get(("a", 0)) == 10
    assert doc.get(("missing",), "dflt") == "dflt"
    assert doc.has(("a", 1, "b")) and not doc.has(("a", 2))
    for bad in (("missing",), ("a", 5), ("a", "0"), ("s", 0), ("a", True)):
        with pytest.raises(KeyError):
            doc.get(bad)
    assert doc.text[slice(*doc.span(("s",)))] == '"x"'
    assert doc.text[slice(*doc.entry_span(("s",)))] == '"s": "x"'


def test_edit_argument_errors() -> None:
    doc = JsoncDocument.parse('{"a": [1], "o": {}}', STRICT_JSON)
    with pytest.raises(KeyError):
        doc.set(("nope", 0, "x"), 1)  # a missing parent object is created, a missing array never
    with pytest.raises(KeyError):
        doc.set(("a", 1), 2)  # use insert to add elements
    with pytest.raises(IndexError):
        doc.insert(("a",), 3, 2)
    with pytest.raises(TypeError):
        doc.insert(("o",), 0, 2)
    with pytest.raises(ValueError):
        doc.remove(())
    with pytest.raises(KeyError):
        doc.remove(("a", 1))
    assert doc.edits == ()


def test_edits_and_undo() -> None:
    text = '{\n  "a": 1 // c\n}'
    doc = JsoncDocument.parse(text, JSONC)
    first = doc.set(("b",), [1])
    second = doc.remove(("a",))
    assert [e.op for e in doc.edits] == ["set", "remove"]
    assert first.apply(text) == second.revert(doc.text)
    assert doc.undo() is second and doc.undo() is first
    assert doc.text == text
    with pytest.raises(IndexError):
        doc.undo()


def test_many_edits_keep_the_located_tree_in_step() -> None:
    text = '{\n  "x": {"deep": [1, 2]},\n  "y": [\n    {"z": 1}\n  ],\n  "w": 0\n}'
    doc = JsoncDocument.parse(text, STRICT_JSON)
    doc.get(("x", "deep"))
    doc.get(("y", 0, "z"))
    doc.set(("x", "deep", 0), "longer value")
    doc.insert(("y",), 0, {"new": True})
    doc.set(("y", 1, "z"), 2)
    doc.remove(("x", "deep", 1))
    doc.set(("w",), {"k": "v"})
    expected = {"x": {"deep": ["longer value"]}, "y": [{"new": True}, {"z": 2}], "w": {"k": "v"}}
    assert doc.value == expected
    assert JsoncDocument.parse(doc.text, STRICT_JSON).value == expected


# -- dialect rules and error reports ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "dialect", "line", "column", "reason"),
    [
        ('{"a": 1,}', STRICT_JSON, 1, 8, "a trailing comma is not allowed: the file is read as strict JSON; remove it"),
        ('{\n  "a": [1,\n  ]\n}', JSONC_NO_TRAILING_COMMAS, 2, 10, "read as JSON with comments but no trailing commas"),
        ('{"a": 1, "a": 2}', JSONC, 1, 10, "duplicate key 'a'"),
        ('{"x": [{"a": 1, "b": 2, "a": 3}]}', STRICT_JSON, 1, 25, "duplicate key 'a'"),
        ('{"x": [{"a": 1, "a": 2}]}', STRICT_JSON, 1, 17, "duplicate key 'a'"),  # two keys: compared directly
        ('{"x": {"y": {"k": 1, "k": 2}}, "z": {"k": 1, "j": 2}}', JSONC, 1, 22, "duplicate key 'k'"),
        ('{"a": "tab\there"}', JSONC, 1, 11, "control character U+0009"),
        ('{"a": "line\nbreak"}', JSONC, 1, 12, "control character U+000A"),
        ('{"a": NaN}', JSONC, 1, 7, "NaN is not a JSON number"),
        ('{"a": -Infinity}', STRICT_JSON, 1, 7, "-Infinity is not a JSON number"),
        ('{"a": 1 // c\n}', STRICT_JSON, 1, 9, "a comment is not allowed: the file is read as strict JSON; remove it"),
        ('{"a": 1 /* c }', JSONC, 1, 9, "unterminated block comment"),
        ("", JSONC, 1, 1, "no JSON value: the file is empty or holds only whitespace or comments; write one"),
        ("  // only a comment\n", JSONC, 2, 1, "the file is empty or holds only whitespace or comments"),
        ("\ufeff{}", STRICT_JSON, 1, 1, "read as strict JSON; save it as UTF-8 without a BOM"),
        ('{"a": 1} x', JSONC, 1, 10, "after the top-level value"),
        ('{"a": 01}', JSONC, 1, 8, "malformed number"),
        ('{"a": "\\x"}', JSONC, 1, 8, "invalid escape"),
        ('{"a": "open}', JSONC, 1, 7, "unterminated string"),
        ("\r\n\r\n  [1 2]", JSONC, 3, 6, "expected ',' or ']'"),
    ],
)
def test_malformed_texts_are_reported_with_line_column_and_reason(
    text: str, dialect: object, line: int, column: int, reason: str
) -> None:
    from elydora_config.errors import MalformedConfigError

    with pytest.raises(MalformedConfigError) as caught:
        JsoncDocument.parse(text, dialect, path="/home/u/settings.json")  # type: ignore[arg-type]
    error = caught.value
    assert (error.line, error.column) == (line, column), error.message
    assert reason in error.reason
    assert error.path == "/home/u/settings.json"
    assert str(error).startswith(f"/home/u/settings.json:{line}:{column}: ")


def test_bom_is_kept_in_jsonc_and_edits_keep_it() -> None:
    data = b'\xef\xbb\xbf{\n  "a": 1\n}\n'
    doc = JsoncDocument.parse_bytes(data, JSONC)
    assert doc.value == {"a": 1}
    doc.set(("b",), 2)
    assert doc.to_bytes() == b'\xef\xbb\xbf{\n  "a": 1,\n  "b": 2\n}\n'


def test_invalid_utf8_is_a_malformed_config() -> None:
    from elydora_config.errors import MalformedConfigError

    with pytest.raises(MalformedConfigError, match="invalid UTF-8 at byte 10") as caught:
        JsoncDocument.parse_bytes(b'{\n  "a": "\xff"}', JSONC)
    assert (caught.value.line, caught.value.column) == (2, 9)


def test_very_deep_nesting_is_scanned_without_recursion_errors() -> None:
    depth = 50_000
    doc = JsoncDocument.parse("[" * depth + "]" * depth, STRICT_JSON)
    value = doc.value
    for _ in range(depth - 1):
        value = value[0]
    assert value == []
    doc.insert((), 0, 1)
    assert doc.text.startswith("[1, [[")


@pytest.mark.parametrize(
    ("text", "column"),
    [
        ('{"a": {/* c */,}}', 15),  # a comment hid that no member stands before the comma
        ('{"a": [/* c */,]}', 15),
        ('{"a": {"b": 1, /* c */ ,}}', 24),  # two commas, a comment between them
        ('{"k": {/* a *"" : null /* b */ ,},}', 32),  # an unclosed-looking comment swallowing a member
    ],
)
def test_a_comma_after_an_opening_bracket_is_not_a_trailing_comma_behind_a_comment(text: str, column: int) -> None:
    from elydora_config.errors import MalformedConfigError

    with pytest.raises(MalformedConfigError) as caught:
        JsoncDocument.parse(text, JSONC)
    assert (caught.value.line, caught.value.column) == (1, column)


def test_a_trailing_comma_behind_a_comment_is_still_allowed() -> None:
    assert JsoncDocument.parse('{"a": [1, /* c */], "b": {"c": 2 /* d */ ,}}', JSONC).value == {"a": [1], "b": {"c": 2}}
