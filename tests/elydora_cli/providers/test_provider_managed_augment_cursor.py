"""``--scope system`` for Auggie (``/etc/augment/settings.json``) and Cursor (enterprise ``/etc/cursor/hooks.json``).

Real files below ``--root``: our entries in the managed file, naming the root-owned launchers; an
administrator's file keeps every other byte and gets them all back on uninstall; ``--lock-down`` installs ours and
says there is no switch (neither agent has one); the probe's rows; the launchers enforce root's policy.
"""

from __future__ import annotations

import json
import os
import pwd
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from elydora_testkit.runtime_helpers import wait_until
from elydora_testkit.system_root import agents_on_path, layer, runtime, system, user_state

from elydora_cli import managed

AGENTS = ("augment", "cursor")
ADMIN = {
    "augment": '{\n  "model": "sonnet",\n  "hooks": {\n    "SessionStart": [{"hooks": [{"type": "command", '
    '"command": "/opt/fleet/start.sh"}]}]\n  }\n}\n',
    "cursor": '{\n  "version": 1,\n  "hooks": {\n    "beforeShellExecution": [{"command": "/opt/fleet/check.sh"}]\n'
    '  }\n}\n',
}
"""An administrator's own managed files, in their own layout."""
AUGGIE_PRE = {"hook_event_name": "PreToolUse", "conversation_id": "c1", "workspace_roots": ["/w"],
              "tool_name": "launch-process", "tool_input": {"command": "echo hi"}, "tool_output": "[undefined]",
              "tool_error": None, "is_mcp_tool": False}
AUGGIE_POST = {**AUGGIE_PRE, "hook_event_name": "PostToolUse", "tool_output": "hi\n"}


def install(root: Path, *extra: str) -> int:
    return system(root, "install", *AGENTS, "--python", sys.executable, *extra)


def _admin_files(root: Path) -> dict[Path, bytes]:
    found = {}
    for agent, text in ADMIN.items():
        path = layer(root, agent)
        path.parent.mkdir(parents=True)
        path.write_text(text)
        path.chmod(0o640)
        found[path] = path.read_bytes()
    return found


def test_install_points_the_managed_files_at_root_owned_launchers(tmp_path: Path) -> None:
    assert install(tmp_path) == 0
    settings = json.loads(layer(tmp_path, "augment").read_text())
    guard = settings["hooks"]["PreToolUse"][0]
    assert guard["matcher"] == ".*" and guard["hooks"][0]["command"] == sys.executable
    assert guard["hooks"][0]["args"][-1] == str(runtime(tmp_path, "augment") / "guard.py")
    assert settings["hooks"]["PostToolUse"][0]["hooks"][0]["args"][-1] == str(runtime(tmp_path, "augment") / "hook.py")
    hooks = json.loads(layer(tmp_path, "cursor").read_text())
    assert hooks["version"] == 1 and set(hooks["hooks"]) == {"preToolUse", "postToolUse", "postToolUseFailure"}
    pre = hooks["hooks"]["preToolUse"][0]
    assert pre["failClosed"] is True and str(runtime(tmp_path, "cursor") / "guard.py") in pre["command"]
    for agent in AGENTS:
        for path, mode in ((layer(tmp_path, agent), 0o644), (layer(tmp_path, agent).parent, 0o755),
                           (runtime(tmp_path, agent) / "guard.py", 0o755),
                           (runtime(tmp_path, agent) / "_elydora_policy.py", 0o644),
                           (runtime(tmp_path, agent) / managed.SYSTEM_STATUS, 0o644)):
            info = os.lstat(path)
            assert (stat.S_IMODE(info.st_mode), info.st_uid) == (mode, os.geteuid()), path
    assert not (tmp_path / "root" / ".augment").exists() and not (tmp_path / "root" / ".cursor").exists()


