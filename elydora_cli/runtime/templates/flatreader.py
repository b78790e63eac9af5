"""The guard's reader of flat JSON objects (string, number, true, false, null members), its one home.

The generator writes everything below the ``from __future__`` line into the generated guard in place of the
template's ``# @inline`` import of this module (a generated script stands alone), and ``status`` imports it
to read the guard's inputs exactly as the guard will, without importing the whole guard template.
"""

from __future__ import annotations

_WS = " \t\r\n"


# -- a strict reader for flat JSON objects (string, number, true, false, null members) --------------------
# The json module costs more than the whole rest of the guard; the files read here are flat objects.
def _skip(text: str, i: int) -> int:
    n = len(text)
    while i < n and text[i] in _WS:
        i += 1
    return i


_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}


def _string(text: str, i: int) -> tuple[str, int]:
    if text[i : i + 1] != '"':
        raise ValueError("expected a string")
    end = text.find('"', i + 1)
    if end < 0:
        raise ValueError("unterminated string")
    chunk = text[i + 1 : end]
    if "\\" not in chunk:
        if any(c < " " for c in chunk):
            raise ValueError("control character in string")
        return chunk, end + 1
    return _escaped_string(text, i + 1)


def _escaped_string(text: str, i: int) -> tuple[str, int]:
    out: list[str] = []
    n = len(text)
    while i < n:
        c = text[i]
        if c == '"':
            return "".join(out).encode("utf-16-le", "surrogatepass").decode("utf-16-le"), i + 1
        if c < " ":
            raise ValueError("control character in string")
        if c != "\\":
            out.append(c)
            i += 1
            continue
        e = text[i + 1 : i + 2]
        if e == "u":
            digits = text[i + 2 : i + 6]
            if len(digits) != 4 or any(d not in "0123456789abcdefABCDEF" for d in digits):
                raise ValueError("bad \\u escape")
            out.append(chr(int(digits, 16)))
            i += 6
        elif e in _ESCAPES:
            out.append(_ESCAPES[e])
            i += 2
        else:
            raise ValueError("bad escape")
    raise ValueError("unterminated string")


def _number(text: str, i: int) -> tuple[int | float, int]:
    j = i + 1 if text[i : i + 1] == "-" else i
    start_digits = j
    while j < len(text) and text[j].isdigit() and text[j].isascii():
        j += 1
    digits = text[start_digits:j]
    if not digits or (len(digits) > 1 and digits[0] == "0"):
        raise ValueError("bad number")
    is_float = False
    if text[j : j + 1] == ".":
        k = j + 1
        while k < len(text) and text[k] in "0123456789":
            k += 1
        if k == j + 1:
            raise ValueError("bad number")
        j, is_float = k, True
    if text[j : j + 1] in ("e", "E"):
        k = j + 1
        if text[k : k + 1] in ("+", "-"):
            k += 1
        m = k
        while m < len(text) and text[m] in "0123456789":
            m += 1
        if m == k:
            raise ValueError("bad number")
        j, is_float = m, True
    literal = text[i:j]
    return (float(literal) if is_float else int(literal)), j


def _value(text: str, i: int) -> tuple[object, int]:
    c = text[i : i + 1]
    if c == '"':
        return _string(text, i)
    for word, value in (("null", None), ("true", True), ("false", False)):
        if text.startswith(word, i):
            return value, i + len(word)
    if c == "-" or c.isdigit():
        return _number(text, i)
    raise ValueError("expected a string, number, true, false or null")


def parse_flat_object(text: str) -> dict[str, object]:
    """Parse a JSON object whose members are all scalars; ValueError on anything else or duplicates."""
    i = _skip(text, 0)
    if text[i : i + 1] != "{":
        raise ValueError("expected an object")
    result: dict[str, object] = {}
    i = _skip(text, i + 1)
    if text[i : i + 1] == "}":
        i += 1
    else:
        while True:
            key, i = _string(text, _skip(text, i))
            if key in result:
                raise ValueError("duplicate member")
            i = _skip(text, i)
            if text[i : i + 1] != ":":
                raise ValueError("expected ':'")
            result[key], i = _value(text, _skip(text, i + 1))
            i = _skip(text, i)
            if text[i : i + 1] == "}":
                i += 1
                break
            if text[i : i + 1] != ",":
                raise ValueError("expected ',' or '}'")
            i += 1
    if _skip(text, i) != len(text):
        raise ValueError("trailing data")
    return result
