"""Issue 13, audit losses without a trace and tamper holes: drops on a full disk, a truncated, emptied or
re-labelled local ledger (real files, the generated hook and the flusher)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from elydora_cli import health
from elydora_cli.main import main
from elydora_cli.runtime import dropmark, runtime_argv

PROVIDER = "claudecode"


def cli(capsys: pytest.CaptureFixture[str], root: Path, *argv: str) -> tuple[int, str]:
    code = main([*argv, "--root", str(root / "home")])
    return code, capsys.readouterr().out


@pytest.fixture
def ledger(root: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    """A local agent whose ledger holds four signed entries (the hook run four times, then flushed)."""
    assert cli(capsys, root, "install", PROVIDER)[0] == 0
    directory = root / "home" / ".elydora" / PROVIDER
    for n in range(4):
        event = json.dumps({"hook_event_name": "PostToolUse", "transcript_path": "/t.jsonl", "session_id": f"s{n}"})
        argv = runtime_argv(sys.executable, directory / "hook.py")
        subprocess.run(argv, input=event.encode(), capture_output=True, check=True, timeout=30)
    assert cli(capsys, root, "audit", "flush", "--provider", PROVIDER)[0] == 0
    path = directory / "ledger.jsonl"
    assert len(path.read_bytes().splitlines()) == 4
    assert cli(capsys, root, "audit", "verify", "--provider", PROVIDER)[0] == 0
    return path


def test_audit_losses_truncated_ledger_fails_verify(
    ledger: Path, root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = ledger.read_bytes().splitlines(keepends=True)
    ledger.write_bytes(b"".join(lines[:2]))
    code, out = cli(capsys, root, "audit", "verify", "--provider", PROVIDER)
    assert code == 1 and "chain-state.json records 4 entries" in out


def test_audit_losses_emptied_ledger_fails_verify(ledger: Path, root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ledger.write_bytes(b"")
    code, out = cli(capsys, root, "audit", "verify", "--provider", PROVIDER)
    assert code == 1 and "BROKEN" in out


def test_audit_losses_local_ledger_cannot_claim_a_resync(
    ledger: Path, root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    entries = [json.loads(line) for line in ledger.read_bytes().splitlines()]
    kept = [entries[0], *entries[2:]]  # the second record deleted from the middle
    kept[1]["resync_from"] = kept[0]["record"]["chain_hash"]  # labelled as a server resync (unsigned fields)
    kept[1]["sink"] = "server"
    for seq, entry in enumerate(kept, start=1):
        entry["seq"] = seq
    ledger.write_bytes(b"".join(json.dumps(e, separators=(",", ":")).encode() + b"\n" for e in kept))
    state = ledger.parent / "chain-state.json"
    saved = json.loads(state.read_text())
    saved["seq"] = 3
    state.write_text(json.dumps(saved))
    code, out = cli(capsys, root, "audit", "verify", "--provider", PROVIDER)
    assert code == 1 and "prev_chain_hash does not link" in out


def test_audit_losses_disk_full_drop_becomes_a_signed_gap_record(
    ledger: Path, root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    directory = ledger.parent
    deadline = time.monotonic() + 30
    while health.flusher_alive(str(directory)) and time.monotonic() < deadline:  # the hooks' own flushers
        time.sleep(0.05)
    time.sleep(0.5)  # a flusher spawned late takes the lock after its start-up
    while health.flusher_alive(str(directory)) and time.monotonic() < deadline:
        time.sleep(0.05)
    for stamp in (1000, 2000):
        fd = os.open(directory / f"{dropmark.PREFIX}{stamp}.42", os.O_WRONLY | os.O_CREAT, 0o600)
        os.close(fd)
    _, out = cli(capsys, root, "status", PROVIDER, "--json")
    assert json.loads(out)["providers"][0]["audit"]["dropped"] == 2
    assert cli(capsys, root, "audit", "flush", "--provider", PROVIDER)[0] == 0
    last = json.loads(ledger.read_bytes().splitlines()[-1])
    payload = last["record"]["payload"]
    assert payload["hook_event_name"] == dropmark.GAP_EVENT and payload["dropped"] == 2
    assert (payload["first_dropped_ms"], payload["last_dropped_ms"]) == (1000, 2000)
    assert dropmark.pending_drops(str(directory)) == 0
    assert cli(capsys, root, "audit", "verify", "--provider", PROVIDER)[0] == 0  # the gap record is signed
