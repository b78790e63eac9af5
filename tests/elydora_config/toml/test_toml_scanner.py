"""The structural scanner on hand-picked tricky text: value spans, header paths, comment ownership."""

from __future__ import annotations

import sys

import pytest

from elydora_config.toml._scanner import scan

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib  # type: ignore[import-not-found, no-redef, unused-ignore]

TRICKY_VALUES = [
    "x = ['''a'] # ''']",
    'x = ["""a"] # """]',
    "x = [\"\", '']",
    "x = {a = 'b', c = \"]\"}",
    'x = """\nline "" with ""quotes\\" and end"""""',
    "x = '''\n'it''s' '''''",
    "x = 1979-05-27 07:32:00Z # a date-time with a space",
    "x = 1979-05-27 # only a date",
    "x = [ # comment [with] {brackets}\n  1, # ]\n  [2, {y = 3}],\n]",
    'x = { a = [1, "]"], b = { c = "}" } }',
    "x = -inf",
    "x = 0xff_ff",
    "\"quoted . key\" = 'v'",
    "a . b . 'c d' = 1",
]


@pytest.mark.parametrize("line", TRICKY_VALUES)
@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_value_span_holds_exactly_the_value(line: str, newline: str) -> None:
    text = ("before = 1\n" + line + "  # tail\nafter = 2\n").replace("\n", newline)
    data = tomllib.loads(text)
    result = scan(text)
    entries = result.sections[0].entries
    assert len(entries) == 3 and entries[0].path == ("before",) and entries[2].path == ("after",)
    middle = entries[1]
    node = data
    for key in middle.path:
        node = node[key]
    assert tomllib.loads("v = " + text[middle.value_start : middle.value_end])["v"] == node
    assert text[middle.end - len(newline) : middle.end] == newline
    assert text[middle.end :].startswith("after")


def test_headers_paths_and_owned_comments() -> None:
    text = (
        "# file comment\n"
        "\n"
        "# owned by [[a]]\n"
        "[[a]]\n"
        "x = 1\n"
        "# trailing body comment\n"
        "\n"
        '[ a . "b c" ]  # header comment\n'
        "[[a]]\n"
        "[[a.d]]\n"
        "[a.d.e]\n"
    )
    sections = scan(text).sections
    assert [s.path for s in sections] == [
        (),
        ("a", 0),
        ("a", 0, "b c"),
        ("a", 1),
        ("a", 1, "d", 0),
        ("a", 1, "d", 0, "e"),
    ]
    root, first, sub = sections[0], sections[1], sections[2]
    assert text[first.lead : first.start] == "# owned by [[a]]\n"
    assert text[root.lead : root.end] == "# file comment\n\n"
    assert root.content_end == len("# file comment\n")
    assert text[first.start : first.content_end] == "[[a]]\nx = 1\n# trailing body comment\n"
    assert text[first.content_end : first.end] == "\n"
    assert sub.lead == sub.start and sub.keys == ("a", "b c")
    assert sections[3].lead == sections[3].start == sub.header_end


def test_no_final_newline_and_empty_text() -> None:
    assert scan("").sections[0].entries == []
    result = scan("[t]\nk = 'v'")
    entry = result.sections[1].entries[0]
    assert entry.end == len("[t]\nk = 'v'") and entry.path == ("t", "k")
