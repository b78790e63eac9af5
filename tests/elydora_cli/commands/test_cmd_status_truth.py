"""Issue 13: ``status`` never says healthy when the guard will not enforce or the audit will not record,
``verify`` fails on broken enforcement inputs, and every broken state has a repair (real files, CLI in process).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from elydora_testkit.platforms import NO_MODES, NO_SPECIAL_FILES, WINDOWS, posix_only

from elydora_cli.main import main
from elydora_cli.runtime import runtime_argv

PROVIDER = "claudecode"
TOO_OPEN = pytest.param("too open", marks=posix_only(NO_MODES))


def cli(capsys: pytest.CaptureFixture[str], root: Path, *argv: str) -> tuple[int, str, str]:
    code = main([*argv, "--root", str(root / "home")])
    out, err = capsys.readouterr()
    return code, out, err


def status_json(capsys: pytest.CaptureFixture[str], root: Path) -> tuple[int, dict[str, object]]:
    code, out, _ = cli(capsys, root, "status", PROVIDER, "--json")
    doc = json.loads(out)
    row = doc["providers"][0]
    assert isinstance(row, dict)
    return code, row


def agent_dir(root: Path) -> Path:
    return root / "home" / ".elydora" / PROVIDER


def guard_exit(root: Path) -> int:
    argv = runtime_argv(sys.executable, agent_dir(root) / "guard.py")
    event = {"hook_event_name": "PreToolUse", "transcript_path": "/t.jsonl", "tool_name": "Bash", "session_id": "s"}
    data = json.dumps(event).encode()
    return subprocess.run(argv, input=data, capture_output=True, check=False, timeout=30).returncode


@pytest.fixture
def installed(root: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    assert cli(capsys, root, "install", PROVIDER)[0] == 0
    assert status_json(capsys, root)[0] == 0
    return root


def _break(directory: Path, how: str) -> None:
    status = directory / "status.json"
    if how == "missing":
        status.unlink()
    elif how == "corrupt":
        status.write_text('{"status": "froz')
    elif how == "too open":
        status.chmod(0o644)
    elif how == "config too open":
        (directory / "config.json").chmod(0o640)


@pytest.mark.parametrize(
    "how", ["missing", "corrupt", TOO_OPEN, pytest.param("config too open", marks=posix_only(NO_MODES))]
)
def test_guard_off_status_healthy_freeze_refused(installed: Path, capsys: pytest.CaptureFixture[str], how: str) -> None:
    root = installed
    _break(agent_dir(root), how)
    code, row = status_json(capsys, root)
    assert code == 1 and row["state"] == "unguarded" and row["enforced"] is False and row["healthy"] is False
    assert any("status.json" in p or "config.json" in p for p in row["enforcement"])  # type: ignore[union-attr]
    code, out, _ = cli(capsys, root, "verify", PROVIDER)
    assert code == 1 and "FAIL" in out
    if how != "config too open":
        _, out, _ = cli(capsys, root, "agent", "show", "--provider", PROVIDER)
        assert "status: unenforced" in out
    code, out, err = cli(capsys, root, "agent", "freeze", "--provider", PROVIDER)
    assert code == 0, err
    assert guard_exit(root) == 2  # enforced again: frozen blocks (claudecode's deny exit)
    if how != "config too open":
        assert "repaired" in out
    if how == "config too open":
        assert cli(capsys, root, "install", PROVIDER)[0] == 0
    assert WINDOWS or os.stat(agent_dir(root) / "status.json").st_mode & 0o077 == 0  # Windows: NO_MODES
    assert status_json(capsys, root)[1]["state"] == "frozen"


@pytest.mark.parametrize("how", ["missing", "corrupt", TOO_OPEN])
def test_guard_off_reinstall_restores_status(installed: Path, capsys: pytest.CaptureFixture[str], how: str) -> None:
    root = installed
    assert cli(capsys, root, "agent", "freeze", "--provider", PROVIDER)[0] == 0
    _break(agent_dir(root), how)
    code, out, _ = cli(capsys, root, "install", PROVIDER)
    assert code == 0 and "repaired" in out
    code, row = status_json(capsys, root)
    assert (code, row["state"], row["agent_state"]) == (1, "frozen", "frozen")  # a frozen agent stays frozen
    assert guard_exit(root) == 2


def test_guard_off_missing_status_without_history_is_restored_frozen(
    installed: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = installed
    _break(agent_dir(root), "missing")
    assert cli(capsys, root, "install", PROVIDER)[0] == 0
    assert status_json(capsys, root)[1]["agent_state"] == "frozen"  # fail safe
    assert cli(capsys, root, "agent", "unfreeze", "--provider", PROVIDER)[0] == 0
    assert status_json(capsys, root) == (0, status_json(capsys, root)[1]) and guard_exit(root) == 0


def test_frozen_or_revoked_status_healthy(installed: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = installed
    assert cli(capsys, root, "agent", "freeze", "--provider", PROVIDER)[0] == 0
    code, row = status_json(capsys, root)
    assert (code, row["state"], row["agent_state"], row["enforced"]) == (1, "frozen", "frozen", True)
    code, _, err = cli(capsys, root, "agent", "revoke", "--provider", PROVIDER)  # no terminal, no --yes
    assert code == 2 and "--yes" in err
    assert status_json(capsys, root)[1]["agent_state"] == "frozen"
    assert cli(capsys, root, "agent", "revoke", "--provider", PROVIDER, "--yes")[0] == 0
    code, out, _ = cli(capsys, root, "status", PROVIDER)
    assert code == 1 and "revoked" in out
    # a lost status.json of a revoked agent comes back revoked (from the signed history)
    _break(agent_dir(root), "missing")
    code, _, err = cli(capsys, root, "agent", "unfreeze", "--provider", PROVIDER)
    assert code == 1 and "revoked for good" in err
    assert status_json(capsys, root)[1]["agent_state"] == "revoked"


def test_frozen_or_revoked_revoke_asks_on_a_terminal(
    installed: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import io

    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.setattr(sys, "stdin", Tty("n\n"))
    monkeypatch.setattr(sys, "stderr", Tty())
    assert main(["agent", "revoke", "--provider", PROVIDER, "--root", str(installed / "home")]) == 2
    assert "Revoke agent" in sys.stderr.getvalue()  # type: ignore[attr-defined]
    monkeypatch.setattr(sys, "stdin", Tty("yes\n"))
    assert main(["agent", "revoke", "--provider", PROVIDER, "--root", str(installed / "home")]) == 0
    monkeypatch.undo()
    capsys.readouterr()
    assert status_json(capsys, installed)[1]["agent_state"] == "revoked"


def test_pending_recovery_invisible(installed: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = installed
    txdir = root / "home" / ".elydora" / "transactions"
    txdir.mkdir(exist_ok=True)
    (txdir / "0123456789abcdef.journal").write_bytes(b"torn")
    command = f"elydora recover --root {root / 'home'}"
    code, out, _ = cli(capsys, root, "status", PROVIDER, "--json")
    doc = json.loads(out)
    assert code == 4 and doc["ok"] is False and doc["recovery"]["command"] == command
    assert doc["providers"][0]["state"] == "recovery pending"
    code, out, _ = cli(capsys, root, "status", PROVIDER)
    assert code == 4 and command in out
    code, _, err = cli(capsys, root, "uninstall", PROVIDER)
    assert code == 4 and f"`{command}`" in err and err.startswith("Error: ")


def test_audit_losses_without_a_trace_dead_flusher_is_unaudited(
    installed: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = installed
    spool = agent_dir(root) / "spool.jsonl"
    old = int((time.time() - 600) * 1000)
    fd = os.open(spool, os.O_WRONLY | os.O_CREAT | os.O_APPEND | getattr(os, "O_BINARY", 0), 0o600)  # no CRLF
    os.write(fd, b'\n%d {"hook_event_name": "PostToolUse"}\n\n%d {"hook_event_name": "Stop"}\n' % (old, old + 1))
    os.close(fd)
    (agent_dir(root) / "error.log").write_text("2026-01-01T00:00:00Z [elydora-hook] flush: disk on fire\n")
    code, row = status_json(capsys, root)
    audit = row["audit"]
    assert isinstance(audit, dict)
    assert (code, row["state"], row["audited"]) == (1, "unaudited", False)
    assert audit["spooled"] == 2 and audit["flusher_alive"] is False and audit["oldest_undelivered_age_seconds"] > 500
    assert audit["last_delivery_error"].endswith("flush: disk on fire")
    assert cli(capsys, root, "audit", "flush", "--provider", PROVIDER)[0] == 0
    code, row = status_json(capsys, root)
    assert (code, row["state"]) == (0, "healthy") and row["audit"]["spooled"] == 0  # type: ignore[index]


@posix_only(NO_SPECIAL_FILES)
def test_hangs_fifo_manifest_does_not_hang_status(installed: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = installed
    manifest = agent_dir(root) / "install-manifest.json"
    manifest.unlink()
    os.mkfifo(manifest)
    started = time.monotonic()
    code, out, _ = cli(capsys, root, "status", PROVIDER)
    assert code == 1 and "not a regular file" in out
    code, _, _ = cli(capsys, root, "verify", PROVIDER)
    assert code == 1 and time.monotonic() - started < 20
