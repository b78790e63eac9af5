"""The plain TOML subset reader: for every text it either returns exactly what ``tomllib`` returns, or
``None`` (and ``tomllib`` decides); texts ``tomllib`` refuses are never accepted."""

from __future__ import annotations

import sys
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from elydora_config.errors import MalformedConfigError
from elydora_config.toml import TomlDocument
from elydora_config.toml._plain import plain_loads

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib


def _tomllib(text: str) -> dict[str, Any] | None:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return None


def _agrees(text: str) -> dict[str, Any] | None:
    """Assert the subset reader agrees with tomllib on ``text``; return what it decoded."""
    found = plain_loads(text)
    if found is not None:
        expected = _tomllib(text)
        assert expected is not None, f"accepted what tomllib refuses: {text!r}"
        assert found == expected and _types(found) == _types(expected), text
    return found


def _types(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _types(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_types(item) for item in value]
    return type(value).__name__


OURS = (
    '[[hooks]]\nevent = "PreToolUse"\ncommand = "\'/usr/bin/python3\' \'-I\' \'-S\' \'/h/.elydora/kimi/guard.py\'"\n'
    "timeout = 10\n"
)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "\n\n",
        "# only a comment\n",
        OURS,
        OURS + OURS,
        OURS.replace("\n", "\r\n"),
        'model = "o3"\n\n[features]\nhooks = true\nother = false # trailing\n',
        "a = 'C:\\path\\with\\backslashes'\n",
        'a = "#not a comment" # a comment\n',
        "\ta\t=\t-0\nb = +17\nc = 999999999999999999\n",
        'key-with_dash = "é ✓ 🎉"\n1234 = "digits are a bare key"\n',
        "[t]\n[[arr]]\n[[arr]]\nx = 1\n[u]\n",
    ],
)
def test_subset_texts_decode_as_tomllib_does(text: str) -> None:
    assert _agrees(text) is not None


@pytest.mark.parametrize(
    "text",
    [
        "a = 1\na = 2\n",  # duplicate key
        "[t]\n[t]\n",  # table defined twice
        "t = 1\n[t]\n",
        "[[t]]\n[t]\n",
        "[t]\n[[t]]\n",
        "t = 1\n[[t]]\n",
        "a = 01\n",  # leading zero
        "a = 1_000\n",  # outside the subset (tomllib accepts it)
        "a = 1.5\n",
        "a = 1e3\n",
        "a = 0x10\n",
        "a = inf\n",
        "a = 1979-05-27\n",
        'a = "esc\\"aped"\n',
        'a = """multi\nline"""\n',
        "a = '''multi'''\n",
        "a = [1, 2]\n",
        "a = { b = 1 }\n",
        "a.b = 1\n",
        '"quoted" = 1\n',
        "[a.b]\n",
        "[ spaced ]\n",
        "a = 1 b = 2\n",
        "a = truex\n",
        "a = 'x' 'y'\n",
        "a = \"ctl \x01\"\n",
        "# ctl \x7f\n",
        "a = 1\rb = 2\n",  # a lone carriage return
        "a =\n",
        "= 1\n",
        "\ufeffa = 1\n",
        "a = 1234567890123456789012\n",
    ],
)
def test_anything_else_is_left_to_tomllib(text: str) -> None:
    assert plain_loads(text) is None


_KEYS = st.sampled_from(["a", "b", "hooks", "t", "1", "x-y", "a.b", '"q"', "", " a"])
_VALUES = st.sampled_from(
    ['"s"', "'lit'", '""', "0", "-5", "+3", "01", "1.0", "true", "false", "tru", '"a#b"', '"\\n"', "[1]", "{}",
     "'it''s'", '"""x"""', "1_0", "nan", '"x" # c', "'\t'"]
)  # fmt: skip
_LINES = st.one_of(
    st.builds(lambda k, v, sep: f"{k}{sep}{v}", _KEYS, _VALUES, st.sampled_from(["=", " = ", "\t=", " =\t"])),
    st.builds(lambda k: f"[{k}]", _KEYS),
    st.builds(lambda k: f"[[{k}]]", _KEYS),
    st.sampled_from(["", "# c", "  # indented", "\t", "x", "[", "[[a]", "a = 1 # \x01", "a = 1\r"]),
)


@settings(max_examples=600, deadline=None)
@given(st.lists(_LINES, max_size=8), st.sampled_from(["\n", "\r\n"]), st.booleans())
def test_generated_texts_agree_with_tomllib(lines: list[str], newline: str, final: bool) -> None:
    _agrees(newline.join(lines) + (newline if final else ""))


def test_the_document_reads_the_subset_to_the_same_data_and_still_reports_errors() -> None:
    doc = TomlDocument.parse(OURS)
    assert doc.value == tomllib.loads(OURS) and doc.get(["hooks", 0, "timeout"]) == 10
    with pytest.raises(MalformedConfigError, match=r"config.toml:2:6: invalid TOML: Cannot overwrite a value"):
        TomlDocument.parse("a = 1\na = 2\n", path="config.toml")
