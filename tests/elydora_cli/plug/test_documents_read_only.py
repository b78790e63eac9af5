"""A read-only parse (``status``) of a plain JSON file is the library's read-only loader; the dialect of the
file's format decides about comments, and any other text is the editor's, with the editor's error."""

from __future__ import annotations

from pathlib import Path

import pytest

from elydora_cli.plug.contract import Format
from elydora_cli.plug.documents import parse
from elydora_config.errors import MalformedConfigError
from elydora_config.jsonc import JsoncDocument
from elydora_config.jsonc.readonly import ReadOnlyJson

HEADER = "// Managed by Elydora\n"


@pytest.mark.parametrize("fmt", [Format.JSONC, Format.JSONC_NO_TRAILING_COMMAS])
def test_a_plain_file_is_read_without_the_editor(fmt: Format) -> None:
    doc = parse(HEADER + '{"a": [1, 2]}', fmt, Path("s.json"), read_only=True)
    assert isinstance(doc._doc, ReadOnlyJson) and doc._doc._editor is None
    assert doc.get(["a", -1]) == 2 and doc.value == {"a": [1, 2]}
    assert isinstance(parse('{"a": 1}', fmt, Path("s.json"))._doc, JsoncDocument)  # an editing pass: the editor


def test_comments_count_only_where_the_dialect_allows_them() -> None:
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


def test_a_text_only_the_editor_takes_is_the_editors() -> None:
    doc = parse('{"a": [1,], /* c */ "b": 2}', Format.JSONC, Path("s.json"), read_only=True)
    assert isinstance(doc._doc, JsoncDocument) and doc.get(["a"]) == [1]
