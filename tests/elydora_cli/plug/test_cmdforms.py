"""Hook commands parsed back to the argv they run: the quick paths give exactly what the general ones give."""

from __future__ import annotations

import binascii
import re
import shlex

from hypothesis import example, given, settings
from hypothesis import strategies as st

from elydora_cli.plug.cmdforms import (
    _split_quoted,
    _utf_16_le,
    encode_powershell,
    encoded_powershell,
    looks_like_python,
    parse_encoded_powershell,
    parse_posix,
    parse_powershell_call,
    posix_command,
    powershell_call,
    shell_plain,
    shell_word,
    system_root,
)

WORDS = st.text(alphabet=st.sampled_from(list(" \t\r\nab/.-_=x'\"\\$#")), max_size=12)


@given(WORDS)
def test_parse_posix_is_what_shlex_gives(command: str) -> None:
    parsed = parse_posix(command)
    if parsed is None:  # refused: something a shell would expand, redirect or chain
        return
    assert parsed == shlex.split(command, comments=False, posix=True)


@settings(max_examples=1000)
@given(st.text(alphabet=st.sampled_from(list(" \t\r\nab\\'\"")), max_size=16))
def test_the_quoted_word_splitter_is_shlex_or_declines(command: str) -> None:
    split = _split_quoted(command)
    if split is None:
        return
    assert split == shlex.split(command, comments=False, posix=True), command


def test_the_quoted_word_splitter_takes_the_windows_forms() -> None:
    command = encoded_powershell(["C:\\Python\\python.exe", "C:\\x\\guard.py"], {})
    assert _split_quoted(command) == shlex.split(command, comments=False, posix=True)
    for command in ('"C:\\a b\\c" x', 'a"b\\"c"d \'e"f\'', "'' \"\"", 'a "\\\\" "\\x"'):
        assert _split_quoted(command) == shlex.split(command, comments=False, posix=True), command
    assert _split_quoted("a\\ b") is None  # a backslash outside quotes: shlex decides
    assert _split_quoted("'open") is None


def test_parse_posix_unquoted_words() -> None:
    assert parse_posix("/usr/bin/python3  -I\t/x/guard.py\r") == ["/usr/bin/python3", "-I", "/x/guard.py"]
    assert parse_posix("bash") == ["bash"]
    assert parse_posix("") == []
    assert parse_posix("a 'b c'") == ["a", "b c"]
    assert parse_posix(posix_command(["/p y", "it's"])) == ["/p y", "it's"]


def test_encoded_powershell_round_trip_and_plain_commands() -> None:
    argv = ["C:\\Python\\python.exe", "-I", "C:\\Users\\me\\.elydora\\a\\guard.py"]
    for call_operator in (False, True):
        assert parse_encoded_powershell(encoded_powershell(argv, {}, call_operator=call_operator)) == argv
    assert parse_encoded_powershell("bash -c true") is None
    flags_and_payload = encoded_powershell(argv, {}).split(" ", 1)[1]
    assert parse_encoded_powershell('"C:\\x\\cmd.exe" ' + flags_and_payload) is None


@settings(max_examples=500)
@given(st.text(alphabet=st.sampled_from(list(" \t'\"$*~é!-_@%+=:,./aZ09")), max_size=8) | st.text(max_size=8))
def test_a_shown_word_is_quoted_as_shlex_quotes_it(word: str) -> None:
    assert shell_word(word) == shlex.quote(word)


# -- the scanners give what the regular expressions they replaced gave ------------------------------------
# (the patterns, compiled here only, are the earlier implementation; status no longer compiles them)

_OLD_SINGLE_QUOTED_WORDS = re.compile(r"'[^']*'(?: '[^']*')*")
_OLD_SINGLE_QUOTED = re.compile(r"'([^']*)'")
_OLD_QUOTED_WORD = re.compile(r"[ \t\r\n]*((?:[^ \t\r\n'\"\\]+|'[^']*'|\"(?:[^\"\\]|\\[\s\S])*\")+)")
_OLD_WORD_PIECE = re.compile(r"([^'\"]+)|'([^']*)'|\"((?:[^\"\\]|\\[\s\S])*)\"")
_OLD_PS_SINGLE = re.compile(r"'((?:[^']|'')*)'")
_OLD_PYTHON_NAME = re.compile(r"(?:python|pypy)(?:\d+(?:\.\d+)*)?(?:\.exe)?", re.IGNORECASE)
_PS_FLAGS = "-NoLogo -NoProfile -NonInteractive -EncodedCommand"


