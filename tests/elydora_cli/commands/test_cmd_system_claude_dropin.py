"""Claude Code under ``--scope system``: our drop-in beside the organization's ``managed-settings.json``.

The organization's file is never written (an earlier install's entries are moved out of it, byte for byte back
to what it was); status reads the whole file tier, and names the managed source Claude Code uses when another
one (a user's cached server-managed settings, the macOS profile) replaces the files.
"""

from __future__ import annotations

import json
import plistlib
import stat
import sys
from pathlib import Path

import pytest
from elydora_testkit import system_root
from elydora_testkit.platforms import posix_only

from elydora_cli import managed
from elydora_cli.plug import layers
from elydora_cli.providers import claudecode

pytestmark = posix_only("system scope is refused on Windows for now")

ORG = '{\n  "permissions": {"deny": ["WebFetch"]},\n  "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [\n' \
      '    {"type": "command", "command": "/opt/org/check.sh"}]}]}\n}\n'


@pytest.fixture()
def sysroot(root: Path) -> Path:
    return root / "home"


def system(sysroot: Path, *argv: str) -> int:
    return system_root.system(sysroot, *argv)


def dropin(sysroot: Path) -> Path:
    return system_root.layer(sysroot, "claudecode")


def base(sysroot: Path) -> Path:
    return dropin(sysroot).parent.parent / claudecode.BASE_FILE


def probe(sysroot: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, object]]:
    capsys.readouterr()
    code = system(sysroot, "status", "claude", "--json")
    doc = json.loads(capsys.readouterr().out)
    return code, doc["providers"][0]


def test_install_writes_a_drop_in_and_never_the_organizations_file(sysroot: Path) -> None:
    base(sysroot).parent.mkdir(parents=True)
    base(sysroot).write_text(ORG)
    assert system(sysroot, "install", "claude", "--lock-down", "--python", sys.executable) == 0
    assert base(sysroot).read_text() == ORG
    ours = json.loads(dropin(sysroot).read_text())
    assert ours["allowManagedHooksOnly"] is True and "PreToolUse" in ours["hooks"]
    assert stat.S_IMODE(dropin(sysroot).stat().st_mode) == managed.POLICY_MODE
    assert stat.S_IMODE(dropin(sysroot).parent.stat().st_mode) == managed.DIR_MODE
    once = dropin(sysroot).read_bytes()
    assert system(sysroot, "install", "claude", "--python", sys.executable) == 0
    assert dropin(sysroot).read_bytes() == once
    assert system(sysroot, "uninstall", "claude") == 0
    assert base(sysroot).read_text() == ORG and not dropin(sysroot).exists()


