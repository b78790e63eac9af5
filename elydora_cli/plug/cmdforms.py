"""How a hook command is written into an agent's config, and how we recognise one we wrote.

Forms (the ways the agents' configs, and earlier Elydora installers, write one command):
* POSIX shell: every argument single-quoted (``'`` becomes ``'"'"'``), joined by one space.
* exec form (Claude Code): ``command`` = interpreter, ``args`` = the rest.
* PowerShell call operator: ``& 'a' 'b'; exit $LASTEXITCODE`` (``'`` doubled).
* encoded PowerShell: ``"<SystemRoot>\\System32\\WindowsPowerShell\\v1.0\\powershell.exe" -NoLogo -NoProfile
  -NonInteractive -EncodedCommand <base64 of the UTF-16LE call-operator string>``.
Every form is generated and parsed as a plain string on every platform.
"""

from __future__ import annotations

import binascii
import re
from collections.abc import Mapping, Sequence

POWERSHELL_TAIL = "; exit $LASTEXITCODE"
_PS_FLAGS = "-NoLogo -NoProfile -NonInteractive -EncodedCommand"
_DEFAULT_SYSTEM_ROOT = "C:\\Windows"


def posix_quote(arg: str) -> str:
    return "'" + arg.replace("'", "'\"'\"'") + "'"


_SHELL_SAFE = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_@%+=:,./-")
"""Characters a POSIX shell word may hold unquoted: :func:`shlex.quote` leaves a word of only these bare."""


def shell_plain(word: str) -> bool:
    """Whether a POSIX shell runs ``word`` as it stands: it is not empty and every character is one of
    :data:`_SHELL_SAFE` or not ASCII (a non-ASCII letter is quoted by :func:`shlex.quote`, but
    no shell splits, expands or unquotes it)."""
    return bool(word) and all(c in _SHELL_SAFE or c > "\x7f" for c in word)


def posix_command(argv: Sequence[str]) -> str:
    """Every argument single-quoted: no word splitting, globbing or expansion can touch it."""
    return " ".join(posix_quote(a) for a in argv)


def powershell_quote(arg: str) -> str:
    return "'" + arg.replace("'", "''") + "'"


def powershell_call(argv: Sequence[str]) -> str:
    return "& " + " ".join(powershell_quote(a) for a in argv) + POWERSHELL_TAIL


def system_root(env: Mapping[str, str]) -> str:
    """``SystemRoot`` when it is absolute and free of quotes, percent signs and line breaks."""
    value = env.get("SystemRoot") or env.get("SYSTEMROOT") or ""
    absolute = re.match(r"[A-Za-z]:\\", value) is not None or value.startswith("\\\\")
    if absolute and not any(c in value for c in '"%\r\n'):
        return value.rstrip("\\")
    return _DEFAULT_SYSTEM_ROOT


def powershell_exe(env: Mapping[str, str]) -> str:
    return system_root(env) + "\\System32\\WindowsPowerShell\\v1.0\\powershell.exe"


def encode_powershell(script: str) -> str:
    """``script`` in UTF-16-LE, in base64 (PowerShell's ``-EncodedCommand``)."""
    encoded = script.encode("utf-16-le")
    return binascii.b2a_base64(encoded, newline=False).decode("ascii")


def encoded_powershell(argv: Sequence[str], env: Mapping[str, str], *, call_operator: bool = False) -> str:
    """The encoded form; ``call_operator=True`` gives Gemini's ``& '<powershell.exe>' ...`` variant."""
    exe = powershell_exe(env)
    head = f"& {powershell_quote(exe)}" if call_operator else f'"{exe}"'
    return f"{head} {_PS_FLAGS} {encode_powershell(powershell_call(argv))}"


# -- parsing back (ownership checks) ---------------------------------------------------------------------

_SHELL_SPECIAL = r"[|&;<>()$`*?\[\]{}~#\n]"
"""What a shell expands, redirects or chains on, outside quotes: such a command is not a plain word list."""
_SHELL_QUOTED = r"'[^']*'|\"(?:[^\"\\$`]|\\.)*\""
"""A complete single-quoted part, or a complete double-quoted one the shell expands nothing in."""
_SHELL_WORD = r"[ \t\r\n]*((?:[^ \t\r\n'\"\\]+|\\[\s\S]|'[^']*'|\"(?:[^\"\\]|\\[\s\S])*\")+)"
"""A word made of unquoted runs, escaped characters and complete quoted parts (its group)."""
_SHELL_WORD_PIECE = r"([^'\"\\]+)|\\([\s\S])|'([^']*)'|\"((?:[^\"\\]|\\[\s\S])*)\""
"""One piece of such a word: an unquoted run, an escaped character, a single-quoted part, a double-quoted part
(the groups)."""


def parse_posix(command: str) -> list[str] | None:
    """The argv a POSIX shell would run for ``command`` when it is a plain word list, else ``None``."""
    words = _single_quoted_words(command)
    if words is not None:  # the form we write
        return words
    if re.search(_SHELL_SPECIAL, re.sub(_SHELL_QUOTED, "", command)):
        return None
    return _split_quoted(command)


