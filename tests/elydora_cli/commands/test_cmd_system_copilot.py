"""Copilot CLI under ``--scope system``: our policy hook file in ``/etc/github-copilot/policy.d/``.

Policy hooks are loaded before every other source and run whatever ``disableAllHooks`` says; Copilot reads the
folder only while it is root's and not writable by group or others. (The real CLI: tests/e2e/test_managed.py.)
"""

from __future__ import annotations

import json
import stat
import sys
from pathlib import Path

import pytest
from elydora_testkit import system_root
from elydora_testkit.platforms import posix_only

from elydora_cli import managed

pytestmark = posix_only("system scope is refused on Windows for now")


@pytest.fixture()
def sysroot(root: Path) -> Path:
    return root / "home"


def policy(sysroot: Path) -> Path:
    return system_root.layer(sysroot, "copilot")


def probe(sysroot: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, object]]:
    capsys.readouterr()
    code = system_root.system(sysroot, "status", "copilot", "--json")
    return code, json.loads(capsys.readouterr().out)["providers"][0]


def test_install_writes_our_policy_file_beside_the_organizations(
    sysroot: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    policy(sysroot).parent.mkdir(parents=True)
    theirs = policy(sysroot).parent / "10-org.json"
    theirs.write_text('{"version": 1, "hooks": {"preToolUse": [{"type": "command", "bash": "/opt/org/check"}]}}\n')
    assert system_root.system(sysroot, "install", "copilot", "--python", sys.executable) == 0
    ours = json.loads(policy(sysroot).read_text())
    assert ours["version"] == 1 and set(ours["hooks"]) == {"preToolUse", "postToolUse", "postToolUseFailure"}
    guard = system_root.runtime(sysroot, "copilot") / "guard.py"
    assert str(guard) in ours["hooks"]["preToolUse"][0]["bash"]
    assert stat.S_IMODE(policy(sysroot).stat().st_mode) == managed.POLICY_MODE
    once = policy(sysroot).read_bytes()
    assert system_root.system(sysroot, "install", "copilot", "--python", sys.executable) == 0
    assert policy(sysroot).read_bytes() == once
    code, row = probe(sysroot, capsys)
    assert code == 0 and row["covered"] and row["managed_layer"] == str(policy(sysroot)), row
    assert system_root.system(sysroot, "uninstall", "copilot") == 0
    assert not policy(sysroot).exists() and theirs.read_text().startswith('{"version": 1')


def test_a_users_disable_all_hooks_does_not_count_under_system_scope(
    sysroot: Path, root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """User scope reports the user's switch as hooks off; a policy hook runs whatever it says."""
    assert system_root.system(sysroot, "install", "copilot", "--python", sys.executable) == 0
    user_settings = system_root.user_state(sysroot, "copilot").parent.parent / ".copilot" / "settings.json"
    user_settings.parent.mkdir(parents=True)
    user_settings.write_text('{"disableAllHooks": true}\n')
    (root / "work" / ".github" / "copilot").mkdir(parents=True)
    (root / "work" / ".github" / "copilot" / "settings.json").write_text('{"disableAllHooks": true}\n')
    assert probe(sysroot, capsys)[0] == 0


def test_a_policy_folder_others_can_write_is_reported(sysroot: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert system_root.system(sysroot, "install", "copilot", "--python", sys.executable) == 0
    policy(sysroot).parent.chmod(0o777)
    code, row = probe(sysroot, capsys)
    assert code == 1 and any("writable by group or others" in p for p in row["problems"])  # type: ignore[union-attr]
    policy(sysroot).parent.chmod(0o755)
    text = policy(sysroot).read_text()
    policy(sysroot).write_text(text.replace('"version": 1,', '"version": 1, "disableAllHooks": true,'))
    code, row = probe(sysroot, capsys)
    assert code == 1 and not row["covered"]
