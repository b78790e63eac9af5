"""Older installers' ``<python> <script>`` commands: Microsoft C runtime parsing and exact re-rendering."""

from __future__ import annotations

from pathlib import Path

import pytest

from elydora_cli.plug.cmdforms import parse_msvc
from elydora_cli.plug.context import Context
from elydora_cli.plug.ownership import Ref
from elydora_cli.plug.pairforms import exactly, pair_in


@pytest.mark.parametrize(
    ("command", "argv"),
    [
        (
            '"C:\\Program Files\\Py\\python.exe" C:\\Users\\u\\.elydora\\a\\guard.py',
            ["C:\\Program Files\\Py\\python.exe", "C:\\Users\\u\\.elydora\\a\\guard.py"],
        ),
        ('a\\\\\\"b "c d\\\\" e', ['a\\"b', "c d\\", "e"]),  # 2n+1 backslashes: a quote; 2n: half, and quoting
        ("  a\t b  ", ["a", "b"]),
        ('""', [""]),
        ("a\\b\\\\c", ["a\\b\\\\c"]),  # backslashes before anything but a quote are literal
    ],
)
def test_parse_msvc(command, argv):
    assert parse_msvc(command) == argv


@pytest.mark.parametrize("command", ["", "   ", '"open', "a\nb"])
def test_parse_msvc_refuses(command):
    assert parse_msvc(command) is None


def _ctx(tmp_path: Path, home: str = "my home") -> Context:
    state = tmp_path / home
    return Context(home=state, state_root=state, repo_root=tmp_path, python="/usr/bin/python3")


def test_a_pair_is_ours_only_in_an_allowed_rendering(tmp_path):
    ctx = _ctx(tmp_path)
    script = f"{tmp_path}/my home/.elydora/a1/hook.py"
    joined = f"/opt/python3.12 '{script}'"
    found = pair_in(joined, ctx, ("joined",))
    assert found is not None and found.ref == Ref("a1", "audit", "/opt/python3.12")
    assert found.argv == ["/opt/python3.12", script]
    assert pair_in(joined, ctx, ("posix", "quoted")) is None
    assert pair_in(f'"/opt/python3.12" {script}', ctx, ("quoted",)) is None  # unquoted path with a space
    assert pair_in(f"'/opt/python3.12' '{script}'", ctx, ("posix",)) is not None


def test_interpreters_and_the_bare_form(tmp_path):
    ctx = _ctx(tmp_path, "plain")
    script = f"{ctx.elydora_dir}/a1/guard.py"
    assert pair_in(f'"/usr/bin/env" {script}', ctx, ("quoted",)) is None
    found = pair_in(f'"/usr/bin/env" {script}', ctx, ("quoted",), any_interpreter=True)
    assert found is not None and found.ref.python == "/usr/bin/env"
    bare = pair_in(script, ctx, ("bare",))
    assert bare is not None and bare.ref == Ref("a1", "guard", "/usr/bin/python3") and bare.argv == [script]
    assert pair_in(script, ctx, ("posix", "joined")) is None
    assert pair_in(f"{script}x", ctx, ("bare",)) is None
    assert pair_in(f"{ctx.elydora_dir}/a1/other.py", ctx, ("bare",)) is None
    assert pair_in(["not", "a", "string"], ctx, ("bare",)) is None


def test_exactly_tells_types_apart():
    one = exactly(1)
    assert one.test(1)
    assert not one.test(True) and not one.test(1.0) and not one.test("1")
    assert exactly(True).test(True) and not exactly(True).test(1)
