"""``--scope system`` for Gemini CLI and Qwen Code: our entries in their system settings files (merged last).

Real files below ``--root``: install, reinstall and uninstall byte for byte, an administrator's file kept, the
hooks-on pin ours by record, ``--lock-down`` without a switch said, and the compliance probe's rows.
"""

from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path

import pytest
from elydora_testkit import system_root

from elydora_cli import managed
from elydora_cli.plug.contract import Format
from elydora_cli.plug.documents import parse

AGENTS = ("gemini", "qwen")
PIN = {"gemini": ("hooksConfig", "enabled", True), "qwen": (None, "disableAllHooks", False)}
EVENTS = {"gemini": ("BeforeTool", "AfterTool"), "qwen": ("PreToolUse", "PostToolUse")}


def system(root: Path, *argv: str) -> int:
    return system_root.system(root / "home", *argv)


def install(root: Path, agent: str, *extra: str) -> int:
    return system(root, "install", agent, "--python", sys.executable, *extra)


def layer(root: Path, agent: str) -> Path:
    return system_root.layer(root / "home", agent)


def value(path: Path) -> dict[str, object]:
    parsed = parse(path.read_text(), Format.JSONC_NO_TRAILING_COMMAS, path).value
    assert isinstance(parsed, dict)
    return parsed


def pinned(agent: str, settings: dict[str, object]) -> object:
    parent, key, _ = PIN[agent]
    holder = settings.get(parent, {}) if parent else settings
    return holder.get(key) if isinstance(holder, dict) else None


@pytest.mark.parametrize("agent", AGENTS)
def test_install_writes_entries_and_the_pin_into_the_system_file(root: Path, agent: str) -> None:
    assert install(root, agent) == 0
    path = layer(root, agent)
    settings = value(path)
    assert pinned(agent, settings) is PIN[agent][2]
    launcher_dir = system_root.runtime(root / "home", agent)
    hooks = settings["hooks"]
    assert isinstance(hooks, dict)
    for event, script in zip(EVENTS[agent], ("guard.py", "hook.py"), strict=True):
        assert str(launcher_dir / script) in hooks[event][0]["hooks"][0]["command"]
    for where, mode in ((path, 0o644), (path.parent, 0o755), (launcher_dir / "guard.py", 0o755)):
        info = os.lstat(where)
        assert (stat.S_IMODE(info.st_mode), info.st_uid) == (mode, os.geteuid()), where
    once = path.read_bytes()
    assert install(root, agent) == 0
    assert path.read_bytes() == once
    assert system(root, "uninstall", agent) == 0
    assert not path.exists()  # we created it: nothing of anyone else's remains


ADMIN = {
    "gemini": '{\n  // fleet policy\n  "general": {"enableAutoUpdate": false},\n'
    '  "hooksConfig": {"notifications": false}\n}\n',
    "qwen": '// fleet policy\n{\n  "general": {"enableAutoUpdate": false},\n  "hooks": {"PreToolUse": []}\n}\n',
}


@pytest.mark.parametrize("agent", AGENTS)
@pytest.mark.parametrize("text", ["admin", "bare"])
def test_an_administrators_system_settings_are_kept_byte_for_byte(root: Path, agent: str, text: str) -> None:
    path = layer(root, agent)
    path.parent.mkdir(parents=True)
    before = (ADMIN[agent] if text == "admin" else '{"ui": {"theme": "x"}}').encode()
    path.write_bytes(before)
    path.chmod(0o640)
    assert install(root, agent) == 0
    once = path.read_bytes()
    assert b"fleet policy" in once or text == "bare"
    assert pinned(agent, value(path)) is PIN[agent][2] and value(path).get("general", {}) == (
        {"enableAutoUpdate": False} if text == "admin" else {})
    assert stat.S_IMODE(path.stat().st_mode) == 0o640  # an existing file keeps its mode
    assert install(root, agent) == 0
    assert path.read_bytes() == once
    assert system(root, "uninstall", agent) == 0
    assert path.read_bytes() == before
    assert install(root, agent) == 0  # install again after uninstall: the same bytes as the first time
    assert path.read_bytes() == once


@pytest.mark.parametrize("agent", AGENTS)
def test_an_administrators_own_pin_stays_theirs(root: Path, agent: str) -> None:
    parent, key, on = PIN[agent]
    own = {parent: {key: on}} if parent else {key: on}
    path = layer(root, agent)
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(own) + "\n")
    assert install(root, agent) == 0 and system(root, "uninstall", agent) == 0
    assert json.loads(path.read_text()) == own


