"""toml-test conformance (TOML 1.0 file list): valid files parse to the tagged JSON data and keep their
bytes; invalid files are refused with a location. The scanner that the span editor relies on is
checked against every valid file too."""

from __future__ import annotations

import datetime as dt
import json
import math
import sys
from typing import Any

import pytest
from locations import TOML_TEST

from elydora_config.errors import MalformedConfigError
from elydora_config.toml import TomlDocument
from elydora_config.toml._scanner import scan

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib  # type: ignore[import-not-found, no-redef, unused-ignore]

SUITE = TOML_TEST
FILE_LIST = SUITE / "files-toml-1.0.0"


def _listed(prefix: str) -> list[str]:
    names = [line.strip() for line in FILE_LIST.read_text(encoding="utf-8").splitlines()]
    return sorted(name for name in names if name.startswith(prefix) and name.endswith(".toml"))


VALID = _listed("valid/")
INVALID = _listed("invalid/")


def _parse_fraction_time(text: str) -> str:
    """Python 3.10's fromisoformat wants exactly 3 or 6 fraction digits; toml-test has others."""
    head, dot, rest = text.partition(".")
    if not dot:
        return text
    digits = ""
    while rest and rest[0].isdigit():
        digits, rest = digits + rest[0], rest[1:]
    return f"{head}.{(digits + '000000')[:6]}{rest}"


def untag(node: Any) -> Any:
    """toml-test's tagged JSON (``{"type": ..., "value": ...}``) to plain Python data."""
    if isinstance(node, list):
        return [untag(item) for item in node]
    if set(node) == {"type", "value"} and isinstance(node["type"], str) and isinstance(node["value"], str):
        kind, text = node["type"], node["value"]
        if kind == "string":
            return text
        if kind == "integer":
            return int(text)
        if kind == "float":
            return float(text)
        if kind == "bool":
            assert text in ("true", "false")
            return text == "true"
        if kind in ("datetime", "datetime-local"):
            text = text.replace("z", "Z").replace("Z", "+00:00")
            return dt.datetime.fromisoformat(_parse_fraction_time(text.replace(" ", "T").replace("t", "T")))
        if kind == "date-local":
            return dt.date.fromisoformat(text)
        if kind == "time-local":
            return dt.time.fromisoformat(_parse_fraction_time(text))
        raise AssertionError(f"unknown tag {kind}")
    return {key: untag(value) for key, value in node.items()}


def equal(actual: Any, expected: Any, where: str = "") -> None:
    """Type-strict comparison written for the tests (independent of the library's own)."""
    assert type(actual) is type(expected), f"{where}: {type(actual).__name__} != {type(expected).__name__}"
    if isinstance(expected, dict):
        assert set(actual) == set(expected), f"{where}: keys {sorted(actual)} != {sorted(expected)}"
        for key in expected:
            equal(actual[key], expected[key], f"{where}.{key}")
    elif isinstance(expected, list):
        assert len(actual) == len(expected), f"{where}: length"
        for i, (a, e) in enumerate(zip(actual, expected, strict=True)):
            equal(a, e, f"{where}[{i}]")
    elif isinstance(expected, float) and math.isnan(expected):
        assert math.isnan(actual), where
    elif isinstance(expected, dt.datetime):
        assert actual == expected and actual.utcoffset() == expected.utcoffset(), where
    else:
        assert actual == expected, f"{where}: {actual!r} != {expected!r}"


def test_the_file_lists_are_not_empty() -> None:
    assert len(VALID) > 200 and len(INVALID) > 400


@pytest.mark.parametrize("name", VALID)
def test_valid_file_parses_to_expected_data_and_keeps_its_bytes(name: str) -> None:
    raw = (SUITE / name).read_bytes()
    expected = untag(json.loads((SUITE / name).with_suffix(".json").read_text(encoding="utf-8")))
    doc = TomlDocument.parse(raw, path=name)
    equal(doc.value, expected, name)
    assert doc.text.encode("utf-8") == raw
    assert TomlDocument.parse(raw.decode("utf-8")).text.encode("utf-8") == raw


@pytest.mark.parametrize("name", INVALID)
def test_invalid_file_is_refused_with_a_location(name: str) -> None:
    raw = (SUITE / name).read_bytes()
    with pytest.raises(MalformedConfigError) as caught:
        TomlDocument.parse(raw, path=name)
    assert caught.value.path == name
    assert caught.value.line >= 1 and caught.value.column >= 1
    assert f"{name}:{caught.value.line}:{caught.value.column}: " in str(caught.value)


def _at(data: Any, path: tuple[Any, ...]) -> Any:
    for key in path:
        data = data[key]
    return data


@pytest.mark.parametrize("name", VALID)
def test_scanner_finds_every_statement_and_header(name: str) -> None:
    """Each key/value the scanner reports holds, as text, exactly the data tomllib gives for its
    path; each header it reports names an existing table; the statements cover every key."""
    body = (SUITE / name).read_bytes().decode("utf-8").removeprefix("\ufeff")
    data = tomllib.loads(body)
    result = scan(body)
    seen: set[tuple[Any, ...]] = set()
    for section in result.sections:
        assert type(_at(data, section.path)) is dict, section.path
        assert body[section.start : section.header_end].lstrip().startswith("[") or not section.path
        for entry in section.entries:
            fragment = body[entry.value_start : entry.value_end]
            equal(tomllib.loads("v = " + fragment)["v"], _at(data, entry.path), f"{name}:{entry.path}")
            seen.add(entry.path)

    # every leaf that is not a table reached through headers/dotted keys sits under some statement
    def leaves(node: Any, path: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        if type(node) is dict and not any(starts(path, p) for p in seen):
            return [leaf for key, item in node.items() for leaf in leaves(item, (*path, key))]
        tables = type(node) is list and node and all(type(i) is dict for i in node)
        if tables and not any(starts(path, p) for p in seen):
            return [leaf for i, item in enumerate(node) for leaf in leaves(item, (*path, i))]
        return [path]

    def starts(path: tuple[Any, ...], prefix: tuple[Any, ...]) -> bool:
        return path[: len(prefix)] == prefix

    for leaf in leaves(data, ()):
        if leaf == ():
            continue
        assert any(starts(leaf, p) for p in seen), f"{name}: {leaf} not found by the scanner"
