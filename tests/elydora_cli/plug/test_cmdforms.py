"""Hook commands parsed back to the argv they run: what a shell (shlex), PowerShell and Windows would run."""

from __future__ import annotations

import binascii
import shlex

from hypothesis import given, settings
from hypothesis import strategies as st

from elydora_cli.plug.cmdforms import (
    _split_quoted,
    encode_powershell,
    encoded_powershell,
    looks_like_python,
    parse_encoded_powershell,
    parse_posix,
    parse_powershell_call,
    posix_command,
    powershell_call,
    shell_plain,
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
    assert _split_quoted("a\\ b") == ["a b"]  # a backslash outside quotes escapes the next character
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


def test_parse_posix_refuses_what_a_shell_expands_outside_quotes() -> None:
    for command in ("a | b", "a; b", "a $HOME", "a `b`", "a *", "a # b", "a\nb", 'a "$x"', "a > b", "(a)"):
        assert parse_posix(command) is None, command
    assert parse_posix("a '$x' \"#;|\" b") == ["a", "$x", "#;|", "b"]  # quoted: taken as it stands
    assert parse_posix("a\\ b 'c") is None  # an unclosed quote
    assert parse_posix("a\\ b\\c") == ["a bc"]  # escaped outside quotes
    assert parse_posix("a\\$") is None  # an escaped special character is refused all the same
    assert parse_posix('"a\\"b\\\\c\\x"') == ['a"b\\c\\x']  # inside double quotes only " and \ are escaped


def test_parse_powershell_call() -> None:
    assert parse_powershell_call(powershell_call(["C:\\P y\\python.exe", "it's", ""])) == [
        "C:\\P y\\python.exe", "it's", ""]
    for command in ("& 'a'", "& 'a'  'b'; exit $LASTEXITCODE", "& 'a''; exit $LASTEXITCODE",
                    "& a; exit $LASTEXITCODE", "& ; exit $LASTEXITCODE", "'a'; exit $LASTEXITCODE"):
        assert parse_powershell_call(command) is None, command


def test_parse_encoded_powershell_decodes_both_head_forms_and_nothing_else() -> None:
    argv = ["C:\\P y\\python.exe", "it's"]
    flags = "-NoLogo -NoProfile -NonInteractive -EncodedCommand"
    for call_operator in (False, True):
        command = encoded_powershell(argv, {}, call_operator=call_operator)
        assert parse_encoded_powershell(command) == argv
        assert parse_encoded_powershell(command + " ") is None
        assert parse_encoded_powershell(command + "=") is None  # not the canonical base64
    payload = encoded_powershell(argv, {}).rsplit(" ", 1)[1]
    for head in ('""', "& ''", '"C:\\x\\cmd.exe"', "'C:\\x\\powershell.exe'", "C:\\x\\powershell.exe"):
        assert parse_encoded_powershell(f"{head} {flags} {payload}") is None, head
    assert parse_encoded_powershell(f"& 'C:\\x\\PowerShell.EXE' {flags} {payload}") == argv
    assert parse_encoded_powershell(f'"p\\powershell.exe" {flags} {payload[:-4]}') is None  # not UTF-16 of a call


def test_looks_like_python() -> None:
    for path in ("/usr/bin/python3", "/usr/bin/python3.12", "C:\\P\\Python3.12.EXE", "c:/p/pypy", "/a\\python",
                 "/opt/pypy3", "/x/python\u0663"):
        assert looks_like_python(path), path
    for path in ("python3", "rel/python", "/usr/bin/python3.", "/usr/bin/pythonexe", "1:\\python", "/usr/bin/node"):
        assert not looks_like_python(path), path


def test_system_root() -> None:
    assert system_root({"SystemRoot": "D:\\Win\\"}) == "D:\\Win"
    assert system_root({"SYSTEMROOT": "\\\\server\\share"}) == "\\\\server\\share"
    for value in ("", "Windows", "D:Win", "1:\\Win", 'D:\\"x', "D:\\%x%", "é:\\Win"):
        assert system_root({"SystemRoot": value}) == "C:\\Windows", value


@settings(max_examples=1000)
@given(st.text(alphabet=st.sampled_from(list("aZ09_./+,:@%=- '\"$\\é\x7f\x80\t")), max_size=8) | st.text(max_size=6))
def test_a_plain_word_is_one_a_shell_runs_as_it_stands(word: str) -> None:
    if word.isascii():  # the ASCII rule is shlex.quote's: such a word is shown bare
        assert shell_plain(word) == (bool(word) and shlex.quote(word) == word)
    else:
        assert shell_plain(word) == shell_plain(word.encode("ascii", "ignore").decode() or "a")


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

