"""The ordered-settings-layers helper: first and last explicit values, type errors, system file placement."""

from __future__ import annotations

from pathlib import Path

import pytest

from elydora_cli.plug.context import Context
from elydora_cli.plug.layers import Layer, explicit, first_explicit, last_explicit, system_file
from elydora_config.errors import MalformedConfigError

A, B, C = Path("/a.json"), Path("/b.json"), Path("/c.json")


def test_first_and_last_explicit_skip_files_that_do_not_set_the_key():
    stack = [Layer(A, None), Layer(B, {"x": False, "other": 1}), Layer(C, {"x": True})]
    first = first_explicit(stack, "x")
    last = last_explicit(stack, "x")
    assert first is not None and (first.path, first.value) == (B, False)
    assert last is not None and (last.path, last.value) == (C, True)
    assert first_explicit([Layer(A, {}), Layer(B, None)], "x") is None


def test_nested_keys_and_their_description():
    stack = [Layer(A, {"security": {"folderTrust": {"enabled": True}}}), Layer(B, {"security": "not an object"})]
    found = explicit(stack, ("security", "folderTrust", "enabled"))
    assert [(s.path, s.value) for s in found] == [(A, True)]
    assert found[0].describe() == "security.folderTrust.enabled is true in /a.json"


def test_a_value_of_the_wrong_type_is_an_error_naming_the_file():
    with pytest.raises(MalformedConfigError) as caught:
        last_explicit([Layer(A, {"x": True}), Layer(B, {"x": "yes"})], "x")
    assert str(B) in str(caught.value) and "x must be true or false" in str(caught.value)


def _ctx(tmp_path: Path, **options: object) -> Context:
    return Context(home=tmp_path, state_root=tmp_path, repo_root=tmp_path / "work", **options)  # type: ignore[arg-type]


def test_system_file_is_placed_below_the_root(tmp_path):
    where = {"posix": "/etc/x/s.json", "macos": "/etc/x/s.json", "windows": "%ProgramData%\\x"}
    assert system_file(_ctx(tmp_path, rooted=True), **where) == tmp_path / "etc" / "x" / "s.json"
    assert system_file(_ctx(tmp_path), **where) == Path("/etc/x/s.json")


def test_system_file_on_windows_uses_the_folder_variable_or_its_default(tmp_path):
    ctx = _ctx(tmp_path, windows=True, env={"ProgramData": "D:\\Data\\"})
    assert str(system_file(ctx, posix="", macos="", windows="%ProgramData%\\x\\s.json")).endswith("D:\\Data\\x\\s.json")
    ctx = _ctx(tmp_path, windows=True)
    assert str(system_file(ctx, posix="", macos="", windows="%ProgramFiles%\\F\\s.json")).endswith(
        "C:\\Program Files\\F\\s.json"
    )
