"""``elydora audit verify|tail|flush`` on real ledgers, including tampered ones."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from elydora_cli.main import main
from elydora_cli.runtime import runtime_argv


def _cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def agent(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    assert _cli(capsys, "agent", "create", "--provider", "claudecode", "--root", str(tmp_path))[0] == 0
    directory = tmp_path / ".elydora" / "claudecode"
    spool = directory / "spool.jsonl"
    spool.write_bytes(
        b"".join(b'\n%d {"tool_name": "T%d", "session_id": "s", "n": %d}\n' % (n, n, n) for n in range(5))
    )
    spool.chmod(0o600)
    code, out, _err = _cli(capsys, "audit", "flush", "--provider", "claudecode", "--root", str(tmp_path))
    assert code == 0 and "delivered" in out
    return directory


def _args(directory: Path) -> list[str]:
    return ["--provider", "claudecode", "--root", str(directory.parent.parent)]


def test_verify_ok(agent: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _err = _cli(capsys, "audit", "verify", *_args(agent))
    assert code == 0 and out.startswith("ledger OK: 5 entries")
    code, out, _err = _cli(capsys, "audit", "verify", *_args(agent), "--json")
    report = json.loads(out)
    assert report["ok"] is True and report["entries"] == 5


def _rewrite(directory: Path, change: object) -> None:
    path = directory / "ledger.jsonl"
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join(change(lines)))  # type: ignore[operator]


def _tamper_payload(lines: list[bytes]) -> list[bytes]:
    entry = json.loads(lines[2])
    entry["record"]["payload"]["tool_name"] = "rm -rf"
    return [*lines[:2], json.dumps(entry).encode() + b"\n", *lines[3:]]


def _tamper_signature_only(lines: list[bytes]) -> list[bytes]:
    entry = json.loads(lines[1])
    signature = entry["record"]["signature"]
    entry["record"]["signature"] = ("B" if signature[0] != "B" else "C") + signature[1:]
    return [lines[0], json.dumps(entry).encode() + b"\n", *lines[2:]]


@pytest.mark.parametrize(
    ("change", "line", "reason"),
    [
        (_tamper_payload, 3, "payload_hash"),
        (_tamper_signature_only, 2, "signature"),
        (lambda lines: [lines[0], *lines[2:]], 2, "sequence"),
        (lambda lines: [lines[1], lines[0], *lines[2:]], 1, "link"),
        (lambda lines: [*lines[:4], lines[4][:-20]], 5, "incomplete"),
    ],
)
def test_verify_reports_the_first_break(
    agent: Path, capsys: pytest.CaptureFixture[str], change: object, line: int, reason: str
) -> None:
    _rewrite(agent, change)
    code, out, _err = _cli(capsys, "audit", "verify", *_args(agent), "--json")
    report = json.loads(out)
    assert code == 1 and report["ok"] is False and report["break_line"] == line and reason in report["reason"]
    code, out, _err = _cli(capsys, "audit", "verify", *_args(agent))
    assert code == 1 and f"BROKEN at line {line}" in out


def test_tail(agent: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _err = _cli(capsys, "audit", "tail", *_args(agent), "-n", "2")
    lines = out.splitlines()
    assert code == 0 and len(lines) == 2
    assert lines[0].startswith("#4 ") and "tool=T3" in lines[0] and "tool=T4" in lines[1]
    code, out, _err = _cli(capsys, "audit", "tail", *_args(agent), "--json")
    entries = json.loads(out)["entries"]
    assert [e["record"]["payload"]["n"] for e in entries] == [0, 1, 2, 3, 4]
    assert _cli(capsys, "audit", "tail", *_args(agent), "-n", "0")[1] == ""
    assert _cli(capsys, "audit", "tail", *_args(agent), "-n", "-1")[0] == 2


def test_hook_then_verify_through_the_cli(agent: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = runtime_argv(sys.executable, agent / "hook.py")
    assert (
        subprocess.run(
            argv, input=b'{"hook_event_name": "PostToolUse", "transcript_path": "/t"}', capture_output=True
        ).returncode
        == 0
    )
    deadline = time.monotonic() + 30  # the hook started a background flusher; ours may find it busy
    while _cli(capsys, "audit", "flush", *_args(agent))[0] == 3 and time.monotonic() < deadline:
        time.sleep(0.05)
    code, out, _err = _cli(capsys, "audit", "verify", *_args(agent))
    assert code == 0 and out.startswith("ledger OK: 6 entries")


def test_verify_without_an_agent(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _out, err = _cli(capsys, "audit", "verify", "--agent-id", "ghost", "--root", str(tmp_path))
    assert code == 1 and err.startswith("Error: ")


def test_tail_takes_the_agent_as_other_commands_do_and_an_empty_ledger_is_an_empty_json_result(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _cli(capsys, "agent", "create", "claude", "--root", str(tmp_path))[0] == 0
    code, out, err = _cli(capsys, "audit", "tail", "claude", "--root", str(tmp_path), "--json")
    ledger = tmp_path / ".elydora" / "claudecode" / "ledger.jsonl"
    assert (code, err) == (0, "") and json.loads(out) == {"entries": [], "ledger": str(ledger)}
    assert _cli(capsys, "audit", "tail", "claude", "--root", str(tmp_path)) == (0, "", "")
    code, _out, err = _cli(capsys, "audit", "tail", "claude", "--provider", "codex", "--root", str(tmp_path))
    assert code == 2 and err.startswith("Error: two providers given (claude and codex)")


def test_flush_while_a_background_flusher_holds_the_lock_is_exit_3(
    agent: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import os

    from elydora_cli.commands import audit
    from elydora_config._platform import locking

    with (agent / "spool.jsonl").open("ab") as spool:
        spool.write(b'\n9 {"tool_name": "T9", "session_id": "s", "n": 9}\n')
    monkeypatch.setattr(audit, "WAIT_SECONDS", 0.2)
    fd = os.open(agent / "flush.lock", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        locking.flock(fd, locking.LOCK_EX)
        code, out, err = _cli(capsys, "audit", "flush", *_args(agent))
        assert (code, out) == (3, "")
        assert err.startswith(f"Error: {agent / 'flush.lock'}: a background flusher is still delivering")
        code, out, _err = _cli(capsys, "audit", "flush", *_args(agent), "--json")
        assert code == 3 and json.loads(out) == {"outcome": "busy"}
    finally:
        os.close(fd)
    assert _cli(capsys, "audit", "flush", *_args(agent)) == (0, "every spooled event is delivered\n", "")
