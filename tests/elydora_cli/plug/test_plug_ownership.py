"""Which argv a handler's fields could run (parsed once per command text, handed out as fresh lists)."""

from __future__ import annotations

import re
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from elydora_cli.plug.cmdforms import encoded_powershell, posix_command, powershell_call
from elydora_cli.plug.context import Context
from elydora_cli.plug.ownership import handler_argvs, split_script

ARGV = ["/usr/bin/python3", "-I", "-S", "/home/me/.elydora/claudecode/guard.py"]


def test_handler_argvs_every_form_and_the_exec_form() -> None:
    assert handler_argvs({"type": "command"}) == [["command"]]
    assert handler_argvs({"command": posix_command(ARGV)}) == [ARGV]
    assert handler_argvs({"command": powershell_call(ARGV)}) == [ARGV]
    encoded = handler_argvs({"command": encoded_powershell(ARGV, {})})
    assert encoded[0] == ARGV and len(encoded) == 2  # decoded, and the outer powershell.exe call as words
    assert handler_argvs({"command": ARGV[0], "args": ARGV[1:]}) == [[ARGV[0]], ARGV]


def test_handler_argvs_are_fresh_lists() -> None:
    handler = {"command": posix_command(ARGV)}
    first = handler_argvs(handler)
    first[0].append("--changed")
    assert handler_argvs(handler) == [ARGV]  # what one caller does to its list never reaches the next


@settings(max_examples=500)
@given(st.text(alphabet=st.sampled_from(list("/\\ab.")), max_size=8), st.sampled_from(["guard.py", "hook.py", "x"]))
def test_split_script_splits_at_either_separator_as_the_pattern_did(middle: str, script: str) -> None:
    ctx = Context(home=Path("/h"), state_root=Path("/h"), repo_root=Path("/w"))
    path = f"{ctx.runtime_root}/{middle}{script}"
    rest = re.split(r"[\\/]", path[len(str(ctx.runtime_root)) :].lstrip("/\\"))
    scripts = {"guard.py": "guard", "hook.py": "audit"}
    expected = (rest[0], scripts[rest[1]]) if len(rest) == 2 and rest[1] in scripts else None
    assert split_script(path, ctx) == expected
