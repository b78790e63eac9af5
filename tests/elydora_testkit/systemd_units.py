"""Reading a systemd unit as systemd does, for the repair timer's tests (unit and end-to-end)."""

from __future__ import annotations

_C_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "a": "\a", "b": "\b", "f": "\f", "v": "\v", "s": " "}
_HEX_DIGITS = {"x": 2, "u": 4, "U": 8}


def exec_start(unit: str) -> list[str]:
    """The service's ``ExecStart=`` command as systemd splits it (double quotes, C escapes such as ``\\n`` and
    ``\\x1b``, ``%%`` and ``$$``)."""
    line = next(ln for ln in unit.splitlines() if ln.startswith("ExecStart=")).split("=", 1)[1]
    words, current, quoted, at = [], "", False, 0
    while at < len(line):
        char = line[at]
        if char == "\\":
            kind = line[at + 1]
            digits = _HEX_DIGITS.get(kind, 0)
            if digits:
                current += chr(int(line[at + 2 : at + 2 + digits], 16))
            else:
                current += _C_ESCAPES.get(kind, kind)
            at += 2 + digits
            continue
        if char == '"':
            quoted = not quoted
        elif char == " " and not quoted:
            words.append(current)
            current = ""
        else:
            current += char
        at += 1
    return [w.replace("%%", "%").replace("$$", "$") for w in [*words, current] if w]
