"""Read-only JSON documents answer as the JSONC editor would: the same data, the same missing paths, and
every text the fast decoder does not take is left to the editor (which reports the error)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from elydora_cli.plug.contract import Format
from elydora_cli.plug.documents import parse
from elydora_cli.plug.plainjson import ReadOnlyJson, loads_strict
from elydora_config.errors import MalformedConfigError
from elydora_config.jsonc import JSONC, STRICT_JSON, JsoncDocument

HEADER = "// Managed by Elydora\n"
SETTINGS = '{"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": "x"}]}]}, "n": 1.5}'


@pytest.mark.parametrize(
    "text",
    [
        SETTINGS,
        HEADER + SETTINGS,
        "  // indented\r\n" + SETTINGS + "\n// last line\n",
        '{"url": "http://example.com//path", "a": [true, null, -0.0, 1e5]}',
    ],
)
def test_plain_texts_decode_to_the_editors_data(text: str) -> None:
    assert loads_strict(text, comments=True) == JsoncDocument.parse(text, JSONC).value


@pytest.mark.parametrize(
    "text",
    [
        '{"a": 1, "a": 2}',  # duplicate key: the editor reports it
        '{"a": NaN}',
        '{"a": Infinity}',
        '{"a": "tab\tinside"}',
        '{"a": 1,}',  # trailing comma (allowed by JSONC: the editor decides)
        '{"a": 1 /* block */}',
        '{"a": 1} // after a value',
        '{"a": "/*"}\n// comment',  # a block comment may be anywhere: not guessed
        "\ufeff{}",
        "[1, 2]",  # not an object
        "",
    ],
)
def test_anything_else_is_left_to_the_editor(text: str) -> None:
    assert loads_strict(text, comments=True) is None


def test_comments_count_only_where_the_dialect_allows_them() -> None:
    assert loads_strict(HEADER + "{}", comments=False) is None
    with pytest.raises(MalformedConfigError):
        parse(HEADER + "{}", Format.JSON, Path("settings.json"), read_only=True)


@pytest.mark.parametrize("text", ['{"a": 1, "a": 2}', '{"a": NaN}', "// c\n{\"a\": 1,,}", '{"a": 1 /* x */'])
def test_read_only_parse_reports_what_the_editor_reports(text: str) -> None:
    path = Path("settings.json")
    with pytest.raises(MalformedConfigError) as editor:
        parse(text, Format.JSONC, path)
    with pytest.raises(MalformedConfigError) as read_only:
        parse(text, Format.JSONC, path, read_only=True)
    assert read_only.value.message == editor.value.message


PATHS: list[tuple[Any, ...]] = [
    (),
    ("hooks",),
    ("hooks", "PreToolUse", 0, "hooks", -1, "command"),
    ("hooks", "PreToolUse", 5),
    ("hooks", "PreToolUse", -2),
    ("hooks", "PreToolUse", "0"),
    ("hooks", "PreToolUse", True),
    ("n", "deeper"),
    ("n", "deeper", "still"),
    ("missing", "x"),
    (0,),
]


@pytest.mark.parametrize("path", PATHS, ids=repr)
def test_reads_answer_as_the_editor_does(path: tuple[Any, ...]) -> None:
    text = HEADER + SETTINGS
    editor = JsoncDocument.parse(text, JSONC)
    doc = parse(text, Format.JSONC, Path("s.json"), read_only=True)
    assert isinstance(doc._doc, ReadOnlyJson)  # the fast path was taken
    assert doc.has(path) == editor.has(path)
    assert doc.get(path, "absent") == editor.get(path, "absent")
    try:
        expected: Any = editor.get(path)
    except KeyError as exc:
        with pytest.raises(KeyError) as found:
            doc.get(path)
        assert found.value.args == exc.args
    else:
        assert doc.get(path) == expected
    assert doc.text == text and doc._doc._editor is None  # no read loaded the editor


def test_values_read_are_copies_and_anything_else_goes_to_the_editor() -> None:
    doc = parse(SETTINGS, Format.JSON, Path("s.json"), read_only=True)
    doc.get(["hooks"])["PreToolUse"].clear()
    assert doc.get(["hooks", "PreToolUse", 0, "matcher"]) == "*"
    assert doc.span(["n"]) == JsoncDocument.parse(SETTINGS, STRICT_JSON).span(["n"])  # the editor, built now
    doc.set(["n"], 2)
    assert doc.value["n"] == 2 and doc.get(["n"]) == 2 and '"n": 2' in doc.text
