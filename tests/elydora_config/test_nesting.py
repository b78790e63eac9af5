"""Deep nesting ends in a clear MalformedConfigError naming the file and the line, found in one pass."""

from __future__ import annotations

import re
from typing import Any

import pytest

from elydora_config import nesting
from elydora_config.errors import MalformedConfigError
from elydora_config.nesting import MAX_NESTING, check_nesting
from elydora_config.toml import TomlDocument


@pytest.mark.parametrize("depth", [1_000, 100_000])
@pytest.mark.parametrize("shape", ["array", "inline table"])
def test_deeply_nested_toml_is_a_malformed_config_not_a_recursion_error(depth: int, shape: str) -> None:
    value = "[" * depth + "]" * depth if shape == "array" else "{a = " * depth + "1" + "}" * depth
    with pytest.raises(MalformedConfigError) as info:
        TomlDocument.parse(f'model = "o3"\nx = {value}\n', path="/home/u/.codex/config.toml")
    assert str(info.value) == f"/home/u/.codex/config.toml: nesting deeper than {MAX_NESTING} at line 2"


def test_nesting_up_to_the_limit_parses_and_edits() -> None:
    doc = TomlDocument.parse("x = " + "[" * MAX_NESTING + "]" * MAX_NESTING + "\n", path="c.toml")
    doc.set(("y",), 1)
    assert doc.text.endswith("y = 1\n")


@pytest.mark.parametrize(
    ("text", "toml"),
    [
        ('{"a": "[[[[{{", "b": /* [[{{ */ [1]} // [[[[', False),
        ('{"a": "\\"[[[[", "b": [1]}', False),
        ("a = \"[[[\" # [[[[\nb = '[[[['\nc = \"\"\"[\n[[\\\"\"\"[[[\"\"\"\nd = '''[[[['''\ne = [[1]]\n", True),
    ],
)
def test_brackets_in_strings_and_comments_do_not_count(text: str, toml: bool) -> None:
    check_nesting(text, "f", toml=toml, limit=2)
    with pytest.raises(MalformedConfigError, match="nesting deeper than 1 at line"):
        check_nesting(text, "f", toml=toml, limit=1)


class _Counting:
    def __init__(self, pattern: re.Pattern[str], starts: list[int]) -> None:
        self.pattern, self.starts = pattern, starts

    def search(self, text: str, pos: int) -> Any:
        self.starts.append(pos)
        return self.pattern.search(text, pos)


def _count_searches(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    starts: list[int] = []
    monkeypatch.setattr(nesting, "_compiled", lambda pattern: _Counting(re.compile(pattern), starts))
    return starts


def test_the_scan_reads_every_character_once(monkeypatch: pytest.MonkeyPatch) -> None:
    starts = _count_searches(monkeypatch)
    text = '{"k": [' + ", ".join(['"a[b\\"c"'] * 2_000) + "]}"
    check_nesting(text, "f")
    assert starts == sorted(starts) and len(set(starts)) == len(starts)  # every search starts further on
    assert len(starts) <= text.count('"') + text.count("[") + text.count("\\") + 10


def test_a_text_with_no_more_brackets_than_the_limit_is_not_scanned(monkeypatch: pytest.MonkeyPatch) -> None:
    starts = _count_searches(monkeypatch)
    check_nesting('{"a": [[1], {"b": "]]]"}]}', "f", limit=4)  # four openers: four levels at most
    assert starts == []
    check_nesting('{"a": [[1], {"b": "]]]"}]}', "f", limit=3)  # scanned: three levels deep
    with pytest.raises(MalformedConfigError, match="nesting deeper than 2 at line 1"):
        check_nesting('{"a": [[1], {"b": "]]]"}]}', "f", limit=2)
    assert starts
