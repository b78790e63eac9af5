"""RFC 8785 conformance: the JCS corpus byte for byte, every ECMAScript number line, and edge cases."""

from __future__ import annotations

import json
import math
import struct

import pytest
from locations import JCS

from elydora_cli.runtime.jcs import CanonicalizationError, canonicalize, format_number, loads_strict

CORPUS = JCS


def _pairs() -> list[str]:
    folder = CORPUS / "testdata" / "input"
    return sorted(p.name for p in folder.iterdir())


def test_corpus_has_the_rfc_cases() -> None:
    assert len(_pairs()) >= 6


@pytest.mark.parametrize("name", _pairs())
def test_corpus_pair_is_byte_identical(name: str) -> None:
    source = (CORPUS / "testdata" / "input" / name).read_bytes()
    expected = (CORPUS / "testdata" / "output" / name).read_bytes()
    assert canonicalize(loads_strict(source)) == expected
    hexed = (CORPUS / "testdata" / "outhex" / name.replace(".json", ".txt")).read_text().split()
    assert canonicalize(loads_strict(source)) == bytes(int(h, 16) for h in hexed)


def test_every_es6_number_line() -> None:
    lines = (CORPUS / "es6-numbers.csv").read_text().splitlines()
    assert len(lines) > 25_000
    failures = []
    for line in lines:
        hex_bits, expected = line.split(",", 1)
        value = struct.unpack("<d", bytes.fromhex(hex_bits))[0]
        if format_number(value) != expected:
            failures.append((hex_bits, expected, format_number(value)))
    assert failures == []


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (1.0, "1"),
        (1e-7, "1e-7"),
        (1e16, "10000000000000000"),
        (1e21, "1e+21"),
        (-0.0, "0"),
        (0.000001, "0.000001"),
        (123.456, "123.456"),
        (2**64, "18446744073709552000"),
        (-(2**53) - 1, "-9007199254740992"),
        (5e-324, "5e-324"),
    ],
)
def test_ecmascript_number_formatting(value: float, text: str) -> None:
    assert format_number(value) == text


def test_keys_sort_by_utf16_code_units_not_code_points() -> None:
    # U+1F600 is the surrogate pair D83D DE00, which sorts before U+E000 and U+FFFD in UTF-16.
    value = {"\ufffd": 1, "\U0001f600": 2, "\ue000": 3, "a": 4}
    assert canonicalize(value).decode() == '{"a":4,"\U0001f600":2,"\ue000":3,"\ufffd":1}'
    assert sorted(value) != ["a", "\U0001f600", "\ue000", "\ufffd"]  # code point order differs


def test_string_escapes_follow_json_stringify() -> None:
    assert (
        canonicalize('\u0001\b\t\n\f\r"\\/\u007f\u2028é') == b'"\\u0001\\b\\t\\n\\f\\r\\"\\\\/\x7f\xe2\x80\xa8\xc3\xa9"'
    )


def test_lone_surrogate_is_escaped_like_ecmascript() -> None:
    assert canonicalize(json.loads('"a\\ud800b"')) == b'"a\\ud800b"'


def test_python_json_differs_and_we_do_not() -> None:
    value = {"n": [1.0, 1e-7, 1e16]}
    assert json.dumps(value, separators=(",", ":")) == '{"n":[1.0,1e-07,1e+16]}'
    assert canonicalize(value) == b'{"n":[1,1e-7,10000000000000000]}'


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf, 10**400, {1: 2}, {"a": {1, 2}}])
def test_unrepresentable_values_are_refused(bad: object) -> None:
    with pytest.raises(CanonicalizationError):
        canonicalize(bad)


@pytest.mark.parametrize("text", ["NaN", "[Infinity]", '{"a": -Infinity}', "1e400"])
def test_strict_loader_refuses_non_finite_numbers(text: str) -> None:
    with pytest.raises(CanonicalizationError):
        loads_strict(text)
