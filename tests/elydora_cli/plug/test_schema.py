"""The whole-file validation's number check: what ``math.isfinite`` said, without importing :mod:`math`."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from elydora_cli.plug.schema import NONNEG_NUMBER, POS_NUMBER


def _finite(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


@given(st.one_of(st.integers(), st.floats(allow_nan=True, allow_infinity=True), st.booleans(), st.text(max_size=2)))
def test_a_number_is_what_math_isfinite_took(value: object) -> None:
    assert POS_NUMBER.test(value) == (_finite(value) and value > 0)  # type: ignore[operator]
    assert NONNEG_NUMBER.test(value) == (_finite(value) and value >= 0)  # type: ignore[operator]


def test_an_integer_too_large_for_a_float_raises_as_math_isfinite_does() -> None:
    with pytest.raises(OverflowError):
        math.isfinite(10**400)
    with pytest.raises(OverflowError):
        POS_NUMBER.test(10**400)
