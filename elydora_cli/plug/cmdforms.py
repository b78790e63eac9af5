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
_ASCII_LETTERS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
_BASE64_CHARS = _ASCII_LETTERS | frozenset("0123456789+/=")


def posix_quote(arg: str) -> str:
    return "'" + arg.replace("'", "'\"'\"'") + "'"


_SHELL_SAFE = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_@%+=:,./-")
"""Characters a POSIX shell word may hold unquoted: :func:`shlex.quote` leaves a word of only these bare."""


def shell_plain(word: str) -> bool:
    """Whether a POSIX shell runs ``word`` as it stands: it is not empty and every character is one of
    :data:`_SHELL_SAFE` or not ASCII (a non-ASCII letter is quoted by :func:`shell_word`, as shlex does, but
    no shell splits, expands or unquotes it)."""
    return bool(word) and all(c in _SHELL_SAFE or c > "\x7f" for c in word)


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
    absolute = _drive(value, "\\") or value.startswith("\\\\")
    if absolute and not any(c in value for c in '"%\r\n'):
        return value.rstrip("\\")
    return _DEFAULT_SYSTEM_ROOT


def _drive(path: str, separators: str) -> bool:
    """Whether ``path`` starts with an ASCII drive letter, a colon and one of ``separators`` (``C:\\``)."""
    return path[:1] in _ASCII_LETTERS and path[1:2] == ":" and path[2:3] != "" and path[2:3] in separators


def powershell_exe(env: Mapping[str, str]) -> str:
    return system_root(env) + "\\System32\\WindowsPowerShell\\v1.0\\powershell.exe"


def encode_powershell(script: str) -> str:
    import binascii  # base64.b64encode without the base64 module (which loads struct too)
    import codecs  # the codec function itself: a codec lookup would import its module on every status

    encoded: bytes = codecs.utf_16_le_encode(script, "strict")[0]
    return binascii.b2a_base64(encoded, newline=False).decode("ascii")


def encoded_powershell(argv: Sequence[str], env: Mapping[str, str], *, call_operator: bool = False) -> str:
    """The encoded form; ``call_operator=True`` gives Gemini's ``& '<powershell.exe>' ...`` variant."""
    exe = powershell_exe(env)
    head = f"& {powershell_quote(exe)}" if call_operator else f'"{exe}"'
    return f"{head} {_PS_FLAGS} {encode_powershell(powershell_call(argv))}"


# -- parsing back (ownership checks) ---------------------------------------------------------------------
# Plain string scanning, no regular expression: every status parses each hook command of every agent.


def parse_posix(command: str) -> list[str] | None:
    """The argv a POSIX shell would run for ``command`` when it is a plain word list, else ``None``."""
    words = _single_quoted_words(command)
    if words is not None:  # the form we write: what shlex.split gives, without its cost
        return words
    if not any(c in command for c in "'\"\\"):  # no quoting at all: shlex.split is splitting at blanks
        if not _SHELL_SPECIAL.isdisjoint(command):
            return None
        return [word for word in command.replace("\t", " ").replace("\r", " ").split(" ") if word]
    if _special_outside_quotes(command):
        return None
    quoted = _split_quoted(command)
    if quoted is not None:
        return quoted
    try:
        import shlex  # quoting other than ours: the rare case

        return shlex.split(command, comments=False, posix=True)
    except ValueError:
        return None


def _single_quoted_words(command: str) -> list[str] | None:
    """The words of ``'a' 'b' ...`` (each single-quoted, one space between two), else ``None``."""
    if len(command) < 2 or command[0] != "'" or command[-1] != "'":
        return None
    words = command[1:-1].split("' '")
    return None if any("'" in word for word in words) else words


_SHELL_SPECIAL = frozenset("|&;<>()$`*?[]{}~#\n")
"""What a shell expands, redirects or chains on, outside quotes: such a command is not a plain word list."""


def _special_outside_quotes(command: str) -> bool:
    """Whether a character of :data:`_SHELL_SPECIAL` stands outside every complete ``'...'`` part and every
    complete ``"..."`` part free of ``$`` and backquotes (a backslash escaping any character but a line break
    there); an unclosed quote stands for itself."""
    pos, end = 0, len(command)
    while pos < end:
        quote = _next_quote(command, pos)
        if not _SHELL_SPECIAL.isdisjoint(command[pos:quote]):
            return True
        if quote == end:
            return False
        close = command.find("'", quote + 1) if command[quote] == "'" else _double_quoted_end(command, quote + 1)
        pos = close + 1 if close >= 0 else quote + 1
    return False


def _next_quote(command: str, pos: int) -> int:
    """The offset of the first ``'`` or ``"`` at or after ``pos`` (the length when there is none)."""
    found = [at for at in (command.find("'", pos), command.find('"', pos)) if at >= 0]
    return min(found) if found else len(command)


def _double_quoted_end(command: str, pos: int) -> int:
    """The offset of the ``"`` closing a part whose content starts at ``pos`` (-1: none, or a ``$``, a
    backquote or a backslash before a line break comes first)."""
    while pos < len(command):
        char = command[pos]
        if char == '"':
            return pos
        if char in "$`" or (char == "\\" and command[pos + 1 : pos + 2] in ("", "\n")):
            return -1
        pos += 2 if char == "\\" else 1
    return -1


_BLANKS = " \t\r\n"
_RUN_ENDS = frozenset(_BLANKS + "'\"\\")
"""What ends an unquoted run of a word: a blank, a quote or a backslash."""


