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

import re
from collections.abc import Mapping, Sequence

POWERSHELL_TAIL = "; exit $LASTEXITCODE"
_PS_FLAGS = "-NoLogo -NoProfile -NonInteractive -EncodedCommand"
_DEFAULT_SYSTEM_ROOT = "C:\\Windows"
_PS_SINGLE = re.compile(r"'((?:[^']|'')*)'")


def posix_quote(arg: str) -> str:
    return "'" + arg.replace("'", "'\"'\"'") + "'"


_SHELL_SAFE = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_@%+=:,./-")
"""Characters a POSIX shell word may hold unquoted: :func:`shlex.quote` leaves a word of only these bare."""


def shell_word(arg: str) -> str:
    """``arg`` as :func:`shlex.quote` gives it (bare when every character is safe, else single-quoted), for
    commands shown to a person, without importing :mod:`shlex` (``status`` shows some)."""
    return arg if arg and _SHELL_SAFE.issuperset(arg) else posix_quote(arg)


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
    absolute = bool(re.match(r"^[A-Za-z]:\\", value)) or value.startswith("\\\\")
    if absolute and not any(c in value for c in '"%\r\n'):
        return value.rstrip("\\")
    return _DEFAULT_SYSTEM_ROOT


def powershell_exe(env: Mapping[str, str]) -> str:
    return system_root(env) + "\\System32\\WindowsPowerShell\\v1.0\\powershell.exe"


def encode_powershell(script: str) -> str:
    import binascii  # base64.b64encode without the base64 module (which loads struct too)

    return binascii.b2a_base64(script.encode("utf-16-le"), newline=False).decode("ascii")


def encoded_powershell(argv: Sequence[str], env: Mapping[str, str], *, call_operator: bool = False) -> str:
    """The encoded form; ``call_operator=True`` gives Gemini's ``& '<powershell.exe>' ...`` variant."""
    exe = powershell_exe(env)
    head = f"& {powershell_quote(exe)}" if call_operator else f'"{exe}"'
    return f"{head} {_PS_FLAGS} {encode_powershell(powershell_call(argv))}"


# -- parsing back (ownership checks) ---------------------------------------------------------------------


_SINGLE_QUOTED_WORDS = re.compile(r"'[^']*'(?: '[^']*')*")
_SINGLE_QUOTED = re.compile(r"'([^']*)'")


def parse_posix(command: str) -> list[str] | None:
    """The argv a POSIX shell would run for ``command`` when it is a plain word list, else ``None``."""
    if _SINGLE_QUOTED_WORDS.fullmatch(command):  # the form we write: what shlex.split gives, without its cost
        return _SINGLE_QUOTED.findall(command)
    unquoted = re.sub(r"'[^']*'|\"(?:[^\"\\$`]|\\.)*\"", "", command)
    if re.search(r"[|&;<>()$`*?\[\]{}~#\n]", unquoted):
        return None
    if not any(c in command for c in "'\"\\"):  # no quoting at all: shlex.split is splitting at blanks
        return [word for word in command.replace("\t", " ").replace("\r", " ").split(" ") if word]
    quoted = _split_quoted(command)
    if quoted is not None:
        return quoted
    try:
        import shlex  # quoting other than ours: the rare case

        return shlex.split(command, comments=False, posix=True)
    except ValueError:
        return None


_BLANKS = " \t\r\n"
_QUOTED_WORD = re.compile(r"[ \t\r\n]*((?:[^ \t\r\n'\"\\]+|'[^']*'|\"(?:[^\"\\]|\\[\s\S])*\")+)")
_WORD_PIECE = re.compile(r"([^'\"]+)|'([^']*)'|\"((?:[^\"\\]|\\[\s\S])*)\"")
_ESCAPED_IN_DOUBLE_QUOTES = re.compile(r"\\([\\\"])")


def _split_quoted(command: str) -> list[str] | None:
    """``shlex.split(command, posix=True)`` for words made of unquoted runs and complete single- or
    double-quoted parts, with no backslash outside double quotes (inside them, a backslash escapes only ``"``
    and itself); ``None`` for anything else. shlex reads one character at a time: a long encoded PowerShell
    command costs it milliseconds."""
    words: list[str] = []
    pos = 0
    while True:
        match = _QUOTED_WORD.match(command, pos)
        if match is None:
            break
        words.append("".join(_piece(part) for part in _WORD_PIECE.finditer(match.group(1))))
        pos = match.end()
    return words if command[pos:].strip(_BLANKS) == "" else None


def _piece(part: re.Match[str]) -> str:
    plain, single, double = part.groups()
    if plain is not None:
        return plain
    if single is not None:
        return single
    return _ESCAPED_IN_DOUBLE_QUOTES.sub(r"\1", double)


def parse_powershell_call(command: str) -> list[str] | None:
    """The argv of ``& 'a' 'b'; exit $LASTEXITCODE``, else ``None``."""
    if not command.startswith("& ") or not command.endswith(POWERSHELL_TAIL):
        return None
    body = command[2 : -len(POWERSHELL_TAIL)]
    args: list[str] = []
    pos = 0
    while pos < len(body):
        match = _PS_SINGLE.match(body, pos)
        if not match:
            return None
        args.append(match.group(1).replace("''", "'"))
        pos = match.end()
        if pos < len(body):
            if body[pos] != " ":
                return None
            pos += 1
    return args or None


def parse_encoded_powershell(command: str) -> list[str] | None:
    """The argv inside an encoded PowerShell command (either head form), else ``None``."""
    if f" {_PS_FLAGS} " not in command:  # most commands: no pattern compiled or run
        return None
    match = re.fullmatch(r"(?:\"[^\"]+\"|& '[^']+') " + re.escape(_PS_FLAGS) + r" ([A-Za-z0-9+/=]+)", command)
    if not match or not match.group(0).lower().split(" -nologo")[0].rstrip("\"'").endswith("powershell.exe"):
        return None
    import binascii  # not base64 (which loads struct too): only the canonical encoding is accepted anyway

    try:
        raw = binascii.a2b_base64(match.group(1))
        if binascii.b2a_base64(raw, newline=False).decode("ascii") != match.group(1):
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


_PYTHON_NAME = re.compile(r"(?:python|pypy)(?:\d+(?:\.\d+)*)?(?:\.exe)?", re.IGNORECASE)


def looks_like_python(path: str) -> bool:
    """An interpreter path we may have written: absolute, basename ``python[N[.N]][.exe]`` or ``pypy``."""
    base = re.split(r"[\\/]", path)[-1]
    absolute = path.startswith("/") or bool(re.match(r"^[A-Za-z]:[\\/]", path))
    return absolute and bool(_PYTHON_NAME.fullmatch(base))
