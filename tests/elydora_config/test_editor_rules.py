"""One rule per verb for the three editors (docs/editors.md, "One rule per verb"): ``set`` creates missing
parents, ``insert`` appends with -1, and a path that names nothing is a ``KeyError``, in JSONC, TOML and YAML."""

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
