"""The agents' config files of fixtures/configs: untouched round trips, set-then-remove round trips in
every table, and the Kimi installer edits (before + our hook entries == after; and back)."""

from __future__ import annotations

import re
import sys
from typing import Any

import pytest
from locations import CONFIGS

from elydora_config.toml import TomlDocument

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib  # type: ignore[import-not-found, no-redef, unused-ignore]

TOML_FILES = sorted(p.name for p in CONFIGS.glob("*.toml"))
PAIRS = sorted(name[: -len("-before.toml")] for name in TOML_FILES if name.endswith("-before.toml"))

VARIANTS = ["as-is", "crlf", "no-final-newline"]


def variant(text: str, kind: str) -> str:
    if kind == "crlf":
        return text.replace("\n", "\r\n")
    if kind == "no-final-newline":
        return text.rstrip("\n")
    return text


def read(name: str) -> str:
    return (CONFIGS / name).read_bytes().decode("utf-8")


def tables(data: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Paths of every table (including array-of-tables entries and inline tables) in ``data``."""
    found: list[tuple[Any, ...]] = []
    if type(data) is dict:
        found.append(path)
        for key, item in data.items():
            found.extend(tables(item, (*path, key)))
    elif type(data) is list:
        for i, item in enumerate(data):
            found.extend(tables(item, (*path, i)))
    return found


def test_the_kimi_pairs_are_there() -> None:
    assert {"kimi", "kimi-inline", "kimi-legacy"} <= set(PAIRS)


@pytest.mark.parametrize("kind", VARIANTS)
@pytest.mark.parametrize("name", TOML_FILES)
def test_unedited_file_is_byte_identical(name: str, kind: str) -> None:
    text = variant(read(name), kind)
    doc = TomlDocument.parse(text.encode("utf-8"))
    assert doc.text == text
    assert doc.value == tomllib.loads(text)


@pytest.mark.parametrize("kind", VARIANTS)
@pytest.mark.parametrize("name", TOML_FILES)
def test_set_then_remove_in_every_table_is_byte_identical(name: str, kind: str) -> None:
    text = variant(read(name), kind)
    doc = TomlDocument.parse(text)
    probes: list[Any] = ["elydora", 7, [1, 2], {"nested": True}, [{"event": "Stop", "timeout": 5}]]
    for path in tables(tomllib.loads(text)):
        for probe in probes:
            doc.set((*path, "elydora_probe"), probe)
            assert doc.get((*path, "elydora_probe")) == probe
            assert tomllib.loads(doc.text) == doc.value
            if kind == "crlf":
                assert re.search(r"(?<!\r)\n", doc.text) is None, "a bare LF slipped into a CRLF file"
            assert doc._last_engine == "span"
            doc.remove((*path, "elydora_probe"))
            assert doc.text == text, (path, probe)


@pytest.mark.parametrize("kind", VARIANTS)
@pytest.mark.parametrize("stem", PAIRS)
def test_kimi_install_appends_our_entries_and_uninstall_restores_the_bytes(stem: str, kind: str) -> None:
    before = variant(read(f"{stem}-before.toml"), kind)
    after = variant(read(f"{stem}-after.toml"), kind)
    expected = tomllib.loads(after)
    existing = len(tomllib.loads(before)["hooks"])
    ours = expected["hooks"][existing:]
    assert ours, "the after file adds entries"

    doc = TomlDocument.parse(before)
    for entry in ours:
        doc.append_table(("hooks",), entry)
        assert doc._last_engine == "span"
    assert tomllib.loads(doc.text) == expected
    assert doc.value == expected
    if "inline" not in stem:
        assert doc.text == after  # same layout as the Python SDK installer for [[hooks]] files
    if kind == "crlf":
        assert re.search(r"(?<!\r)\n", doc.text) is None

    for index in range(len(expected["hooks"]) - 1, existing - 1, -1):
        doc.remove(("hooks", index))
    assert doc.text == before

    # uninstall from the Python SDK installer's own output gives back the before bytes too
    installed = TomlDocument.parse(after)
    for index in range(len(expected["hooks"]) - 1, existing - 1, -1):
        installed.remove(("hooks", index))
    assert installed.text == before


@pytest.mark.parametrize("stem", PAIRS)
def test_removing_the_users_entry_keeps_ours_and_the_rest(stem: str) -> None:
    after = read(f"{stem}-after.toml")
    expected = tomllib.loads(after)
    doc = TomlDocument.parse(after)
    doc.remove(("hooks", 0))
    expected["hooks"].pop(0)
    assert tomllib.loads(doc.text) == expected
    # the comment lines at the top of the file are not the entry's
    assert doc.text.splitlines()[0] == after.splitlines()[0]