def test_an_earlier_install_in_the_organizations_file_moves_into_the_drop_in(
    sysroot: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Installs before the drop-in wrote managed-settings.json itself: the next install takes its entries and
    lock-down switch out (the file's bytes are the organization's again) and writes them into the drop-in."""
    base(sysroot).parent.mkdir(parents=True)
    base(sysroot).write_text(ORG)
    old = managed.ManagedLayer("claudecode", "/etc/claude-code/managed-settings.json", "", None, promise="old",
                               lockdown_key="allowManagedHooksOnly", lockdown_off="hooks")
    with monkeypatch.context() as old_layout:  # the earlier layout: our entries in the organization's file
        old_layout.setitem(managed.LAYERS, "claudecode", old)
        old_layout.setattr(claudecode, "BASE_FILE", "claude-code/unused/none.json")
        assert system(sysroot, "install", "claude", "--lock-down", "--python", sys.executable) == 0
    legacy = json.loads(base(sysroot).read_text())
    assert legacy["allowManagedHooksOnly"] is True and len(legacy["hooks"]["PreToolUse"]) == 2
    assert system(sysroot, "status", "claude") == 1  # the leftovers would run twice beside a drop-in
    assert system(sysroot, "install", "claude", "--python", sys.executable) == 0
    assert base(sysroot).read_text() == ORG
    assert json.loads(dropin(sysroot).read_text())["allowManagedHooksOnly"] is True  # kept, now in the drop-in
    assert system(sysroot, "uninstall", "claude") == 0
    assert base(sysroot).read_text() == ORG and not dropin(sysroot).exists()


def test_a_file_we_created_in_the_old_layout_is_deleted_when_moved_out(
    sysroot: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    old = managed.ManagedLayer("claudecode", "/etc/claude-code/managed-settings.json", "", None, promise="old")
    with monkeypatch.context() as old_layout:
        old_layout.setitem(managed.LAYERS, "claudecode", old)
        old_layout.setattr(claudecode, "BASE_FILE", "claude-code/unused/none.json")
        assert system(sysroot, "install", "claude", "--python", sys.executable) == 0
    assert base(sysroot).exists()
    assert system(sysroot, "install", "claude", "--python", sys.executable) == 0
    assert not base(sysroot).exists() and dropin(sysroot).exists()


def test_disable_all_hooks_anywhere_in_the_file_tier(sysroot: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Claude Code merges the drop-ins over the base file, later names winning: a true there is every hook off."""
    base(sysroot).parent.mkdir(parents=True)
    base(sysroot).write_text('{"disableAllHooks": true}\n')
    assert system(sysroot, "install", "claude", "--python", sys.executable) == 1
    assert "disableAllHooks is true in" in capsys.readouterr().err and not dropin(sysroot).exists()
    base(sysroot).write_text("{}\n")
    assert system(sysroot, "install", "claude", "--python", sys.executable) == 0
    later = dropin(sysroot).parent / "zz-team.json"
    later.write_text('{"disableAllHooks": true}\n')
    code, row = probe(sysroot, capsys)
    assert code == 1 and not row["covered"] and any(str(later) in p for p in row["problems"])  # type: ignore[union-attr]
    earlier = dropin(sysroot).parent / "00-team.json"
    later.rename(earlier)  # before ours: our drop-in does not set it, so the merged value is still true
    assert probe(sysroot, capsys)[0] == 1
    earlier.write_text("not json")  # a drop-in Claude Code cannot parse is skipped (and stops nothing of ours)
    assert probe(sysroot, capsys)[0] == 0


def _user_claude_dir(sysroot: Path) -> Path:
    return system_root.user_state(sysroot, "claudecode").parent.parent / ".claude"


def test_status_names_cached_server_managed_settings_as_not_certain(
    sysroot: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A user's cached copy of server-managed settings replaces the files once Claude Code verifies it, which
    status cannot check: it names the copy and the user, and says enforced is not certain for them."""
    assert system(sysroot, "install", "claude", "--python", sys.executable) == 0
    code, row = probe(sysroot, capsys)
    source = row["managed_source"]
    assert code == 0 and source["used"]["source"] == "files" and "cannot be seen" in source["unseen"]  # type: ignore[index]
    assert source["uncertain"] == []  # type: ignore[index]
    cache = _user_claude_dir(sysroot) / "remote-settings.json"
    cache.parent.mkdir(parents=True)
    cache.write_text(json.dumps({"permissions": {"deny": ["Bash(curl:*)"]}}))
    code, row = probe(sysroot, capsys)
    user = system_root.user_state(sysroot, "claudecode").name.split("@")[1]
    assert code == 0 and row["managed_source"]["per_user"][user]["source"] == "remote"  # type: ignore[index]
    assert row["managed_source"]["uncertain"] == [user]  # type: ignore[index]
    assert any(str(cache) in n and f"our hooks do not run for user {user}" in n
               for n in row["notes"])  # type: ignore[union-attr]
    capsys.readouterr()
    system(sysroot, "status", "claude")
    assert f"not certain for {user} (cached server-managed settings)" in capsys.readouterr().out
    cache.write_text(json.dumps({"managedSourcesBehavior": "merge"}))  # the winner merges: ours runs too
    code, row = probe(sysroot, capsys)
    assert code == 0 and row["managed_source"]["uncertain"] == []  # type: ignore[index]
    assert any("merges every managed source" in n for n in row["notes"])  # type: ignore[union-attr]


def test_status_names_the_macos_profile_and_sees_our_hooks_in_it(
    sysroot: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(layers, "on_macos", lambda: True)
    assert system(sysroot, "install", "claude", "--python", sys.executable) == 0
    assert _macos_dropin(sysroot).exists()
    folder = sysroot / "Library" / "Managed Preferences"
    folder.mkdir(parents=True)
    profile = folder / "com.anthropic.claudecode.plist"
    profile.write_bytes(plistlib.dumps({"permissions": {"deny": ["WebFetch"]}}, fmt=plistlib.FMT_BINARY))
    code, row = probe(sysroot, capsys)
    assert code == 1 and row["managed_source"]["used"]["source"] == "plist"  # type: ignore[index]
    assert any(str(profile) in p and "ignores managed-settings.json" in p for p in row["problems"])  # type: ignore[union-attr]
    ours = json.loads(_macos_dropin(sysroot).read_text())
    profile.write_bytes(plistlib.dumps({**ours, "permissions": {"deny": ["WebFetch"]}}))
    code, row = probe(sysroot, capsys)
    assert code == 0 and row["managed_source"]["used"]["holds_ours"] is True  # type: ignore[index]


def _macos_dropin(sysroot: Path) -> Path:
    return sysroot / managed.LAYERS["claudecode"].macos.lstrip("/")
