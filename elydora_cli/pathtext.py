"""Paths as text: which ones the agents can read back, and how any text is shown on one line of output.

On Linux a path is bytes. Python hands us the bytes that are not UTF-8 as lone surrogates (``surrogateescape``):
``b'/home/caf\\xe9'`` arrives as ``'/home/caf\\udce9'``. The agents read their settings, their hook commands and
their environment as UTF-8 text (Node replaces what it cannot decode), so such a path can be written into none of
them, and an agent given one as its home would look for its settings somewhere else: it is refused with
:data:`NOT_UTF8`. Control characters (a newline, a tab) are valid text: the agents run hooks under such a path, and
only their display is escaped (:func:`shown`).
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence

NOT_UTF8 = (
    "is not valid UTF-8: the agents read paths as UTF-8 text and would neither find their settings nor run a hook "
    "under it (rename it, or choose a path that is UTF-8)"
)
"""The problem of a path :func:`undecodable` finds, in the user's words."""


def undecodable(text: str) -> bool:
    """Whether ``text`` (a path or a variable) holds bytes that are not UTF-8."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def as_agents_read(text: str) -> str:
    """``text`` as an agent reads it from its environment or working directory: each byte that is not UTF-8 becomes
    U+FFFD, as Node decodes it (what ``elydora verify`` sends in a payload's ``cwd``)."""
    if not undecodable(text):
        return text
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def shown(text: str) -> str:
    """``text`` on one line that any terminal prints: a byte that is not UTF-8 as ``\\xe9``, a control character as
    ``\\n``, ``\\t``, ``\\x1b``..., a mark that reorders text as ``\\u202e``; everything else (blanks, non-ASCII
    letters, emoji) as it is."""
    if text.isprintable():
        return text
    return "".join(_escaped(c) for c in text)


def shell_word(word: str) -> str:
    """``word`` quoted for a POSIX shell on one line: as :func:`shlex.quote` does, except a word holding a control
    character, which becomes ``$'...'`` (bash, zsh, ksh and POSIX.1-2024 ``sh`` read ``\\n`` there as a newline)."""
    if word.isprintable():
        return shlex.quote(word)
    inner = "".join(_ansi_c(c) for c in word)
    return f"$'{inner}'"


def shell_line(words: Sequence[str]) -> str:
    """``words`` as one command line a user can paste (:func:`shell_word` each)."""
    return " ".join(shell_word(w) for w in words)


_WINDOWS_PLAIN = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.:\\/-")
"""Characters a word may hold unquoted in cmd.exe and in PowerShell alike (``,``, ``;``, ``@``, ``=``, ``&``
and the parentheses mean something to one of the two)."""


def windows_word(word: str) -> str:
    """``word`` typed into cmd.exe or PowerShell: bare when made of :data:`_WINDOWS_PLAIN` characters or
    non-ASCII letters, else in double quotes, its backslashes doubled before a quote and at the end, as the
    Microsoft C runtime reads them back. ``%`` (cmd.exe) and ``$`` or a backtick (PowerShell) are still read
    by the shell inside double quotes; no quoting is literal for both shells."""
    if word and all(c in _WINDOWS_PLAIN or (c > "\x7f" and c.isalnum()) for c in word):
        return word
    body = re.sub(r'(\\*)"', r'\1\1\\"', word)  # backslashes before a quote doubled, the quote escaped
    return '"' + re.sub(r"(\\+)$", r"\1\1", body) + '"'  # and the ones before the closing quote doubled


def _ansi_c(char: str) -> str:
    """One character inside ``$'...'``."""
    if char in "\\'":
        return "\\" + char
    if char.isprintable():
        return char
    code = ord(char)
    if code < 0x80 or 0xDC80 <= code <= 0xDCFF:  # an ASCII control, or a byte that was not UTF-8: that byte
        return _escaped(char)
    return f"\\u{code:04x}"


def _escaped(char: str) -> str:
    code = ord(char)
    if 0xDC80 <= code <= 0xDCFF:  # a byte that was not UTF-8, as surrogateescape carries it
        return f"\\x{code - 0xDC00:02x}"
    if code < 0x20 or 0x7F <= code < 0xA0 or 0xD800 <= code < 0xE000 or code in _REORDERING:
        return f"\\u{code:04x}" if code > 0xFF else repr(char)[1:-1]
    return char


_REORDERING = frozenset((0x2028, 0x2029, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A)))
"""Line and paragraph separators, and the marks that reorder what follows them on a terminal (a right-to-left
override makes a path read as another one): shown by their code."""
