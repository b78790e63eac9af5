"""The runtime scripts a config's text names are found by string methods exactly as the pattern they replace
found them (compiled here only, as the oracle)."""

from __future__ import annotations

import re

from hypothesis import example, given, settings
from hypothesis import strategies as st

from elydora_cli.stateroots import scripts_named

OLD_SCRIPT = re.compile(r"(/[^\s\"'=;|&<>`$\\]*?)/\.elydora/([A-Za-z0-9._-]+)/(?:guard|hook)\.py")

PIECES = st.sampled_from(
    ["/", "/.elydora/", ".elydora", "a", "a.b", "-", "/guard.py", "guard.py", "/hook.py", "hook.py", "/guard.p",
     " ", "\u2028", "\xa0", "'", '"', "=", "$", "\\", ";", "é", "x/"]
)  # fmt: skip


@settings(max_examples=4000)
@example("'/h/.elydora/a/guard.py' '/h/.elydora/b/hook.py'")
@example("/a/.elydora/x/.elydora/y/guard.py /b /.elydora/z/hook.py")
@example("/a b/.elydora/x/guard.py=/c/.elydora/y/guard.pyhook.py")
@example("/a/.elydora/x/guard.py/.elydora/y/guard.py")  # a root never reaches back into the last mention
@example("/h/.elydora//guard.py /.elydora/.elydora/guard.py/hook.py")
@given(st.lists(PIECES, max_size=12).map("".join))
def test_scripts_named_are_what_the_pattern_found(text: str) -> None:
    assert list(scripts_named(text)) == [m.groups() for m in OLD_SCRIPT.finditer(text)], text


def test_a_hook_command_names_its_state_root() -> None:
    text = '{"command": "\'/usr/bin/python3\' \'-I\' \'-S\' \'/srv/state/.elydora/claudecode/guard.py\'"}'
    assert list(scripts_named(text)) == [("/srv/state", "claudecode")]