def _old_split_quoted(command: str) -> list[str] | None:
    def piece(part: re.Match[str]) -> str:
        plain, single, double = part.groups()
        return plain if plain is not None else single if single is not None else re.sub(r"\\([\\\"])", r"\1", double)

    words, pos = [], 0
    while (match := _OLD_QUOTED_WORD.match(command, pos)) is not None:
        words.append("".join(piece(part) for part in _OLD_WORD_PIECE.finditer(match.group(1))))
        pos = match.end()
    return words if command[pos:].strip(" \t\r\n") == "" else None


def _old_parse_posix(command: str) -> list[str] | None:
    if _OLD_SINGLE_QUOTED_WORDS.fullmatch(command):
        return _OLD_SINGLE_QUOTED.findall(command)
    unquoted = re.sub(r"'[^']*'|\"(?:[^\"\\$`]|\\.)*\"", "", command)
    if re.search(r"[|&;<>()$`*?\[\]{}~#\n]", unquoted):
        return None
    if not any(c in command for c in "'\"\\"):
        return [word for word in command.replace("\t", " ").replace("\r", " ").split(" ") if word]
    quoted = _old_split_quoted(command)
    if quoted is not None:
        return quoted
    try:
        return shlex.split(command, comments=False, posix=True)
    except ValueError:
        return None


def _old_parse_powershell_call(command: str) -> list[str] | None:
    if not command.startswith("& ") or not command.endswith("; exit $LASTEXITCODE"):
        return None
    body, args, pos = command[2 : -len("; exit $LASTEXITCODE")], [], 0
    while pos < len(body):
        match = _OLD_PS_SINGLE.match(body, pos)
        if not match:
            return None
        args.append(match.group(1).replace("''", "'"))
        pos = match.end()
        if pos < len(body):
            if body[pos] != " ":
                return None
            pos += 1
    return args or None


def _old_parse_encoded_powershell(command: str) -> list[str] | None:
    if f" {_PS_FLAGS} " not in command:
        return None
    match = re.fullmatch(r"(?:\"[^\"]+\"|& '[^']+') " + re.escape(_PS_FLAGS) + r" ([A-Za-z0-9+/=]+)", command)
    if not match or not match.group(0).lower().split(" -nologo")[0].rstrip("\"'").endswith("powershell.exe"):
        return None
    try:
        raw = binascii.a2b_base64(match.group(1))
        if binascii.b2a_base64(raw, newline=False).decode("ascii") != match.group(1):
            return None
        return _old_parse_powershell_call(raw.decode("utf-16-le"))
    except (binascii.Error, UnicodeDecodeError):
        return None


SHELL_TEXT = st.text(alphabet=st.sampled_from(list(" \t\r\nab/.-'\"\\$`&;|#*é\u0663")), max_size=14)
OUR_FORMS = st.lists(st.text(alphabet=st.sampled_from(list(" ab'\"\\$\n")), max_size=5), max_size=4)


@settings(max_examples=3000)
@example('"a`b" c')
@example('"a$b"')
@example('"a\\\nb" c')
@example("'a' \"b\\\"c\" 'd")
@example("& 'a'")
@given(SHELL_TEXT | OUR_FORMS.map(posix_command) | OUR_FORMS.map(lambda words: " ".join(f"'{w}'" for w in words)))
def test_parse_posix_gives_what_the_patterns_gave(command: str) -> None:
    assert parse_posix(command) == _old_parse_posix(command), command
    assert _split_quoted(command) == _old_split_quoted(command), command


@settings(max_examples=3000)
@given(st.text(alphabet=st.sampled_from(list(" a'")), max_size=12) | OUR_FORMS.map(powershell_call))
def test_parse_powershell_call_gives_what_the_pattern_gave(body: str) -> None:
    command = body if body.startswith("& ") else f"& {body}; exit $LASTEXITCODE"
    assert parse_powershell_call(command) == _old_parse_powershell_call(command), command


_PAYLOAD = encoded_powershell(["C:\\P y\\python.exe", "it's"], {}).rsplit(" ", 1)[1]


