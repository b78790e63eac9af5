"""Reading a systemd unit as systemd does, for the repair timer's tests (unit and end-to-end)."""

from __future__ import annotations


def exec_start(unit: str) -> list[str]:
    """The service's ``ExecStart=`` command as systemd splits it (double quotes, backslash escapes, ``%%``)."""
    line = next(ln for ln in unit.splitlines() if ln.startswith("ExecStart=")).split("=", 1)[1]
    words, current, quoted, escaped = [], "", False, False
    for char in line:
        if escaped:
            current, escaped = current + char, False
        elif char == "\\":
            escaped = True
        elif char == '"':
            quoted = not quoted
        elif char == " " and not quoted:
            words.append(current)
            current = ""
        else:
            current += char
    return [w.replace("%%", "%") for w in [*words, current] if w]
