"""Plain data (dicts, lists, scalars) as the editors hand it out."""

from __future__ import annotations

from typing import Any


def copy_data(value: Any) -> Any:
    """A deep copy of plain data (containers copied, immutable scalars shared): what a read hands out, so that
    callers may keep or change it."""
    kind = type(value)
    if kind is dict:
        return {key: copy_data(item) for key, item in value.items()}
    if kind is list:
        return [copy_data(item) for item in value]
    return value


def same_types(a: Any, b: Any) -> bool:
    """Whether equal plain data also has the same types throughout: ``==`` says ``1 == 1.0 == True``, and a
    config cares about the difference (dict keys compared in order)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(same_types(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return all(same_types(x, y) for x, y in zip(a, b, strict=True))
    return True
