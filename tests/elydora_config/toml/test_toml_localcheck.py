"""Span edits proved by parsing only what changed: taken for the two shapes it can prove, refused for the rest."""

from __future__ import annotations

import sys
from typing import Any

import pytest

from elydora_config.toml import TomlDocument
from elydora_config.toml import _editing as editing
from elydora_config.toml._localcheck import NOT_LOCAL, appended_table, swapped_value
from elydora_config.toml._scanner import scan
from elydora_config.toml._spans import SpanEditor

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

CONFIG = (
    "# settings\n"
    'model = "k3"  # default\n'
    "\n"
    "[providers.a]\n"
    "max_tokens = 1000\n"
    'models = ["s", "l"]\n'
    "\n"
    "[[hooks]]\n"
    'event = "PostToolUse"\n'
    "timeout = 30\n"
    "\n"
    "[providers.b]\n"
    "max_tokens = 2000\n"
    "\n"
    "[[hooks]]\n"
    'event = "Stop"\n'
)


def _editor(text: str) -> SpanEditor:
    return SpanEditor(scan(text))


@pytest.fixture
def whole_parses(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The sizes of the texts an edit parses whole from here on."""
    sizes: list[int] = []

    def counting(text: str) -> dict[str, Any]:
        sizes.append(len(text))
        return dict(tomllib.loads(text))

    monkeypatch.setattr(editing, "loads", counting)
    return sizes


def test_a_value_set_in_place_is_proved_without_parsing_the_document(whole_parses: list[int]) -> None:
    doc = TomlDocument.parse(CONFIG)
    whole_parses.clear()
    doc.set(("providers", "b", "max_tokens"), 4096)
    doc.set(("model",), "k4")
    assert whole_parses == []
    assert doc.text == CONFIG.replace("2000", "4096").replace('"k3"', '"k4"')
    assert tomllib.loads(doc.text) == doc.value
    assert doc.value["providers"]["b"]["max_tokens"] == 4096


def test_a_table_appended_to_an_array_of_tables_is_proved_without_parsing_the_document(
    whole_parses: list[int],
) -> None:
    doc = TomlDocument.parse(CONFIG)
    whole_parses.clear()
    doc.append_table(("hooks",), {"event": "PreToolUse", "timeout": 10})
    assert whole_parses == []
    assert doc.text.startswith(CONFIG)
    assert tomllib.loads(doc.text) == doc.value
    assert doc.value["hooks"][-1] == {"event": "PreToolUse", "timeout": 10}


def test_other_edits_still_parse_the_whole_new_text(whole_parses: list[int]) -> None:
    doc = TomlDocument.parse(CONFIG)
    whole_parses.clear()
    doc.set(("providers", "c"), {"max_tokens": 1})  # a new table: not one of the two local shapes
    doc.insert(("hooks",), 0, {"event": "First"})  # not an append
    assert len(whole_parses) == 2
    assert tomllib.loads(doc.text) == doc.value


def test_swapped_value_refuses_a_splice_that_is_not_exactly_the_value() -> None:
    editor = _editor(CONFIG)
    path = ("providers", "a", "max_tokens")
    entry = editor.covering_entry(path)
    assert entry is not None
    start, end = entry.value_start, entry.value_end
    assert swapped_value(editor, [(start, end, "7")], path, 1000, 7) == 7
    assert swapped_value(editor, [(start - 1, end, " 7")], path, 1000, 7) is NOT_LOCAL
    assert swapped_value(editor, [(start, end + 1, "7\n")], path, 1000, 7) is NOT_LOCAL
    assert swapped_value(editor, [(start, end, "8")], path, 1000, 7) is NOT_LOCAL  # decodes to another value
    assert swapped_value(editor, [(start, end, "7 8")], path, 1000, 7) is NOT_LOCAL  # not one value
    assert swapped_value(editor, [(start, end, "7")], path, 999, 7) is NOT_LOCAL  # the span held another value
    assert swapped_value(editor, [(start, end, "7"), (0, 0, "")], path, 1000, 7) is NOT_LOCAL


def test_appended_table_refuses_a_block_a_later_section_would_join() -> None:
    text = "[[a]]\nx = 1\n\n[b]\ny = 2\n\n[a.sub]\nz = 1\n"  # [a.sub] belongs to the last [[a]]
    editor = _editor(text)
    before_b = text.index("[b]")
    assert appended_table(editor, [(before_b, before_b, "[[a]]\nq = 1\n\n")], ("a",), {"q": 1}) is NOT_LOCAL
    assert appended_table(editor, [(len(text), len(text), "\n[[a]]\nq = 1\n")], ("a",), {"q": 1}) == {"q": 1}
    doc = TomlDocument.parse(text)
    doc.append_table(("a",), {"q": 1})
    assert tomllib.loads(doc.text)["a"] == [{"x": 1, "sub": {"z": 1}}, {"q": 1}]


def test_appended_table_refuses_what_does_not_parse_alone_to_one_new_table() -> None:
    text = "k = 1\n\n[[a]]\nx = 1\n"
    editor = _editor(text)
    end = len(text)
    assert appended_table(editor, [(0, 0, "[[a]]\nq = 1\n")], ("a",), {"q": 1}) is NOT_LOCAL  # `k` would join it
    assert appended_table(editor, [(end, end, "\nk2 = 1\n[[a]]\nq = 1\n")], ("a",), {"q": 1}) is NOT_LOCAL
    assert appended_table(editor, [(end, end, "\n[[a]]\nq = 2\n")], ("a",), {"q": 1}) is NOT_LOCAL
    assert appended_table(editor, [(end, end, "\n[[a]]\nq = 1\n[[a]]\n")], ("a",), {"q": 1}) is NOT_LOCAL
    assert appended_table(editor, [(end - 1, end - 1, "\n[[a]]\nq = 1\n")], ("a",), {"q": 1}) is NOT_LOCAL
    assert appended_table(editor, [(end, end, "\n[[a]]\nq = 1\n")], ("a",), {"q": 1}) == {"q": 1}
