"""``.env`` files as Node's ``dotenv`` (version 17) reads them, for agents that locate their home through one.

The grammar, line by line: optional ``export``; a key of letters, digits, ``_``, ``.`` and ``-``; ``=`` (with
optional spaces) or ``:`` followed by a space; a value that is single-, double- or backtick-quoted (and may then
span lines) or bare up to a ``#``; an optional ``# comment``. Values are trimmed, one pair of enclosing quotes is
dropped, and only double-quoted values turn ``\\n`` and ``\\r`` into line breaks. A later line with the same key
wins. Lines that do not fit are ignored, as dotenv ignores them.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

_SPACE = "\t\n\v\f\r \u00a0\u1680" + "".join(map(chr, range(0x2000, 0x200B))) + "\u2028\u2029\u202f\u205f\u3000\ufeff"
"""The characters of JavaScript's ``\\s`` (and of ``String.prototype.trim``)."""
_WS = re.escape(_SPACE)
_EOL = "\n\u2028\u2029"
"""Line ends of a JavaScript multiline ``$`` (after ``\\r\\n`` and ``\\r`` became ``\\n``)."""
_HS = re.escape("".join(c for c in _SPACE if c not in _EOL))
"""``\\s`` without the line ends: the space a line may start with. (JavaScript's ``^\\s*`` may also run over
blank lines, but a match that does so starts again on the key's own line with the same groups: letting the
leading space cross line ends only made every blank line rescan all the blank lines after it.)"""
_LINE_SOURCE = (
    rf"(?:(?<=[{_EOL}])|\A)[{_HS}]*(?:export[{_WS}]+)?([A-Za-z0-9_.-]+)(?:[{_WS}]*=[{_WS}]*?|:[{_WS}]+?)"
    rf"([{_WS}]*'(?:\\'|[^'])*'|[{_WS}]*\"(?:\\\"|[^\"])*\"|[{_WS}]*`(?:\\`|[^`])*`|[^#\r\n]+)?"
    rf"[{_WS}]*(?:#[^\r{_EOL}]*)?(?=[{_EOL}]|\Z)"
)
_QUOTED_SOURCE = rf"(?:(?<=[\r{_EOL}])|\A)(['\"`])([\s\S]*)\1(?=[\r{_EOL}]|\Z)"
"""Enclosing quotes, matched line by line as JavaScript's multiline ``replace`` does."""


def parse(text: str) -> dict[str, str]:
    """The variables a ``.env`` text defines, in order of first appearance (later values win)."""
    found: dict[str, str] = {}
    if "=" not in text and ":" not in text:  # every line the grammar accepts has one: absent and empty files
        return found  # cost no pattern compile (the Unicode space classes take milliseconds to compile)
    # compiled on the first parse (re caches them), not at import: the Unicode space classes cost a millisecond
    line, quoted = re.compile(_LINE_SOURCE), re.compile(_QUOTED_SOURCE)
    for match in line.finditer(re.sub(r"\r\n?", "\n", text)):
        value = (match.group(2) or "").strip(_SPACE)
        unquoted = quoted.sub(r"\2", value)
        if value.startswith('"'):
            unquoted = unquoted.replace("\\n", "\n").replace("\\r", "\r")
        found[match.group(1)] = unquoted
    return found


def owned_or_first(name: str, env: Mapping[str, str], files: Sequence[Mapping[str, str]]) -> str | None:
    """``name`` from the process environment when it is set there at all (even empty: the environment owns
    it), else the first non-empty value the files give, else ``None``."""
    if name in env:
        return env[name]
    return next((values[name] for values in files if values.get(name)), None)
