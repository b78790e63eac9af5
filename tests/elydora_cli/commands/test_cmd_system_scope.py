"""``--scope system``: our entries in the agents' managed layers, root-owned launchers, root-only policy.

Every path is placed below ``--root`` (the machine's /etc is never touched); the hooks run as the test's user,
whose per-user state is created below the same root.
"""

from __future__ import annotations

import json
import os
import pwd
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from elydora_testkit import system_root
from elydora_testkit.runtime_helpers import wait_until

from elydora_cli import managed
from elydora_cli.main import main

CLAUDE_PRE = {"hook_event_name": "PreToolUse", "transcript_path": "/t", "tool_name": "Bash", "session_id": "s1"}
CLAUDE_POST = {**CLAUDE_PRE, "hook_event_name": "PostToolUse", "tool_response": {"ok": True}}


def system(root: Path, *argv: str) -> int:
    return system_root.system(root / "home", *argv)


def install(root: Path, *extra: str) -> int:
    return system(root, "install", "claude", "codex", "--python", sys.executable, *extra)


def runtime(root: Path, agent: str) -> Path:
    return system_root.runtime(root / "home", agent)


def layer(root: Path, agent: str) -> Path:
    return system_root.layer(root / "home", agent)


def user_state(root: Path, agent: str) -> Path:
    return system_root.user_state(root / "home", agent)


def run_hook(root: Path, agent: str, script: str, event: dict[str, object]) -> subprocess.CompletedProcess[bytes]:
    user_state(root, agent).parent.parent.mkdir(parents=True, exist_ok=True)  # the user's home
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    launcher = runtime(root, agent) / script
    return subprocess.run([str(launcher)], input=json.dumps(event).encode(), capture_output=True, env=env, timeout=30)


def _unlocked(path: Path) -> bool:
    import fcntl

    with open(path, "rb") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
    return True


def test_install_writes_the_managed_layers_and_root_owned_launchers(root: Path) -> None:
    assert install(root) == 0
    settings = json.loads(layer(root, "claudecode").read_text())
    assert settings["hooks"]["PreToolUse"][0]["hooks"][0]["command"] == str(runtime(root, "claudecode") / "guard.py")
    assert "allowManagedHooksOnly" not in settings  # never without --lock-down
    text = layer(root, "codex").read_text()
    assert "[[hooks.PreToolUse]]" in text and str(runtime(root, "codex") / "guard.py") in text
    assert "allow_managed_hooks_only" not in text
    for path, mode in (
        (layer(root, "claudecode"), 0o644),
        (layer(root, "claudecode").parent, 0o755),
        (runtime(root, "claudecode"), 0o755),
        (runtime(root, "claudecode") / "guard.py", 0o755),
        (runtime(root, "claudecode") / "_elydora_guard.py", 0o644),
        (runtime(root, "claudecode") / managed.SYSTEM_STATUS, 0o644),
    ):
        info = os.lstat(path)
        assert (stat.S_IMODE(info.st_mode), info.st_uid) == (mode, os.geteuid()), path
    manifest_dir = root / "home" / managed.STATE_ROOT.lstrip("/") / ".elydora" / "claudecode"
    assert (manifest_dir / "install-manifest.json").is_file()
    assert not (manifest_dir / "private.key").exists()  # no machine identity: each user's comes on first use


def test_install_twice_is_install_once_and_uninstall_restores_every_byte(root: Path) -> None:
    claude, codex = layer(root, "claudecode"), layer(root, "codex")
    claude.parent.mkdir(parents=True)
    codex.parent.mkdir(parents=True)
    claude.write_text('{\n  "permissions": {"deny": ["WebFetch"]}\n}\n')
    codex.write_text('# fleet policy\nallowed_approval_policies = ["on-request"]\n\n[features]\nweb_search = false\n')
    before = {p: p.read_bytes() for p in (claude, codex)}
    assert install(root, "--lock-down") == 0
    once = {p: p.read_bytes() for p in (claude, codex)}
    assert json.loads(claude.read_text())["allowManagedHooksOnly"] is True
    assert "allow_managed_hooks_only = true" in codex.read_text()
    assert install(root) == 0  # no flag: the lock-down we set stays
    assert {p: p.read_bytes() for p in (claude, codex)} == once
    assert system(root, "uninstall", "claude", "codex") == 0
    assert {p: p.read_bytes() for p in (claude, codex)} == before


