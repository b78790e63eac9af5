"""Paths as text (:mod:`elydora_cli.pathtext`): bytes that are not UTF-8 found, shown and read as the agents read
them; control characters shown escaped; a command line quoted so a shell reads every word back, on one line."""

from __future__ import annotations

import os
import subprocess

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from elydora_cli.pathtext import as_agents_read, shell_line, shown, undecodable, windows_word
from elydora_cli.plug.cmdforms import parse_msvc

ODD = os.fsdecode(b"/home/caf\xe9")


def test_bytes_that_are_not_utf8_are_found_and_shown_as_bytes() -> None:
    assert undecodable(ODD) and not undecodable("/home/café")
    assert shown(ODD) == "/home/caf\\xe9"
    assert as_agents_read(ODD) == "/home/caf\ufffd"
    assert as_agents_read("/home/café") == "/home/café"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("/home/a b/café", "/home/a b/café"),
        ("/tmp/new\nline", "/tmp/new\\nline"),
        ("/tmp/tab\there", "/tmp/tab\\there"),
        ("esc\x1b[31m", "esc\\x1b[31m"),
        ("del\x7f", "del\\x7f"),
        ("sep\u2028", "sep\\u2028"),
        ("/home/\u202egnp.exe", "/home/\\u202egnp.exe"),
        ("/home/a\u200bb/😀", "/home/a\u200bb/😀"),
        ("back\\slash", "back\\slash"),
    ],
)
def test_shown_is_one_printable_line(text: str, expected: str) -> None:
    assert shown(text) == expected
    assert not any(c < " " or c in "\x7f\u2028\u2029\u202e" for c in shown(text))


@pytest.mark.parametrize(
    "word",
    ["/plain", "/a b", "it's", "", "/tmp/new\nline", "it's\ta\\b", "c1\x85 and\u2028", "rtl\u202e", ODD + "\x1b"],
)
def test_a_shell_reads_every_word_back(word: str) -> None:
    line = shell_line(["printf", "%s\\0", word, "next"])
    assert "\n" not in line
    env = {**os.environ, "LC_ALL": "C.UTF-8"}  # bash writes \u escapes in the locale's encoding
    out = subprocess.run(["bash", "-c", line], capture_output=True, check=True, env=env).stdout
    assert out.split(b"\0")[:2] == [os.fsencode(word), b"next"]


def test_a_printable_word_is_quoted_as_shlex_quotes_it() -> None:
    assert shell_line(["elydora", "recover", "--root", "/a b", "/c"]) == "elydora recover --root '/a b' /c"


@settings(max_examples=1000)
@given(st.lists(st.text(alphabet=st.sampled_from(list(' \t"\\ab:,;&()%@=é')), max_size=10), min_size=1, max_size=4))
def test_a_windows_command_line_gives_its_words_back_to_the_program(words: list[str]) -> None:
    """What the user pastes into cmd.exe or PowerShell reaches the program as these words (the C runtime's
    reading of its command line)."""
    assert parse_msvc(" ".join(windows_word(word) for word in words)) == words


def test_a_windows_word_is_quoted_only_where_a_shell_would_read_it() -> None:
    assert windows_word("C:\\Users\\Zoë\\.elydora-state") == "C:\\Users\\Zoë\\.elydora-state"
    assert windows_word("C:\\Users\\John Smith") == '"C:\\Users\\John Smith"'
    for special in ("a,b", "a;b", "a&b", "(a)", "@a", "a=b", "a%b", "a'b", ""):
        assert windows_word(special) == f'"{special}"'
    assert windows_word("C:\\a b\\") == '"C:\\a b\\\\"'  # the closing quote is not escaped
