"""RFC 8785 JSON Canonicalization Scheme (JCS), byte-compatible with the ECMAScript reference.

* Object members are sorted by the UTF-16 code units of their names (not by code points: a character
  outside the BMP sorts by its high surrogate, before U+E000..U+FFFF).
* Numbers are IEEE-754 doubles printed with ECMAScript ``Number.prototype.toString``: shortest round-trip
  digits, ``1`` not ``1.0``, ``1e-7`` not ``1e-07``, ``1e+21`` from 21 integer digits on. Integers are
  treated as the double a JavaScript reader would see (``2**64`` prints as ``18446744073709552000``).
* Strings use ``JSON.stringify`` escaping: ``\\" \\\\ \\b \\f \\n \\r \\t``, other controls as ``\\u00xx``;
  a lone surrogate (possible after ``json.loads`` of ``"\\ud800"``) is written as a ``\\udxxx`` escape,
  as ECMAScript 2019 does, so such payloads still hash the way the server sees them.

Non-finite numbers and non-JSON types raise :class:`CanonicalizationError`. Stdlib only: the flusher and
the verifier share this module.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
_ENCODE_STRING = json.encoder.py_encode_basestring
_C_ENCODE_STRING = getattr(json.encoder, "c_encode_basestring", None) or _ENCODE_STRING


class CanonicalizationError(ValueError):
    """A value that has no RFC 8785 form (NaN, Infinity, a non-JSON type, a non-string key)."""


def canonicalize(value: Any) -> bytes:
    """The RFC 8785 canonical UTF-8 bytes of a JSON value (as produced by :func:`json.loads`)."""
    parts: list[str] = []
    _write(value, parts)
    return "".join(parts).encode("utf-8")


def loads_strict(data: bytes | str) -> Any:
    """``json.loads`` that refuses ``NaN``/``Infinity`` and numbers that overflow a double."""
    return json.loads(data, parse_constant=_refuse_constant, parse_float=_finite_float, parse_int=_double_int)


def _refuse_constant(name: str) -> Any:
    raise CanonicalizationError(f"{name} is not valid JSON")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise CanonicalizationError(f"number {text[:40]} is out of the double range")
    return value


def _double_int(text: str) -> int:
    """An integer literal a JavaScript reader sees as a finite double (``1e400`` written out is Infinity)."""
    value = int(text)
    try:
        float(value)
    except OverflowError:
        raise CanonicalizationError(f"integer {text[:40]}... is out of the double range") from None
    return value


def _utf16_key(name: str) -> bytes:
    return name.encode("utf-16-be", "surrogatepass")


def _write(value: Any, parts: list[str]) -> None:
    if isinstance(value, str):
        parts.append(encode_string(value))
    elif value is None:
        parts.append("null")
    elif value is True:
        parts.append("true")
    elif value is False:
        parts.append("false")
    elif isinstance(value, (int, float)):
        parts.append(format_number(value))
    elif isinstance(value, dict):
        _write_object(value, parts)
    elif isinstance(value, (list, tuple)):
        _write_array(value, parts)
    else:
        raise CanonicalizationError(f"{type(value).__name__} is not a JSON value")


def _write_object(value: dict[Any, Any], parts: list[str]) -> None:
    for key in value:
        if not isinstance(key, str):
            raise CanonicalizationError("object member names must be strings")
    parts.append("{")
    for index, key in enumerate(sorted(value, key=_utf16_key)):
        if index:
            parts.append(",")
        parts.append(encode_string(key))
        parts.append(":")
        _write(value[key], parts)
    parts.append("}")


def _write_array(value: list[Any] | tuple[Any, ...], parts: list[str]) -> None:
    parts.append("[")
    for index, item in enumerate(value):
        if index:
            parts.append(",")
        _write(item, parts)
    parts.append("]")


def encode_string(text: str) -> str:
    """A JSON string literal exactly as ECMAScript ``JSON.stringify`` writes it."""
    encoded: str = _C_ENCODE_STRING(text)
    if _LONE_SURROGATE.search(encoded):
        encoded = _LONE_SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", encoded)
    return encoded


def format_number(value: int | float) -> str:
    """ECMAScript ``Number.prototype.toString`` of the double nearest to ``value``."""
    try:
        number = float(value)
    except OverflowError:
        raise CanonicalizationError("integer is out of the double range") from None
    if not math.isfinite(number):
        raise CanonicalizationError("NaN and Infinity have no JSON form")
    if number == 0:
        return "0"
    if number < 0:
        return "-" + _format_positive(-number)
    return _format_positive(number)


def _shortest_digits(number: float) -> tuple[str, int]:
    """(digits s, exponent n) with number == 0.s * 10**n and s the shortest round-trip digits."""
    mantissa, _, exponent = repr(number).partition("e")
    whole, _, fraction = mantissa.partition(".")
    digits = whole + fraction
    point = len(whole) + (int(exponent) if exponent else 0)
    stripped = digits.lstrip("0")
    point -= len(digits) - len(stripped)
    return stripped.rstrip("0"), point


def _format_positive(number: float) -> str:
    digits, n = _shortest_digits(number)
    k = len(digits)
    if k <= n <= 21:
        return digits + "0" * (n - k)
    if 0 < n <= 21:
        return digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return "0." + "0" * (-n) + digits
    exponent = n - 1
    sign = "+" if exponent >= 0 else "-"
    head = digits if k == 1 else digits[0] + "." + digits[1:]
    return f"{head}e{sign}{abs(exponent)}"
