"""Hook commands parsed back to the argv they run: the quick paths give exactly what the general ones give."""

from __future__ import annotations

import shlex

from hypothesis import given, settings
from hypothesis import strategies as st

from elydora_cli.plug.cmdforms import (
    _split_quoted,
    encoded_powershell,
    parse_encoded_powershell,
    parse_posix,
    posix_command,
    shell_word,
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