def test_an_administrators_file_keeps_its_bytes_and_gets_them_back(tmp_path: Path) -> None:
    before = _admin_files(tmp_path)
    assert install(tmp_path) == 0
    once = {p: p.read_bytes() for p in before}
    assert json.loads(once[layer(tmp_path, "augment")])["hooks"]["SessionStart"][0]["hooks"][0]["command"] == (
        "/opt/fleet/start.sh")
    assert json.loads(once[layer(tmp_path, "cursor")])["hooks"]["beforeShellExecution"] == [
        {"command": "/opt/fleet/check.sh"}]
    assert all(once[p].startswith(b'{\n  "') for p in once)
    assert all(stat.S_IMODE(os.lstat(p).st_mode) == 0o640 for p in before)  # an existing file keeps its mode
    assert install(tmp_path) == 0
    assert {p: p.read_bytes() for p in before} == once  # install twice = install once
    assert system(tmp_path, "uninstall", *AGENTS) == 0
    assert {p: p.read_bytes() for p in before} == before
    assert install(tmp_path) == 0
    assert {p: p.read_bytes() for p in before} == once  # reinstall: byte for byte the first install


def test_a_file_we_created_goes_away_on_uninstall(tmp_path: Path) -> None:
    assert install(tmp_path) == 0
    assert system(tmp_path, "uninstall", *AGENTS) == 0
    assert not layer(tmp_path, "augment").exists() and not layer(tmp_path, "cursor").exists()


def test_dry_run_shows_the_diff_and_writes_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = _admin_files(tmp_path)
    assert install(tmp_path, "--dry-run") == 0
    out = capsys.readouterr().out
    assert f"+++ {layer(tmp_path, 'augment')}" in out and f"+++ {layer(tmp_path, 'cursor')}" in out
    assert '+    "PreToolUse": [' in out and '+    "preToolUse": [' in out
    assert {p: p.read_bytes() for p in before} == before
    assert not (tmp_path / managed.RUNTIME_ROOT.lstrip("/")).exists()


