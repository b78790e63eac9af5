"""The refusals the C decoders share (the editor's scanners and the read-only loader): both object hooks
refuse the same duplicate keys, and the strict decoder refuses what no dialect accepts."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from elydora_config.jsonc._refusals import DuplicateKey, check_pairs, strict_decoder

pairs = st.lists(st.tuples(st.sampled_from(["a", "b", "c", "", "é"]), st.integers()), max_size=5)


@given(pairs)
def test_the_hook_refuses_exactly_the_objects_with_a_repeated_key(members: list[tuple[str, Any]]) -> None:
    repeated = len({key for key, _ in members}) != len(members)
    try:
        check_pairs(members)
    except DuplicateKey as exc:
        assert repeated and str(exc) == "duplicate key"
    else:
        assert not repeated


@pytest.mark.parametrize("hook", [None, check_pairs, len])
@pytest.mark.parametrize("text", ['{"a": NaN}', "[Infinity]", "-Infinity", '{"a": "raw\tTAB"}', '"line\nbreak"'])
def test_no_dialect_accepts_these(hook: Any, text: str) -> None:
    with pytest.raises(ValueError):
        strict_decoder(hook).decode(text)


def test_the_hook_decides_about_duplicates() -> None:
    text = '{"a": {"k": 1, "k": 2}}'
    assert strict_decoder(None).decode(text) == json.loads(text) == {"a": {"k": 2}}
    with pytest.raises(DuplicateKey):
        strict_decoder(check_pairs).decode(text)
