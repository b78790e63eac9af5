"""Hook commands parsed back to the argv they run: the quick paths give exactly what the general ones give."""

from __future__ import annotations

import shlex

from hypothesis import given
from hypothesis import strategies as st

from elydora_cli.plug.cmdforms import (
    encoded_powershell,
    parse_encoded_powershell,
    parse_posix,
    posix_command,
)

WORDS = st.text(alphabet=st.sampled_from(list(" \t\r\nab/.-_=x'\"\\$#")), max_size=12)


@given(WORDS)
def test_parse_posix_is_what_shlex_gives(command: str) -> None:
    parsed = parse_posix(command)
    if parsed is None:  # refused: something a shell would expand, redirect or chain
        return
    assert parsed == shlex.split(command, comments=False, posix=True)


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
