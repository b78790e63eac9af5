"""``tomllib`` (``tomli`` before 3.11): the TOML 1.0 reader behind every parse outside the plain subset and every
edit's check, imported in this one place.

It is one of the library's heavy imports (it compiles its regular expressions and loads :mod:`datetime` and
:mod:`string` when imported), so it is imported on first use: a text of the plain subset (:mod:`._plain`), what
our installs write, is read without it.
"""

from __future__ import annotations

import sys
from typing import Any


def _tomllib() -> Any:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - exercised on Python 3.10 only
        import tomli as tomllib  # type: ignore[import-not-found, no-redef, unused-ignore]
    return tomllib


def loads(text: str) -> dict[str, Any]:
    """``tomllib.loads(text)``."""
    data: dict[str, Any] = _tomllib().loads(text)
    return data


def decode_error() -> type[Exception]:
    """``TOMLDecodeError``, for ``except`` clauses (which evaluate it only when something was raised)."""
    error: type[Exception] = _tomllib().TOMLDecodeError
    return error