@pytest.mark.parametrize("agent", AGENTS)
def test_hooks_switched_off_in_the_system_file_refuse_the_install(
    root: Path, agent: str, capsys: pytest.CaptureFixture[str]
) -> None:
    parent, key, on = PIN[agent]
    path = layer(root, agent)
    path.parent.mkdir(parents=True)
    text = json.dumps({parent: {key: not on}} if parent else {key: not on})
    path.write_text(text)
    assert install(root, agent) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"Error: {path}: ") and "hooks are disabled" in err and key in err
    assert path.read_text() == text
    assert not (root / "home" / managed.RUNTIME_ROOT.lstrip("/")).exists()


@pytest.mark.parametrize("agent", AGENTS)
def test_lock_down_installs_without_a_switch_and_says_so(root: Path, agent: str,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    assert install(root, agent, "--lock-down") == 0
    assert "--lock-down: this managed layer has no switch" in capsys.readouterr().out
    assert "ManagedHooksOnly" not in layer(root, agent).read_text()


def test_dry_run_shows_both_diffs_and_writes_nothing(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert system(root, "install", "gemini", "qwen", "--python", sys.executable, "--dry-run") == 0
    out = capsys.readouterr().out
    for agent in AGENTS:
        assert f"+++ {layer(root, agent)}" in out
    assert '"hooksConfig": {"enabled": true}' in out and '"disableAllHooks": false' in out
    assert list((root / "home").iterdir()) == []


def test_qwens_system_settings_variable_does_not_move_a_system_install(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The variable is each user's to set; the machine's file is the one every user reads by default."""
    monkeypatch.setenv("QWEN_CODE_SYSTEM_SETTINGS_PATH", str(root / "elsewhere.json"))
    assert install(root, "qwen") == 0
    assert layer(root, "qwen").is_file() and not (root / "elsewhere.json").exists()


def test_status_rows_and_a_removed_pin(
    root: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    system_root.agents_on_path(monkeypatch, root / "bin", "gemini", "qwen")
    assert system(root, "status", "--json") == 1
    doc = json.loads(capsys.readouterr().out)
    assert {u["provider"] for u in doc["unguarded"]} == {"gemini", "qwen"}
    assert system(root, "install", "gemini", "qwen", "--python", sys.executable) == 0
    capsys.readouterr()
    assert system(root, "status", "--json") == 0
    doc = json.loads(capsys.readouterr().out)
    rows = {r["provider"]: r for r in doc["providers"]}
    for agent in AGENTS:
        row = rows[agent]
        assert (row["covered"], row["enforced"], row["delivering"]) == (True, True, True), row
        assert row["managed_layer"] == str(layer(root, agent)) and row["lock_down"] is None
        assert "CAN still silence ours" in row["guarantees"]
    path = layer(root, "qwen")
    path.write_text(path.read_text().replace('"disableAllHooks": false, ', ""))
    assert system(root, "status", "--json") == 1
    row = {r["provider"]: r for r in json.loads(capsys.readouterr().out)["providers"]}["qwen"]
    assert not row["covered"] and any("can switch every hook off" in p for p in row["problems"]), row


@pytest.mark.parametrize("agent", AGENTS)
@pytest.mark.parametrize(
    ("change", "problem"),
    [
        ("file 0640", "is not readable by every user (mode 0640)"),
        ("file 0664", "is writable by group or others (mode 0664)"),
        ("directory 0777", "is writable by group or others (mode 0777)"),
        ("file uid 1000", "is owned by uid 1000, not by root"),
    ],
)
def test_status_reports_a_system_file_users_cannot_read_or_could_change(
    root: Path, agent: str, change: str, problem: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Gemini skips such a file (or one below such a directory); unreadable, it gives users no hooks."""
    assert install(root, agent) == 0
    path = layer(root, agent)
    what, how = change.split(" ", 1)
    where = path if what == "file" else path.parent
    if how.startswith("uid"):
        if os.geteuid() != 0:
            pytest.skip("changing a file's owner needs root")
        os.chown(where, int(how.split()[1]), -1)
    else:
        where.chmod(int(how, 8))
    capsys.readouterr()
    assert system(root, "status", agent, "--json") == 1
    row = json.loads(capsys.readouterr().out)["providers"][0]
    assert not row["covered"] and any(problem in p and str(where) in p for p in row["problems"]), row
    where.chmod(0o644 if what == "file" else 0o755)
    if how.startswith("uid"):
        os.chown(where, 0, -1)
    assert system(root, "status", agent, "--json") == 0


def test_verify_runs_the_system_entries(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert system(root, "install", "gemini", "qwen", "--python", sys.executable) == 0
    capsys.readouterr()
    assert system(root, "verify", "gemini", "qwen") == 0
    out = capsys.readouterr().out
    assert "FAIL" not in out and out.count(" OK") == 7  # Gemini: allow, block, audit; Qwen: also the failure audit
