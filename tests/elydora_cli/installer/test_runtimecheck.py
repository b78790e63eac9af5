"""What status checks of an installed agent beyond its entries: a live guard, the same --hook-command."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from elydora_cli.installer.runtimecheck import command_mismatch, live_guard
from elydora_cli.runtime.stubs import stub_bytes


def test_a_guard_is_live_unless_missing_or_an_uninstall_stub(tmp_path: Path) -> None:
    guard = tmp_path / "guard.py"
    assert not live_guard(guard)
    guard.write_bytes(stub_bytes("claudecode", "guard.py", sys.executable, now=1_700_000_000))
    assert not live_guard(guard)
    guard.write_text("print('a guard')\n", encoding="utf-8")
    assert live_guard(guard)


@pytest.mark.parametrize(
    ("recorded", "given", "words"),
    [
        (None, None, None),
        ("/opt/sup --x", "/opt/sup --x", None),
        ("/opt/sup", None, "installed with --hook-command '/opt/sup'; pass the same"),
        (None, "/opt/sup", "installed without --hook-command"),
        ("/opt/sup --a", "/opt/sup --b", "not '/opt/sup --b'"),
        ("'unclosed", "'unclosed", None),  # a manifest edited by hand: compared as text
    ],
)
def test_the_install_and_the_command_agree_on_the_hook_command(
    recorded: str | None, given: str | None, words: str | None
) -> None:
    found = command_mismatch(recorded, given)
    assert (found is None) if words is None else (found is not None and words in found)
