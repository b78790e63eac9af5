"""The runtime scripts a config's text names, with the state root each is under."""

from __future__ import annotations

import json

from elydora_cli.stateroots import scripts_named


def test_every_script_named_left_to_right() -> None:
    text = "'/h/.elydora/a/guard.py' \"/k/.elydora/b.c-d_e/hook.py\" x=/m/n/.elydora/f/guard.py"
    assert list(scripts_named(text)) == [("/h", "a"), ("/k", "b.c-d_e"), ("/m/n", "f")]


def test_a_root_is_absolute_free_of_quotes_and_may_hold_blanks() -> None:
    assert list(scripts_named("/a b/.elydora/x/guard.py")) == [("/a b", "x")]
    assert list(scripts_named("'/Volumes/Macintosh HD/me/.elydora/x/guard.py'")) == [("/Volumes/Macintosh HD/me", "x")]
    assert list(scripts_named("a$/.elydora/x/guard.py")) == []  # no / before the stop
    assert list(scripts_named("/h/.elydora/x/.elydora/y/guard.py")) == [("/h/.elydora/x", "y")]
    assert list(scripts_named('"/a"/b/.elydora/x/guard.py')) == [("/b", "x")]  # its text starts after a quote
    assert list(scripts_named("/a\\/b/.elydora/x/guard.py")) == [("/b", "x")]  # nor across a backslash


def test_where_a_blank_or_an_operator_parts_the_text_each_root_it_could_be_is_given() -> None:
    assert list(scripts_named("/usr/bin/python3 /b/.elydora/x/guard.py")) == [("/usr/bin/python3 /b", "x"), ("/b", "x")]
    assert list(scripts_named("/p;/q/.elydora/x/hook.py")) == [("/p;/q", "x"), ("/q", "x")]
    assert list(scripts_named("C:/a/.elydora/x/guard.py")) == [("/a", "x")]
    assert list(scripts_named("P=/a:/b c/.elydora/x/guard.py")) == [("/a:/b c", "x"), ("/b c", "x")]


def test_only_guard_and_hook_scripts_of_a_named_agent() -> None:
    for text in ("/h/.elydora//guard.py", "/h/.elydora/a/guard.p", "/h/.elydora/a/flush.py", "/h/.elydora/a b/hook.py",
                 "/h/.elydora/é/hook.py", "no anchor at all"):
        assert list(scripts_named(text)) == [], text


def test_a_hook_command_names_its_state_root() -> None:
    text = '{"command": "\'/usr/bin/python3\' \'-I\' \'-S\' \'/srv/state/.elydora/claudecode/guard.py\'"}'
    assert list(scripts_named(text)) == [("/srv/state", "claudecode")]


def test_windows_paths_with_blanks_and_their_string_escapes() -> None:
    command = r'{"command": "\"C:\\Py\\python.exe\" -I -S \"C:\\Users\\John Smith\\.elydora\\claudecode\\guard.py\""}'
    assert list(scripts_named(command)) == [("C:\\Users\\John Smith", "claudecode")]
    module = "const GUARD = " + json.dumps("D:\\Users\\Jos\u00e9\\.elydora\\opencode\\guard.py") + "; // @param"
    assert list(scripts_named(module)) == [("D:\\Users\\Jos\u00e9", "opencode")]
    assert list(scripts_named(r"hook = 'C:\state\.elydora\codex\hook.py'")) == [("C:\\state", "codex")]
    assert list(scripts_named(r"C:\Python\python.exe -I -S C:\me\.elydora\x\guard.py")) == [("C:\\me", "x")]
    for text in (r"C:\a\.elydora\x\flush.py", r"\.elydora\y\guard.py", r"C:\a\.elydora\x y\guard.py"):
        assert list(scripts_named(text)) == [], text
