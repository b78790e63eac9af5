"""tomlkit writes silently wrong data in some edits (tomlkit#556, tomlkit#588): a table added under a
dotted key captures the keys written after it. TomlDocument must never pass such text on: the span
editor makes these edits correctly, and when the tomlkit fallback is used it is caught and refused."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import pytest
import tomlkit

from elydora_config.errors import MalformedConfigError
from elydora_config.toml import TomlDocument
from elydora_config.toml._scanner import ScanError
from elydora_config.toml._spans import SpanEditor

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib  # type: ignore[import-not-found, no-redef, unused-ignore]

# (source text, edit on a tomlkit document, the same edit as a TomlDocument call, intended data)
CASES: dict[str, tuple[str, Callable[[Any], None], Callable[[TomlDocument], None], dict[str, Any]]] = {
    "tomlkit#588 table under a dotted key captures the next key": (
        "a.b = 1\nz = 2\n",
        lambda doc: doc["a"].__setitem__("new", {"x": 1}),
        lambda doc: doc.set(("a", "new"), {"x": 1}),
        {"a": {"b": 1, "new": {"x": 1}}, "z": 2},
    ),
    "tomlkit#556 dotted key replaced by a table captures its siblings": (
        "a.b = 1\na.c = 2\na.d = 3\n",
        lambda doc: doc["a"].__setitem__("b", {"x": 9}),
        lambda doc: doc.set(("a", "b"), {"x": 9}),
        {"a": {"b": {"x": 9}, "c": 2, "d": 3}},
    ),
}


def _tomlkit_result(source: str, edit: Callable[[Any], None]) -> Any:
    doc = tomlkit.parse(source)
    edit(doc)
    try:
        return tomllib.loads(tomlkit.dumps(doc))
    except tomllib.TOMLDecodeError:
        return "<invalid TOML>"


@pytest.mark.parametrize("case", sorted(CASES))
def test_tomlkit_alone_writes_wrong_data(case: str) -> None:
    source, tomlkit_edit, _, intended = CASES[case]
    result = _tomlkit_result(source, tomlkit_edit)
    if result == intended:
        pytest.skip(f"tomlkit {tomlkit.__version__} no longer reproduces {case}")
    assert result != intended


@pytest.mark.parametrize("case", sorted(CASES))
def test_span_editor_makes_the_edit_correctly(case: str) -> None:
    source, _, edit, intended = CASES[case]
    doc = TomlDocument.parse(source)
    edit(doc)
    assert doc._last_engine == "span"
    assert tomllib.loads(doc.text) == intended
    assert doc.value == intended


@pytest.mark.parametrize("case", sorted(CASES))
def test_wrong_tomlkit_output_is_refused(case: str, monkeypatch: pytest.MonkeyPatch) -> None:
    source, tomlkit_edit, edit, intended = CASES[case]
    if _tomlkit_result(source, tomlkit_edit) == intended:
        pytest.skip(f"tomlkit {tomlkit.__version__} no longer reproduces {case}")

    def unsupported(*args: object, **kwargs: object) -> None:
        raise ScanError("forced fallback")

    monkeypatch.setattr(SpanEditor, "add", unsupported)
    monkeypatch.setattr(SpanEditor, "replace", unsupported)
    doc = TomlDocument.parse(source, path="config.toml")
    with pytest.raises(MalformedConfigError) as caught:
        edit(doc)
    assert "different data" in str(caught.value) or "would not parse" in str(caught.value)
    assert caught.value.path == "config.toml"
    assert doc.text == source  # nothing was changed
    assert doc.value == tomllib.loads(source)


def test_fallback_output_is_accepted_when_it_is_right(monkeypatch: pytest.MonkeyPatch) -> None:
    """The fallback is not refused wholesale: a correct tomlkit edit goes through (and keeps CRLF)."""

    def unsupported(*args: object, **kwargs: object) -> None:
        raise ScanError("forced fallback")

    monkeypatch.setattr(SpanEditor, "add", unsupported)
    source = "x = 1\r\n\r\n[t]\r\ny = 2\r\n"
    doc = TomlDocument.parse(source)
    doc.set(("t", "z"), 3)
    assert doc._last_engine == "tomlkit"
    assert tomllib.loads(doc.text) == {"x": 1, "t": {"y": 2, "z": 3}}
    assert "\n" not in doc.text.replace("\r\n", "")


def test_a_wrong_span_edit_falls_back_and_is_still_verified(monkeypatch: pytest.MonkeyPatch) -> None:
    """If the span editor itself produced wrong text, the result is not accepted either."""

    def wrong(self: SpanEditor, path: Any, value: Any) -> list[tuple[int, int, str]]:
        return [(0, 0, "injected = true\n")]

    monkeypatch.setattr(SpanEditor, "replace", wrong)
    doc = TomlDocument.parse("a = 1\n")
    doc.set(("a",), 2)
    assert doc._last_engine == "tomlkit"
    assert doc.text == "a = 2\n"