@settings(max_examples=3000)
@given(
    st.sampled_from(['"', "& '", "'", "", '"C:\\x\\powershell.exe"', "& 'C:\\x\\PowerShell.exe'"]),
    st.text(alphabet=st.sampled_from(list("\"'ab.exPOWERSHELL\\ ")), max_size=8),
    st.sampled_from(["", "\"'", "'", '"']),
    st.sampled_from([f" {_PS_FLAGS} ", f" {_PS_FLAGS}  ", " -nologo "]),
    st.sampled_from([_PAYLOAD, _PAYLOAD + "=", _PAYLOAD[:-2], "A" + _PAYLOAD])
    | st.text(alphabet="Jg+/=A ", max_size=6),
)
def test_parse_encoded_powershell_gives_what_the_pattern_gave(
    head: str, middle: str, close: str, flags: str, payload: str
) -> None:
    command = head + middle + close + flags + payload
    assert parse_encoded_powershell(command) == _old_parse_encoded_powershell(command), command


def test_parse_encoded_powershell_decodes_both_head_forms() -> None:
    argv = ["C:\\P y\\python.exe", "it's"]
    for call_operator in (False, True):
        command = encoded_powershell(argv, {}, call_operator=call_operator)
        assert parse_encoded_powershell(command) == argv == _old_parse_encoded_powershell(command)
        assert parse_encoded_powershell(command + " ") is None


@settings(max_examples=3000)
@given(
    st.sampled_from(["/usr/bin/", "C:\\P\\", "c:/p/", "rel/", "", "1:\\", "/a\\"])
    | st.text(alphabet=st.sampled_from(list("/\\:Cc")), max_size=4),
    st.sampled_from(["python", "pypy", "Python3.12.EXE", "python3.", "pypy.exe", "python\u0663", "pythonexe", "PyPy3"])
    | st.text(alphabet=st.sampled_from(list("pythonPYTHONpy.exe3\u0663\u212a")), max_size=12),
)
def test_looks_like_python_is_what_the_patterns_said(folder: str, base: str) -> None:
    path = folder + base
    old_base = re.split(r"[\\/]", path)[-1]
    absolute = path.startswith("/") or bool(re.match(r"^[A-Za-z]:[\\/]", path))
    assert looks_like_python(path) == (absolute and bool(_OLD_PYTHON_NAME.fullmatch(old_base))), path


@settings(max_examples=1000)
@given(st.text(alphabet=st.sampled_from(list("Cc1é:\\/\"%\r")), max_size=5))
def test_system_root_takes_what_the_pattern_took(value: str) -> None:
    absolute = bool(re.match(r"^[A-Za-z]:\\", value)) or value.startswith("\\\\")
    expected = value.rstrip("\\") if absolute and not any(c in value for c in '"%\r\n') else "C:\\Windows"
    assert system_root({"SystemRoot": value}) == expected


@settings(max_examples=1000)
@given(st.text(alphabet=st.sampled_from(list("aZ09_./+,:@%=- '\"$\\é\x7f\x80\t")), max_size=8) | st.text(max_size=6))
def test_a_plain_word_is_what_the_pattern_took(word: str) -> None:
    """Pinned against the pattern Claude Code's launcher check compiled at import."""
    expected = re.fullmatch(r"(?:[A-Za-z0-9_./+,:@%=-]|[^\x00-\x7f])+", word) is not None
    assert shell_plain(word) == expected
    if word.isascii():  # the ASCII rule is shlex.quote's: such a word is shown bare
        assert shell_plain(word) == (bool(word) and shell_word(word) == word)


@given(st.binary(max_size=12))
def test_utf_16_le_decodes_as_the_codec_does(raw: bytes) -> None:
    try:
        expected: str | None = raw.decode("utf-16-le")
    except UnicodeDecodeError:
        expected = None
    try:
        found: str | None = _utf_16_le(raw)
    except UnicodeDecodeError:
        found = None
    assert found == expected


@given(st.text(max_size=8))
def test_a_command_is_encoded_as_the_codec_encodes_it(script: str) -> None:
    try:
        expected: str | None = binascii.b2a_base64(script.encode("utf-16-le"), newline=False).decode("ascii")
    except UnicodeEncodeError:  # a lone surrogate
        expected = None
    try:
        found: str | None = encode_powershell(script)
    except UnicodeEncodeError:
        found = None
    assert found == expected