def _split_quoted(command: str) -> list[str] | None:
    """``shlex.split(command, posix=True)`` for words made of unquoted runs and complete single- or
    double-quoted parts, with no backslash outside double quotes (inside them, a backslash escapes only ``"``
    and itself); ``None`` for anything else. shlex reads one character at a time through its own machinery: a
    long encoded PowerShell command costs it milliseconds."""
    words: list[str] = []
    pos = 0
    while True:
        start = pos
        while start < len(command) and command[start] in _BLANKS:
            start += 1
        word, after = _quoted_word(command, start)
        if after == start:
            break
        words.append(word)
        pos = after
    return words if command[pos:].strip(_BLANKS) == "" else None


def _quoted_word(command: str, pos: int) -> tuple[str, int]:
    """The argv word at ``pos`` and the offset after it (``pos`` itself when no word starts there)."""
    pieces: list[str] = []
    end = len(command)
    while pos < end:
        char = command[pos]
        if char == "'":
            close = command.find("'", pos + 1)
            if close < 0:
                break
            pieces.append(command[pos + 1 : close])
        elif char == '"':
            close = _escaped_quoted_end(command, pos + 1)
            if close < 0:
                break
            pieces.append(_unescaped(command[pos + 1 : close]))
        elif char in _RUN_ENDS:
            break
        else:
            close = pos
            while close + 1 < end and command[close + 1] not in _RUN_ENDS:
                close += 1
            pieces.append(command[pos : close + 1])
        pos = close + 1
    return "".join(pieces), pos


def _escaped_quoted_end(command: str, pos: int) -> int:
    """The offset of the ``"`` closing a part whose content starts at ``pos``, a backslash escaping any
    character (-1: unclosed)."""
    while pos < len(command):
        char = command[pos]
        if char == '"':
            return pos
        pos += 2 if char == "\\" else 1
    return -1


def _unescaped(content: str) -> str:
    """A double-quoted part's content as the shell gives it: ``\\\\`` and ``\\"`` lose their backslash."""
    if "\\" not in content:
        return content
    kept: list[str] = []
    pos = 0
    while pos < len(content):
        char = content[pos]
        if char == "\\" and content[pos + 1 : pos + 2] in ("\\", '"'):
            char = content[pos + 1]
            pos += 1
        kept.append(char)
        pos += 1
    return "".join(kept)


def parse_powershell_call(command: str) -> list[str] | None:
    """The argv of ``& 'a' 'b'; exit $LASTEXITCODE``, else ``None``."""
    if not command.startswith("& ") or not command.endswith(POWERSHELL_TAIL):
        return None
    body = command[2 : -len(POWERSHELL_TAIL)]
    args: list[str] = []
    pos = 0
    while pos < len(body):
        close = _powershell_quoted_end(body, pos)
        if close < 0:
            return None
        args.append(body[pos + 1 : close].replace("''", "'"))
        pos = close + 1
        if pos < len(body):
            if body[pos] != " ":
                return None
            pos += 1
    return args or None


def _powershell_quoted_end(body: str, pos: int) -> int:
    """The offset of the quote closing the single-quoted argument at ``pos`` (``''`` inside stands for one
    quote), -1 when none starts there or no lone quote closes it."""
    if body[pos] != "'":
        return -1
    close = body.find("'", pos + 1)
    while close >= 0 and body[close + 1 : close + 2] == "'":
        close = body.find("'", close + 2)
    return close


def parse_encoded_powershell(command: str) -> list[str] | None:
    """The argv inside an encoded PowerShell command (either head form), else ``None``."""
    flags = f" {_PS_FLAGS} "
    if flags not in command:  # most commands
        return None
    if command.startswith('"'):  # "<powershell.exe>" ... or & '<powershell.exe>' ...
        head_end = command.find('"', 1)
    else:
        head_end = command.find("'", 3) if command.startswith("& '") else -1
    payload = command[head_end + 1 + len(flags) :]
    if (  # an empty head ("" or & '') fails the powershell.exe check
        head_end < 0
        or command[head_end + 1 : head_end + 1 + len(flags)] != flags
        or not payload
        or not _BASE64_CHARS.issuperset(payload)
        or not command.lower().split(" -nologo")[0].rstrip("\"'").endswith("powershell.exe")
    ):
        return None
    import binascii  # not base64 (which loads struct too): only the canonical encoding is accepted anyway

    try:
        raw = binascii.a2b_base64(payload)
        if binascii.b2a_base64(raw, newline=False).decode("ascii") != payload:
            return None  # not the one canonical spelling (which is also the only strictly valid one)
        return parse_powershell_call(_utf_16_le(raw))
    except (binascii.Error, UnicodeDecodeError):
        return None


def _utf_16_le(raw: bytes) -> str:
    """``raw.decode("utf-16-le")`` by the codec function itself: the codec lookup would import its module
    (:mod:`encodings.utf_16_le`) on every status that meets an encoded command."""
    import codecs  # loaded by the interpreter's own start-up (as for encode_powershell)

    text: str = codecs.utf_16_le_decode(raw, "strict", True)[0]
    return text


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
    absolute = path.startswith("/") or _drive(path, "\\/")
    return absolute and _python_name(base)


def _python_name(base: str) -> bool:
    """``base`` matches :data:`_PYTHON_NAME` whole; an ASCII name is judged without compiling it."""
    if not base.isascii():
        return re.fullmatch(_PYTHON_NAME, base, re.IGNORECASE) is not None
    name = base.lower()
    rest = name[6:] if name.startswith("python") else name[4:] if name.startswith("pypy") else None
    if rest is None:
        return False
    version = rest[:-4] if rest.endswith(".exe") else rest
    return version == "" or all(part.isdigit() for part in version.split("."))
