"""JSONTestSuite conformance: y_ accepted, n_ refused, i_ never a crash or a hang; unedited round trips."""

from __future__ import annotations

import json
import math
import time
from pathlib import Path
from typing import Any

import pytest
from locations import JSONTESTSUITE

from elydora_config.errors import MalformedConfigError
from elydora_config.jsonc import JSONC, STRICT_JSON, JsoncDocument
from elydora_config.jsonc._reference_scanner import ReferenceScanner
from elydora_config.records import replace

# RFC 8259 only says object names SHOULD be unique, so JSONTestSuite accepts repeated keys; the
# project's dialects refuse them on purpose (docs/editors.md).  ``RFC_8259`` is STRICT_JSON without that rule.
HANG = 15.0  # seconds: exponential or stuck parsing, never a speed figure (one file takes milliseconds)
DUPLICATE_KEY_FILES = {"y_object_duplicated_key.json", "y_object_duplicated_key_and_value.json"}
RFC_8259 = replace(STRICT_JSON, name="RFC_8259", duplicate_keys=True)


def _files(prefix: str) -> list[Path]:
    return sorted(p for p in JSONTESTSUITE.iterdir() if p.name.startswith(prefix) and p.suffix == ".json")


def _ids(paths: list[Path]) -> list[str]:
    return [p.name for p in paths]


def _same(a: Any, b: Any) -> bool:
    """Equality that also distinguishes ints from floats and treats NaN as equal to itself."""
    if isinstance(a, float) and isinstance(b, float):
        return (math.isnan(a) and math.isnan(b)) or a == b
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def test_the_corpus_is_the_expected_one() -> None:
    assert len(_files("y_")) == 95
    assert len(_files("n_")) == 188
    assert len(_files("i_")) == 35


@pytest.mark.parametrize("path", _files("y_"), ids=_ids(_files("y_")))
def test_strict_json_accepts_every_y_file_and_round_trips_it(path: Path) -> None:
    data = path.read_bytes()
    if path.name in DUPLICATE_KEY_FILES:
        with pytest.raises(MalformedConfigError, match="duplicate key"):
            JsoncDocument.parse_bytes(data, STRICT_JSON)
        doc = JsoncDocument.parse_bytes(data, RFC_8259)
    else:
        doc = JsoncDocument.parse_bytes(data, STRICT_JSON)
    assert doc.to_bytes() == data
    assert _same(doc.value, json.loads(data))
    assert _same(doc.value, ReferenceScanner(doc.text, doc.dialect).document()[0])


@pytest.mark.parametrize("path", _files("y_"), ids=_ids(_files("y_")))
def test_jsonc_accepts_every_y_file_too(path: Path) -> None:
    dialect = replace(JSONC, duplicate_keys=True) if path.name in DUPLICATE_KEY_FILES else JSONC
    doc = JsoncDocument.parse_bytes(path.read_bytes(), dialect)
    assert doc.to_bytes() == path.read_bytes()


@pytest.mark.parametrize("path", _files("n_"), ids=_ids(_files("n_")))
def test_strict_json_rejects_every_n_file(path: Path) -> None:
    data = path.read_bytes()
    started = time.perf_counter()
    with pytest.raises(MalformedConfigError) as caught:
        JsoncDocument.parse_bytes(data, STRICT_JSON, path=path.name)
    assert time.perf_counter() - started < HANG  # a hang guard; benchmarks/ measure the speed
    error = caught.value
    assert error.path == path.name
    assert error.line >= 1 and error.column >= 1
    assert error.reason and "\n" not in error.reason
    # the fast path and the reference scanner refuse for the same reason at the same place
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return
    with pytest.raises(MalformedConfigError) as reference:
        ReferenceScanner(text, STRICT_JSON, path.name).document()
    assert (reference.value.line, reference.value.column, reference.value.reason) == (
        error.line,
        error.column,
        error.reason,
    )


@pytest.mark.parametrize("path", _files("i_"), ids=_ids(_files("i_")))
def test_implementation_defined_files_never_crash_or_hang(path: Path) -> None:
    data = path.read_bytes()
    for dialect in (STRICT_JSON, JSONC):
        started = time.perf_counter()
        try:
            doc = JsoncDocument.parse_bytes(data, dialect)
        except MalformedConfigError as exc:
            assert exc.reason
        else:
            assert doc.to_bytes() == data
            doc.value  # noqa: B018 - decoding must not crash either
        assert time.perf_counter() - started < HANG


@pytest.mark.parametrize("path", _files("y_"), ids=_ids(_files("y_")))
def test_y_files_survive_an_edit_and_its_inverse(path: Path) -> None:
    """Where the top-level value is a container, add a member and remove it again: original bytes back."""
    data = path.read_bytes()
    dialect = RFC_8259 if path.name in DUPLICATE_KEY_FILES else STRICT_JSON
    doc = JsoncDocument.parse_bytes(data, dialect)
    value = doc.value
    if isinstance(value, dict):
        key = "elydora-test-key"
        doc.set((key,), {"nested": [1, 2.5, "x"]})
        assert json.loads(doc.text)[key] == {"nested": [1, 2.5, "x"]}
        doc.remove((key,))
    elif isinstance(value, list):
        doc.insert((), len(value), {"nested": True})
        assert json.loads(doc.text)[-1] == {"nested": True}
        doc.remove((len(value),))
    else:
        pytest.skip("scalar top-level value")
    assert doc.to_bytes() == data
