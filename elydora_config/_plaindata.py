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