@pytest.mark.parametrize("agent", AGENTS)
def test_lock_down_installs_without_a_switch_and_says_so(tmp_path: Path, agent: str,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    assert system(tmp_path, "install", agent, "--python", sys.executable, "--lock-down") == 0  # so --all works too
    out = capsys.readouterr().out
    assert "--lock-down: this managed layer has no switch" in out
    keys = _keys(json.loads(layer(tmp_path, agent).read_text()))
    assert keys and not [key for key in keys if "only" in key.lower()]  # no invented switch was written
    assert system(tmp_path, "install", agent, "--python", sys.executable) == 0
    assert "--lock-down" not in capsys.readouterr().out  # said only when asked for


def _keys(value: object) -> list[str]:
    """Every object key in JSON data, at any depth (values such as the hook command's path are not keys)."""
    if isinstance(value, dict):
        return [key for key, item in value.items() for key in (key, *_keys(item))]
    if isinstance(value, list):
        return [key for item in value for key in _keys(item)]
    return []


def test_a_version_less_enterprise_file_is_refused_untouched(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = layer(tmp_path, "cursor")
    path.parent.mkdir(parents=True)
    path.write_text('{"hooks": {}}\n')
    assert system(tmp_path, "install", "cursor", "--python", sys.executable) == 1
    assert capsys.readouterr().err.startswith(f"Error: {path}: ")
    assert path.read_text() == '{"hooks": {}}\n'


def test_status_rows_and_the_probe(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    agents_on_path(monkeypatch, tmp_path / "bin", "auggie", "cursor-agent")
    assert system(tmp_path, "status", "--json") == 1  # present, nothing installed yet
    doc = json.loads(capsys.readouterr().out)
    assert {u["provider"] for u in doc["unguarded"]} == set(AGENTS)
    assert install(tmp_path) == 0
    capsys.readouterr()
    assert system(tmp_path, "status", "--json") == 0
    doc = json.loads(capsys.readouterr().out)
    rows = {r["provider"]: r for r in doc["providers"]}
    assert doc["unguarded"] == [] and doc["ok"] is True
    for agent in AGENTS:
        row = rows[agent]
        assert (row["covered"], row["enforced"], row["delivering"], row["state"]) == (True, True, True, "healthy")
        assert row["managed_layer"] == str(layer(tmp_path, agent)) and row["lock_down"] is None
        assert row["guarantees"] == managed.LAYERS[agent].promise
    assert "not verified against a real Cursor" in rows["cursor"]["guarantees"]
    assert "featureFlagOverrides" in rows["augment"]["guarantees"]
    assert any("`enable_hooks` feature flag" in n for n in rows["augment"]["notes"])
    settings = json.loads(layer(tmp_path, "augment").read_text())
    del settings["hooks"]["PreToolUse"]
    layer(tmp_path, "augment").write_text(json.dumps(settings))  # someone removed our guard
    assert system(tmp_path, "status", "augment", "--json") == 1
    row = json.loads(capsys.readouterr().out)["providers"][0]
    assert not row["covered"] and row["state"] == "unhealthy"


def _run(root: Path, agent: str, script: str, event: dict[str, object]) -> subprocess.CompletedProcess[bytes]:
    (root / pwd.getpwuid(os.getuid()).pw_dir.lstrip("/")).mkdir(parents=True, exist_ok=True)
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    launcher = str(runtime(root, agent) / script)
    argv = [sys.executable, "-I", "-S", launcher]
    return subprocess.run(argv, input=json.dumps(event).encode(), capture_output=True, env=env, timeout=30)


def test_the_launchers_record_per_user_and_block_from_root_policy(tmp_path: Path) -> None:
    assert install(tmp_path) == 0
    state = user_state(tmp_path, "augment")
    assert _run(tmp_path, "augment", "guard.py", AUGGIE_PRE).returncode == 0
    assert _run(tmp_path, "augment", "hook.py", AUGGIE_POST).returncode == 0
    assert wait_until(lambda: (state / "ledger.jsonl").exists())
    record = json.loads((state / "ledger.jsonl").read_text().splitlines()[0])["record"]
    assert record["agent_id"] == state.name and record["payload"] == AUGGIE_POST  # names the OS user
    assert system(tmp_path, "agent", "freeze", "--provider", "augment") == 0
    blocked = _run(tmp_path, "augment", "guard.py", AUGGIE_PRE)
    assert blocked.returncode == 2 and b"is frozen in Elydora" in blocked.stderr
    (runtime(tmp_path, "cursor") / managed.SYSTEM_STATUS).unlink()  # fail closed: Cursor gets a deny
    cursor_pre = {"hook_event_name": "preToolUse", "conversation_id": "c", "generation_id": "g",
                  "tool_name": "Shell", "tool_input": {"command": "ls"}}
    missing = _run(tmp_path, "cursor", "guard.py", cursor_pre)
    assert missing.returncode == 2 and json.loads(missing.stdout)["permission"] == "deny", missing


def test_verify_runs_both_managed_entries(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert install(tmp_path) == 0
    assert system(tmp_path, "verify", *AGENTS) == 0
    out = capsys.readouterr().out
    assert "FAIL" not in out and out.count(" OK") == 7, out  # Auggie: allow, block, audit; Cursor: also a failure


def _augment_notes(root: Path, capsys: pytest.CaptureFixture[str]) -> list[str]:
    capsys.readouterr()
    assert system(root, "status", "augment", "--json") == 0
    notes: list[str] = json.loads(capsys.readouterr().out)["providers"][0]["notes"]
    return notes


def test_status_says_whether_users_can_override_the_hooks_flag(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    """Auggie takes ``featureFlagOverrides`` from the managed file first: set there, users' overrides are ignored."""
    assert system(tmp_path, "install", "augment", "--python", sys.executable) == 0
    assert any("featureFlagOverrides is not set here" in n for n in _augment_notes(tmp_path, capsys))
    path = layer(tmp_path, "augment")
    value = json.loads(path.read_text())
    path.write_text(json.dumps({**value, "featureFlagOverrides": {}}))
    assert not any("not set here" in n or "turns enable_hooks off" in n for n in _augment_notes(tmp_path, capsys))
    path.write_text(json.dumps({**value, "featureFlagOverrides": {"enableHooks": False}}))
    assert any("turns enable_hooks off" in n for n in _augment_notes(tmp_path, capsys))


def test_lock_down_over_several_agents_sets_the_switch_where_one_exists(tmp_path: Path,
                                                                        capsys: pytest.CaptureFixture[str]) -> None:
    assert system(tmp_path, "install", "claude", "augment", "--python", sys.executable, "--lock-down") == 0
    assert json.loads(layer(tmp_path, "claudecode").read_text())["allowManagedHooksOnly"] is True
    assert "--lock-down: this managed layer has no switch" in capsys.readouterr().out
