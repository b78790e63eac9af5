"""``audit tail``/``audit verify`` right after the audit hook see its record (they catch up with the
spool), and say how many events are still pending when they cannot."""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
from pathlib import Path

import pytest

from elydora_cli import identity, pending
from elydora_cli.installer.verify import payload
from elydora_cli.main import main

RUNS = 25


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def home(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    monkeypatch.delenv("ELYDORA_VERIFY_PROBE", raising=False)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "home").mkdir()
    assert run(capsys, "install", "claudecode", "--root", str(tmp_path / "home"))[0] == 0
    return tmp_path / "home"


def audit_hook(home: Path) -> None:
    """The installed PostToolUse entry, run as Claude Code runs it (it spools and starts the flusher)."""
    settings = json.loads((home / ".claude" / "settings.json").read_text())
    handler = settings["hooks"]["PostToolUse"][0]["hooks"][0]
    data = payload("claudecode", "PostToolUse", str(home.parent))
    done = subprocess.run([handler["command"], *handler["args"]], input=data, capture_output=True, check=False)
    assert done.returncode == 0, done.stderr


def test_tail_right_after_the_audit_hook_shows_the_record(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for number in range(1, RUNS + 1):
        audit_hook(home)
        code, out, err = run(capsys, "audit", "tail", "--provider", "claude", "--root", str(home), "-n", "1")
        assert code == 0 and err == "" and out.startswith(f"#{number} "), (number, out, err)
    code, out, _ = run(capsys, "audit", "verify", "--provider", "claude", "--root", str(home), "--json")
    report = json.loads(out)
    assert code == 0 and report["entries"] == RUNS and report["pending"] == 0


def test_verify_right_after_the_audit_hook_counts_the_record(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for number in range(1, 6):
        audit_hook(home)
        code, out, _ = run(capsys, "audit", "verify", "--provider", "claude", "--root", str(home))
        assert code == 0 and out.startswith(f"ledger OK: {number} entries"), out


def test_events_a_busy_flusher_keeps_are_counted_as_pending(
    home: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    agent = home / ".elydora" / "claudecode"
    lock = os.open(agent / identity.FLUSH_LOCK, os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(lock, fcntl.LOCK_EX)  # a flusher that never finishes
    try:
        monkeypatch.setattr(pending, "WAIT_SECONDS", 0.3)
        audit_hook(home)
        audit_hook(home)
        assert pending.count(str(agent)) == 2
        code, out, err = run(capsys, "audit", "tail", "--provider", "claude", "--root", str(home))
        assert code == 0 and out == ""
        assert err == "note: 2 event(s) still spooled, not yet in the ledger (elydora audit flush delivers them)\n"
        code, out, err = run(capsys, "audit", "verify", "--provider", "claude", "--root", str(home), "--json")
        assert code == 0 and json.loads(out)["pending"] == 2 and "2 event(s) still spooled" in err
    finally:
        os.close(lock)
    code, out, err = run(capsys, "audit", "tail", "--provider", "claude", "--root", str(home))
    assert code == 0 and err == "" and len(out.splitlines()) == 2
    assert pending.count(str(agent)) == 0
