"""The library as another tool's author meets it: every public name documented, caller mistakes explained.

Public means: every name of ``elydora_config.__all__``, every module of the package whose name does not
start with ``_`` and, in those modules, every name without a leading underscore defined there or in one of
their private modules (a package's face: ``jsonc``, ``toml``), with the public methods and properties of
public classes.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

import elydora_config
from elydora_config import ConfigError, files
from elydora_config.errors import MissingDirectoryError, UnsafePathError
from elydora_config.jsonc import JSONC, JsoncDocument
from elydora_config.recovery import pending
from elydora_config.toml import TomlDocument
from elydora_config.transaction import Transaction


def public_modules() -> list[ModuleType]:
    found = [elydora_config]
    for info in pkgutil.walk_packages(elydora_config.__path__, "elydora_config."):
        if not any(part.startswith("_") for part in info.name.split(".")):
            found.append(importlib.import_module(info.name))
    return found


def _own_members(owner: Any, module_name: str) -> Iterator[tuple[str, Any]]:
    for name, member in vars(owner).items():
        if name.startswith("_"):
            continue
        target = member.fget if isinstance(member, property) else member
        target = getattr(target, "__func__", target)  # classmethod / staticmethod
        home = getattr(target, "__module__", "")
        if (inspect.isfunction(target) or inspect.isclass(target)) and (
            home == module_name or home.startswith(module_name + "._")
        ):
            yield name, target


def undocumented() -> list[str]:
    missing: list[str] = []
    for module in public_modules():
        if not (module.__doc__ or "").strip():
            missing.append(module.__name__)
        for name, member in _own_members(module, module.__name__):
            if not (inspect.getdoc(member) or "").strip():
                missing.append(f"{module.__name__}.{name}")
            if inspect.isclass(member):
                for attribute, method in _own_members(member, member.__module__):
                    if not (method.__doc__ or "").strip():
                        missing.append(f"{module.__name__}.{name}.{attribute}")
    for name in elydora_config.__all__:
        if not (inspect.getdoc(getattr(elydora_config, name)) or "").strip():
            missing.append(f"elydora_config.{name}")
    return sorted(set(missing))


def test_the_walk_sees_the_public_api() -> None:
    names = {module.__name__ for module in public_modules()}
    assert {"elydora_config.transaction", "elydora_config.jsonc", "elydora_config.toml"} <= names
    assert not any(part.startswith("_") for name in names for part in name.split("."))


def test_every_public_name_has_a_docstring() -> None:
    assert undocumented() == []


# -- mistakes a caller can make, each explained ---------------------------------------------------------


def test_transaction_write_into_a_missing_directory_names_it_and_says_how_to_fix_it(tmp_path: Path) -> None:
    target = tmp_path / "absent" / "deeper" / "settings.json"
    with pytest.raises(MissingDirectoryError) as caught, Transaction(tmp_path / "state") as txn:
        txn.write(target, b"{}")
    assert caught.value.path == str(target.parent)
    assert f"({tmp_path / 'absent'} is missing)" in caught.value.reason
    assert "mkdir" in caught.value.reason and "Transaction.mkdir" in caught.value.reason
    assert isinstance(caught.value, ConfigError) and isinstance(caught.value, FileNotFoundError)
    assert not (tmp_path / "absent").exists()
    assert pending(tmp_path / "state") == []  # nothing half done: the next transaction runs
    with Transaction(tmp_path / "state") as txn:
        txn.mkdir(target.parent)
        txn.write(target, b"{}")
    assert target.read_bytes() == b"{}"


@pytest.mark.parametrize("call", ["write_atomic", "append_private"])
def test_file_writers_name_the_missing_directory(tmp_path: Path, call: str) -> None:
    target = tmp_path / "absent" / "file"
    writer = getattr(files, call)
    with pytest.raises(MissingDirectoryError, match=r"no such directory; create it first") as caught:
        writer(target, b"x\n")
    assert str(caught.value).startswith(f"{target.parent}: ")
    assert not (tmp_path / "absent").exists()


def test_reading_below_a_missing_directory_is_still_an_absent_file(tmp_path: Path) -> None:
    assert files.read_physical(tmp_path / "absent" / "file", max_bytes=10) is None
    with Transaction(tmp_path / "state") as txn:
        assert txn.read(tmp_path / "absent" / "file") is None


@pytest.mark.parametrize(
    ("parse", "given", "message"),
    [
        (JsoncDocument.parse, b"{}", "JsoncDocument.parse takes the text as str, not bytes; for bytes use "
         "JsoncDocument.parse_bytes"),
        (JsoncDocument.parse, None, "JsoncDocument.parse takes the text as str, not NoneType"),
        (JsoncDocument.parse_bytes, "{}", "JsoncDocument.parse_bytes takes bytes, not str; for text use "
         "JsoncDocument.parse"),
        (TomlDocument.parse, None, "TomlDocument.parse takes the text as str or UTF-8 bytes, not NoneType"),
        (TomlDocument.parse_bytes, "a = 1", "TomlDocument.parse_bytes takes bytes, not str; for text use "
         "TomlDocument.parse"),
    ],
)
def test_parse_says_what_it_wants(parse: Any, given: Any, message: str) -> None:
    with pytest.raises(TypeError) as caught:
        parse(given)
    assert str(caught.value) == message


def test_parse_accepts_what_it_says() -> None:
    assert JsoncDocument.parse_bytes(bytearray(b'{"a": 1}')).value == {"a": 1}
    assert TomlDocument.parse(b"a = 1\n").value == {"a": 1}


def test_a_dialect_given_by_name_is_refused_with_the_choices() -> None:
    with pytest.raises(TypeError, match=r"must be a Dialect \(JSONC, JSONC_NO_TRAILING_COMMAS or STRICT_JSON\)"):
        JsoncDocument.parse("{}", "jsonc")  # type: ignore[arg-type]
    assert JsoncDocument.parse("{}", JSONC).value == {}


@pytest.mark.parametrize("call", ["Transaction.write", "write_atomic"])
def test_text_for_file_content_is_refused_with_the_fix(tmp_path: Path, call: str) -> None:
    target = tmp_path / "settings.json"
    with pytest.raises(TypeError) as caught:
        if call == "write_atomic":
            files.write_atomic(target, "{}")  # type: ignore[arg-type]
        else:
            with Transaction(tmp_path / "state") as txn:
                txn.write(target, "{}")  # type: ignore[arg-type]
    assert str(caught.value) == (
        f"{call} takes the content as bytes, not str; encode the text first, e.g. text.encode('utf-8')"
    )
    assert sorted(p.name for p in tmp_path.iterdir() if p.name != "state") == []  # no temp file left behind


def test_transaction_mkdir_over_a_file_is_refused_when_staged(tmp_path: Path) -> None:
    occupied = tmp_path / "hooks"
    occupied.write_bytes(b"not a directory")
    with pytest.raises(UnsafePathError) as caught, Transaction(tmp_path / "state") as txn:
        txn.mkdir(occupied)
    assert str(caught.value) == f"{occupied}: exists and is not a directory; cannot create a directory there"
    assert occupied.read_bytes() == b"not a directory"


def test_an_error_names_its_file_once() -> None:
    # ``message`` is the problem alone; ``str(err)`` puts the file (and a parse error's place) before it, so a
    # front end showing ``{"file": err.path, "message": err.message}`` does not name the file twice
    from elydora_config.errors import ConcurrentModificationError, MalformedConfigError

    changed = ConcurrentModificationError("/home/u/.claude/settings.json", "was changed by another program")
    assert changed.message == "was changed by another program"
    assert str(changed) == "/home/u/.claude/settings.json: was changed by another program"
    with pytest.raises(MalformedConfigError) as caught:
        JsoncDocument.parse('{\n  "a": 1,,\n}', JSONC, path="/home/u/settings.json")
    error = caught.value
    assert "/home/u/settings.json" not in error.message and error.message == error.reason
    assert str(error) == f"/home/u/settings.json:{error.line}:{error.column}: {error.message}"
    assert str(ConfigError(None, "no file")) == ConfigError(None, "no file").message == "no file"
