"""Root's witness of each user's chain head under ``--scope system`` (issue 27, item 7).

A user owns their state directory: a whole older copy of it put back agrees with itself, and before issue 27
nothing noticed (``audit verify`` passed, the compliance probe said healthy). Root's compliance probe now keeps
each user's last chain head where only root can write, and reports a ledger that lost it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from elydora_testkit import system_root
from elydora_testkit.runtime_helpers import wait_until

from elydora_cli.runtime import witness

CLAUDE_POST = {"hook_event_name": "PostToolUse", "transcript_path": "/t", "tool_name": "Bash", "session_id": "s1"}


def _system(root: Path, *argv: str) -> int:
    return system_root.system(root / "home", *argv)


def _record(root: Path, n: int) -> None:
    """One audited tool call of this user, signed into their ledger."""
    state = system_root.user_state(root / "home", "claudecode")
    state.parent.parent.mkdir(parents=True, exist_ok=True)
    launcher = system_root.runtime(root / "home", "claudecode") / "hook.py"
    before = len((state / "ledger.jsonl").read_bytes().splitlines()) if (state / "ledger.jsonl").exists() else 0
    event = json.dumps({**CLAUDE_POST, "n": n}).encode()
    done = subprocess.run([str(launcher)], input=event, capture_output=True, timeout=30, env={"PATH": os.defpath})
    assert done.returncode == 0, done.stderr
    ledger = state / "ledger.jsonl"
    assert wait_until(lambda: ledger.exists() and len(ledger.read_bytes().splitlines()) > before, timeout=60)
    assert wait_until(lambda: not (state / "spool.jsonl").exists(), timeout=60)  # retired: nothing in flight


def _probe(root: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, object]:
    _system(root, "status", "claude", "--json")
    doc = json.loads(capsys.readouterr().out)
    return next(r for r in doc["providers"] if r["provider"] == "claudecode")


def test_root_catches_a_users_directory_restored_from_an_older_copy(
    root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _system(root, "install", "claude", "--python", sys.executable) == 0
    _record(root, 1)
    state = system_root.user_state(root / "home", "claudecode")
    copy = root / "older-copy"
    shutil.copytree(state, copy, symlinks=True)
    _record(root, 2)
    capsys.readouterr()
    row = _probe(root, capsys)  # root sees the user's head after two calls
    assert row["rolled_back_users"] == {}
    user = state.name.partition("@")[2]
    seen = root / "home" / "var" / "lib" / "elydora" / ".elydora" / "claudecode" / witness.HEADS / f"{user}.json"
    assert json.loads(seen.read_text())["seq"] == 2 and seen.stat().st_mode & 0o777 == 0o600
    shutil.rmtree(state)
    shutil.copytree(copy, state, symlinks=True)  # the user puts the older copy back: it agrees with itself
    row = _probe(root, capsys)
    assert row["state"] == "unhealthy" and user in row["rolled_back_users"]  # type: ignore[operator]
    assert "no longer holds entry 2" in " ".join(row["problems"])  # type: ignore[arg-type]


def test_the_record_moves_forward_with_the_ledger(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _system(root, "install", "claude", "--python", sys.executable) == 0
    _record(root, 1)
    capsys.readouterr()
    assert _probe(root, capsys)["rolled_back_users"] == {}
    _record(root, 2)
    _record(root, 3)
    row = _probe(root, capsys)
    assert row["rolled_back_users"] == {} and row["state"] == "healthy", row["problems"]
