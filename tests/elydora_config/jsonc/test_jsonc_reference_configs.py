"""The agents' configuration files of fixtures/configs: byte-identical round trips and edits."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from jsonc_testkit import derive_ops
from locations import CONFIGS

from elydora_config.jsonc import JSONC, STRICT_JSON, Dialect, JsoncDocument


def _configs() -> list[Path]:
    return sorted(p for p in CONFIGS.iterdir() if p.suffix in (".json", ".jsonc"))


def _pairs() -> list[Path]:
    return [p for p in _configs() if "-before." in p.name and p.with_name(p.name.replace("-before", "-after")).exists()]


def _dialect(path: Path) -> Dialect:
    # droid, qwen and gemini files are JSONC; the others are read as strict JSON
    return JSONC if path.suffix == ".jsonc" else STRICT_JSON


def _apply(doc: JsoncDocument, op: tuple[Any, ...]) -> None:
    if op[0] == "set":
        doc.set(op[1], op[2])
    elif op[0] == "insert":
        doc.insert(op[1], op[2], op[3])
    else:
        doc.remove(op[1])


def test_every_kind_of_file_is_present() -> None:
    names = {p.name for p in _configs()}
    assert {"droid-before.jsonc", "gemini-before.jsonc", "qwen-before.jsonc", "claudecode-before.json"} <= names
    assert len(_pairs()) >= 14


@pytest.mark.parametrize("path", _configs(), ids=lambda p: p.name)
def test_unedited_file_is_byte_identical(path: Path) -> None:
    data = path.read_bytes()
    doc = JsoncDocument.parse_bytes(data, _dialect(path), path=path)
    assert doc.to_bytes() == data
    if path.suffix == ".json":
        assert doc.value == json.loads(data)


@pytest.mark.parametrize("path", _configs(), ids=lambda p: p.name)
def test_set_then_remove_is_byte_identical(path: Path) -> None:
    data = path.read_bytes()
    doc = JsoncDocument.parse_bytes(data, _dialect(path))
    doc.set(("elydora",), {"hooks": [{"type": "command", "command": "x", "timeout": 10}]})
    assert doc.get(("elydora", "hooks", 0, "timeout")) == 10
    assert JsoncDocument.parse(doc.text, _dialect(path)).value == doc.value
    doc.remove(("elydora",))
    assert doc.to_bytes() == data


@pytest.mark.parametrize("path", _configs(), ids=lambda p: p.name)
def test_every_member_can_be_replaced_and_undone(path: Path) -> None:
    data = path.read_bytes()
    doc = JsoncDocument.parse_bytes(data, _dialect(path))
    for key in list(doc.value):
        doc.set((key,), ["replaced", {"k": key}])
        assert doc.get((key,)) == ["replaced", {"k": key}]
        doc.undo()
        assert doc.to_bytes() == data


@pytest.mark.parametrize("before", _pairs(), ids=lambda p: p.name)
def test_installer_edits_reproduce_the_after_file_byte_for_byte(before: Path) -> None:
    """Remove, then set new keys / append elements the way an installer does: the result must be the
    after-file exactly (indentation, CRLF, tabs, comments, one-line arrays opened up below)."""
    after = before.with_name(before.name.replace("-before", "-after"))
    dialect = _dialect(before)
    doc = JsoncDocument.parse_bytes(before.read_bytes(), dialect)
    target = JsoncDocument.parse_bytes(after.read_bytes(), dialect)
    ops = derive_ops(doc.value, target.value)
    assert ops
    for op in ops:
        _apply(doc, op)
    assert doc.value == target.value
    assert doc.to_bytes() == after.read_bytes()


@pytest.mark.parametrize("before", _pairs(), ids=lambda p: p.name)
def test_uninstall_gives_back_the_before_file(before: Path) -> None:
    """Undo the installer's additions by removing what it added (newest first): the before-file again."""
    after = before.with_name(before.name.replace("-before", "-after"))
    dialect = _dialect(before)
    original = JsoncDocument.parse_bytes(before.read_bytes(), dialect)
    doc = JsoncDocument.parse_bytes(after.read_bytes(), dialect)
    ops = derive_ops(original.value, doc.value)
    if any(op[0] == "remove" for op in ops):
        pytest.skip("the installer also removed legacy entries; those cannot be recreated by removal")
    for op in reversed(ops):
        if op[0] == "set" and op[1][-1] not in _get_parent(original.value, op[1]):
            doc.remove(op[1])
        elif op[0] == "insert":
            doc.remove((*op[1], -1))
    assert doc.to_bytes() == before.read_bytes()


def _get_parent(value: Any, path: tuple[Any, ...]) -> Any:
    for element in path[:-1]:
        value = value[element]
    return value
