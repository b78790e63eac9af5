"""The refusals the C decoders share (the editor's scanners and the read-only loader): both object hooks
refuse the same duplicate keys, and the strict decoder refuses what no dialect accepts."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from elydora_config.jsonc.refusals import DuplicateKey, check_pairs, strict_decoder, unique_object

pairs = st.lists(st.tuples(st.sampled_from(["a", "b", "c", "", "é"]), st.integers()), max_size=5)


@given(pairs)
def test_both_hooks_refuse_the_same_objects(members: list[tuple[str, Any]]) -> None:
    repeated = len({key for key, _ in members}) != len(members)
    try:
        check_pairs(members)
    except DuplicateKey:
        assert repeated
    else:
        assert not repeated
    if repeated:
        with pytest.raises(DuplicateKey, match="duplicate key"):
            unique_object(members)
    else:
        assert unique_object(members) == dict(members)


@pytest.mark.parametrize("hook", [None, check_pairs, unique_object, len])
@pytest.mark.parametrize("text", ['{"a": NaN}', "[Infinity]", "-Infinity", '{"a": "raw\tTAB"}', '"line\nbreak"'])
def test_no_dialect_accepts_these(hook: Any, text: str) -> None:
    with pytest.raises(ValueError):
        strict_decoder(hook).decode(text)


def test_the_hook_decides_about_duplicates() -> None:
    text = '{"a": {"k": 1, "k": 2}}'
    assert strict_decoder(None).decode(text) == json.loads(text) == {"a": {"k": 2}}
    for hook in (check_pairs, unique_object):
        with pytest.raises(DuplicateKey):
            strict_decoder(hook).decode(text)
    assert strict_decoder(unique_object).decode('{"a": [{"k": 1}], "b": -0.5}') == {"a": [{"k": 1}], "b": -0.5}
