"""Issue 27: the guard's state is bound to the signed history.

A ``status.json`` rewritten by hand to lift a freeze (or a revocation) the agent's audit ledger records is
``tampered`` for ``status`` (exit 1), ``agent show`` and ``verify``, and ``elydora agent freeze`` repairs it
(real files, CLI in process, the real guard).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from elydora_cli import identity
from elydora_cli.main import main

PROVIDER = "claudecode"
EVENT = {"hook_event_name": "PreToolUse", "transcript_path": "/t.jsonl", "tool_name": "Bash", "session_id": "s"}


def cli(capsys: pytest.CaptureFixture[str], root: Path, *argv: str) -> tuple[int, str]:
    code = main([*argv, "--root", str(root / "home")])
    out, err = capsys.readouterr()
    return code, out + err


def row(capsys: pytest.CaptureFixture[str], root: Path) -> tuple[int, dict[str, object]]:
    code, out = cli(capsys, root, "status", PROVIDER, "--json")
    found = json.loads(out)["providers"][0]
    assert isinstance(found, dict)
    return code, found


def status_file(root: Path) -> Path:
    return root / "home" / ".elydora" / PROVIDER / "status.json"


def guard_exit(root: Path) -> int:
    done = subprocess.run([str(status_file(root).parent / "guard.py")], input=json.dumps(EVENT).encode(),
                          capture_output=True, check=False, timeout=30)
    return done.returncode


@pytest.fixture
def installed(root: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    assert cli(capsys, root, "install", PROVIDER, "--python", sys.executable)[0] == 0
    return root


@pytest.mark.parametrize(("verb", "recorded"), [("freeze", "frozen"), ("revoke", "revoked")])
def test_a_status_json_that_lifts_what_the_ledger_records_is_tampered(
    installed: Path, capsys: pytest.CaptureFixture[str], verb: str, recorded: str
) -> None:
    root = installed
    assert cli(capsys, root, "agent", verb, "--provider", PROVIDER, *(["--yes"] if verb == "revoke" else []))[0] == 0
    assert row(capsys, root)[1]["state"] == recorded
    status_file(root).write_bytes(identity.status_bytes("active", "edited by hand"))
    assert guard_exit(root) == 0  # the guard obeys the file: that is what status must not hide
    code, found = row(capsys, root)
    assert code == 1 and found["state"] == "tampered" and found["enforced"] is False
    why = (f"{status_file(root)}: says active, but the signed audit history records the agent {recorded} (the file "
           "was changed outside elydora): run elydora agent " + ("freeze" if verb == "freeze" else "revoke --yes"))
    assert found["problems"] == [why]
    _, out = cli(capsys, root, "agent", "show", "--provider", PROVIDER)
    assert f"status: tampered ({why})" in out
    code, out = cli(capsys, root, "verify", PROVIDER)
    assert code == 1 and why in out
    cli(capsys, root, "agent", "freeze", "--provider", PROVIDER)  # the repair (a revoked agent stays revoked)
    code, found = row(capsys, root)
    assert code == 1 and found["state"] == recorded
    assert guard_exit(root) == 2


def test_a_freeze_lifted_by_elydora_is_not_tampered(installed: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = installed
    assert cli(capsys, root, "agent", "freeze", "--provider", PROVIDER)[0] == 0
    assert cli(capsys, root, "agent", "unfreeze", "--provider", PROVIDER)[0] == 0
    code, found = row(capsys, root)
    assert code == 0 and found["state"] == "healthy"
    status_file(root).write_bytes(identity.status_bytes("frozen", "stricter by hand"))
    assert row(capsys, root)[1]["state"] == "frozen"  # stricter than the history: enforced, not tampered