def _single_quoted_words(command: str) -> list[str] | None:
    """The words of ``'a' 'b' ...`` (each single-quoted, one space between two), else ``None``."""
    if len(command) < 2 or command[0] != "'" or command[-1] != "'":
        return None
    words = command[1:-1].split("' '")
    return None if any("'" in word for word in words) else words


def _split_quoted(command: str) -> list[str] | None:
    """``shlex.split(command, posix=True)``: the words of :data:`_SHELL_WORD` (inside double quotes a backslash
    escapes only ``"`` and itself), ``None`` when something is left over (an unclosed quote, a lone backslash
    at the end)."""
    words: list[str] = []
    pos = 0
    while (match := re.compile(_SHELL_WORD).match(command, pos)) is not None:
        words.append("".join(map(_piece, re.finditer(_SHELL_WORD_PIECE, match[1]))))
        pos = match.end()
    return words if command[pos:].strip(" \t\r\n") == "" else None


def _piece(match: re.Match[str]) -> str:
    """What a piece of a word (:data:`_SHELL_WORD_PIECE`) stands for."""
    plain, escaped, single, double = match.groups()
    if double is not None:
        return re.sub(r"\\([\\\"])", r"\1", double)
    return plain or escaped or single


_POWERSHELL_ARG = r"'((?:[^']|'')*)'"
"""A single-quoted PowerShell argument (``''`` inside stands for one quote)."""


def parse_powershell_call(command: str) -> list[str] | None:
    """The argv of ``& 'a' 'b'; exit $LASTEXITCODE``, else ``None``."""
    if not command.startswith("& ") or not command.endswith(POWERSHELL_TAIL):
        return None
    body = command[2 : -len(POWERSHELL_TAIL)]
    args: list[str] = []
    pos = 0
    while pos < len(body):
        match = re.compile(_POWERSHELL_ARG).match(body, pos)
        if match is None:
            return None
        args.append(match[1].replace("''", "'"))
        pos = match.end()
        if pos < len(body):
            if body[pos] != " ":
                return None
            pos += 1
    return args or None


_ENCODED_POWERSHELL = r"(?:\"[^\"]+\"|& '[^']+') " + re.escape(_PS_FLAGS) + r" ([A-Za-z0-9+/=]+)"
"""Either head form of an encoded PowerShell command (its group: the base64 payload)."""


def parse_encoded_powershell(command: str) -> list[str] | None:
    """The argv inside an encoded PowerShell command (either head form), else ``None``."""
    if f" {_PS_FLAGS} " not in command:  # most commands
        return None
    match = re.fullmatch(_ENCODED_POWERSHELL, command)
    if match is None or not command.lower().split(" -nologo")[0].rstrip("\"'").endswith("powershell.exe"):
        return None
    payload = match[1]
    try:  # binascii, not base64 (which loads struct too): only the canonical encoding is accepted anyway
        raw = binascii.a2b_base64(payload)
        if binascii.b2a_base64(raw, newline=False).decode("ascii") != payload:
            return None  # not the one canonical spelling (which is also the only strictly valid one)
        return parse_powershell_call(raw.decode("utf-16-le"))
    except (binascii.Error, UnicodeDecodeError):
        return None


def parse_msvc(command: str) -> list[str] | None:
    """The argv the Microsoft C runtime gives a program for ``command`` (``CommandLineToArgvW`` rules), else
    ``None``: whitespace separates arguments outside double quotes; ``2n`` backslashes before ``"`` become ``n``
    and the quote toggles quoting, ``2n+1`` become ``n`` and a literal ``"``; other backslashes are literal."""
    args: list[str] = []
    current: list[str] | None = None
    quoted = False
    pos = 0
    while pos < len(command):
        char = command[pos]
        if char in " \t" and not quoted:
            if current is not None:
                args.append("".join(current))
            current, pos = None, pos + 1
            continue
        current = current if current is not None else []
        if char == "\\":
            run = len(command[pos:]) - len(command[pos:].lstrip("\\"))
            quote_follows = command[pos + run : pos + run + 1] == '"'
            current.append("\\" * (run // 2 if quote_follows else run))
            if quote_follows and run % 2:
                current.append('"')
                run += 1
            pos += run
        elif char == '"':
            quoted, pos = not quoted, pos + 1
        else:
            current.append(char)
            pos += 1
    if quoted or "\n" in command:
        return None
    if current is not None:
        args.append("".join(current))
    return args or None


_PYTHON_NAME = r"(?:python|pypy)(?:\d+(?:\.\d+)*)?(?:\.exe)?"
"""The basename of an interpreter we may have written (any case; a digit is any Unicode digit)."""


def looks_like_python(path: str) -> bool:
    """An interpreter path we may have written: absolute, basename ``python[N[.N]][.exe]`` or ``pypy``."""
    base = path[max(path.rfind("/"), path.rfind("\\")) + 1 :]
    absolute = path.startswith("/") or re.match(r"[A-Za-z]:[\\/]", path) is not None
    return absolute and re.fullmatch(_PYTHON_NAME, base, re.IGNORECASE) is not None