def test_no_lock_down_removes_only_our_switch(root: Path) -> None:
    claude = layer(root, "claudecode")
    claude.parent.mkdir(parents=True)
    claude.write_text('{"allowManagedHooksOnly": true}\n')  # the administrator's own
    assert install(root, "--lock-down") == 0
    assert install(root, "--no-lock-down") == 0
    assert json.loads(claude.read_text())["allowManagedHooksOnly"] is True
    assert system(root, "uninstall", "claude") == 0
    assert claude.read_text() == '{"allowManagedHooksOnly": true}\n'


def test_refusals(root: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    assert system(root, "install", "kimi") == 1
    assert "kimi: --scope system is not supported" in capsys.readouterr().err
    assert main(["install", "claude", "--lock-down", "--root", str(root / "home")]) == 2
    assert "apply to --scope system only" in capsys.readouterr().err
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    assert install(root) == 1
    assert "must run as root" in capsys.readouterr().err
    assert not (root / "home" / "etc").exists()


def test_guard_blocks_from_root_policy_even_when_the_user_deletes_their_state(root: Path) -> None:
    assert install(root) == 0
    assert run_hook(root, "claudecode", "guard.py", CLAUDE_PRE).returncode == 0
    assert run_hook(root, "claudecode", "hook.py", CLAUDE_POST).returncode == 0
    state = user_state(root, "claudecode")
    assert wait_until(lambda: (state / "ledger.jsonl").exists())
    assert main(["agent", "freeze", "--provider", "claude", "--scope", "system", "--root", str(root / "home")]) == 0
    blocked = run_hook(root, "claudecode", "guard.py", CLAUDE_PRE)
    assert blocked.returncode == 2 and b"is frozen in Elydora" in blocked.stderr
    assert wait_until(lambda: not (state / "flush.lock").exists() or _unlocked(state / "flush.lock"))
    shutil.rmtree(state)  # the user deletes their own state: the freeze is root's, it stays
    assert run_hook(root, "claudecode", "guard.py", CLAUDE_PRE).returncode == 2
    state.mkdir(mode=0o700)
    (state / "status.json").write_text('{"status": "active"}')  # nor can the user vote themselves active
    (state / "status.json").chmod(0o600)
    assert run_hook(root, "claudecode", "guard.py", CLAUDE_PRE).returncode == 2
    unfreeze = ["agent", "unfreeze", "--provider", "claude", "--scope", "system", "--root", str(root / "home")]
    assert main(unfreeze) == 0
    assert run_hook(root, "claudecode", "guard.py", CLAUDE_PRE).returncode == 0


def test_one_user_frozen_and_a_missing_policy_fail_closed(root: Path) -> None:
    assert install(root) == 0
    user = pwd.getpwuid(os.getuid()).pw_name
    freeze = ["agent", "freeze", "--provider", "codex", "--scope", "system", "--user", user]
    assert main([*freeze, "--root", str(root / "home")]) == 0
    event = {"hook_event_name": "PreToolUse", "tool_name": "shell", "session_id": "s"}
    assert run_hook(root, "codex", "guard.py", event).returncode == 2
    (runtime(root, "codex") / managed.POLICY_USERS / f"{user}.json").unlink()
    assert run_hook(root, "codex", "guard.py", event).returncode == 0
    (runtime(root, "codex") / managed.SYSTEM_STATUS).unlink()
    missing = run_hook(root, "codex", "guard.py", event)
    assert missing.returncode == 2 and b"status.json is missing" in missing.stderr


def test_audit_creates_the_users_identity_on_first_use_naming_the_os_user(root: Path) -> None:
    assert install(root) == 0
    assert run_hook(root, "claudecode", "hook.py", CLAUDE_POST).returncode == 0
    state = user_state(root, "claudecode")
    assert wait_until(lambda: (state / "ledger.jsonl").exists())
    config = json.loads((state / "config.json").read_text())
    assert config["agent_id"] == state.name and config["agent_name"] == "claudecode"
    record = json.loads((state / "ledger.jsonl").read_text().splitlines()[0])["record"]
    assert record["agent_id"] == state.name and record["payload"] == CLAUDE_POST
    assert stat.S_IMODE(os.lstat(state).st_mode) == 0o700


def test_status_probe(root: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    bin_dir = root / "bin"
    system_root.agents_on_path(monkeypatch, bin_dir, "claude", "kimi")
    assert system(root, "status", "--json") == 1  # claude present, nothing installed yet
    doc = json.loads(capsys.readouterr().out)
    assert {u["provider"] for u in doc["unguarded"]} == {"claudecode", "kimi"}
    assert install(root, "--lock-down") == 0
    capsys.readouterr()
    assert system(root, "status", "--json") == 1  # kimi has no managed layer: present but unguarded
    doc = json.loads(capsys.readouterr().out)
    assert [u["provider"] for u in doc["unguarded"]] == ["kimi"]
    rows = {r["provider"]: r for r in doc["providers"]}
    assert rows["claudecode"]["covered"] and rows["claudecode"]["enforced"] and rows["claudecode"]["delivering"]
    assert rows["claudecode"]["lock_down"]["on"] and "user, project and local" in rows["claudecode"]["lock_down"][
        "switches_off"]
    (bin_dir / "kimi").unlink()
    assert system(root, "status", "--json") == 0
    (runtime(root, "claudecode") / "_elydora_guard.py").chmod(0o666)  # a user could now rewrite the guard
    capsys.readouterr()
    assert system(root, "status", "--json") == 1
    doc = json.loads(capsys.readouterr().out)
    claude = next(r for r in doc["providers"] if r["provider"] == "claudecode")
    assert any("writable by other users" in p for p in claude["problems"])


def test_verify_runs_the_managed_entries_against_scratch_state(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert install(root) == 0
    assert system(root, "verify", "claude", "codex") == 0
    out = capsys.readouterr().out
    assert "FAIL" not in out and out.count(" OK") == 7  # Claude: allow, block, 2 audits; Codex: allow, block, audit
    assert not user_state(root, "claudecode").exists()  # a probe never reaches a user's state
    (runtime(root, "codex") / managed.SYSTEM_STATUS).unlink()
    assert system(root, "verify", "codex") == 1
    assert "guard blocks every tool call" in capsys.readouterr().out


def test_dry_run_shows_the_managed_diff_and_writes_nothing(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert install(root, "--dry-run") == 0
    out = capsys.readouterr().out
    assert f"+++ {layer(root, 'claudecode')}" in out and "+[[hooks.PreToolUse]]" in out
    assert sorted(p.name for p in (root / "home").iterdir()) == []


def test_an_interpreter_without_elydora_is_enforced_but_not_delivering(
    root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The hooks' interpreter must import the flusher: install warns, the probe says not delivering."""
    python = root / "bin" / "python3"
    python.parent.mkdir()
    python.write_text(f'#!/bin/sh\ncase "$*" in *find_spec*) exit 1;; esac\nexec {sys.executable} "$@"\n')
    python.chmod(0o755)
    assert system(root, "install", "claude", "--python", str(python)) == 0
    assert "cannot import elydora_cli" in capsys.readouterr().out
    assert system(root, "status", "claude", "--json") == 1
    row = json.loads(capsys.readouterr().out)["providers"][0]
    assert (row["covered"], row["enforced"], row["delivering"], row["state"]) == (True, True, False, "unhealthy")
