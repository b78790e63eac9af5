"""Every event leaves a signed trace (issue 27, item 2).

Before: an event over 1 MiB (a 1.1 MiB ``Write`` to ``~/.ssh/authorized_keys``), a stdin that stalled past
0.75 s, invalid UTF-8, unparseable input left an ``error.log`` line at most, and an event nested 990 deep
crashed the flusher (its canonical form recursed too deep) and jammed every event behind it; no gap entry,
``dropped`` stayed 0, status said healthy. Now the audit hook spools a gap event in place of what it cannot
spool (byte count, SHA-256 of what was read, reason, tool name), the flusher sets aside what only it can find
(too deep), both are signed into the ledger, and status says ``audit gaps`` until ``audit verify`` lists them.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from elydora_testkit.runtime_helpers import PYTHON, AgentHandle, make_agent, no_flusher_running, wait_until

from elydora_cli import health, identity
from elydora_cli.main import main
from elydora_cli.runtime import runtime_argv, spool
from elydora_cli.runtime.spool import parse_line
from elydora_cli.runtime.templates import hook as hook_template

HOST = {"session_id": "s-gap", "transcript_path": "/t.jsonl", "hook_event_name": "PostToolUse", "tool_name": "Write"}


def _write_event(size: int) -> bytes:
    """A Claude Code PostToolUse of a Write whose content is ``size`` bytes (the key file of the issue)."""
    event = {**HOST, "tool_input": {"file_path": "/home/u/.ssh/authorized_keys", "content": "k" * size}}
    return json.dumps(event).encode()


def _ledger(agent: AgentHandle) -> list[dict[str, Any]]:
    path = agent.path(identity.LEDGER)
    return [json.loads(line) for line in path.read_bytes().splitlines()] if path.exists() else []


def _settled(agent: AgentHandle, count: int) -> list[dict[str, Any]]:
    assert wait_until(lambda: len(_ledger(agent)) >= count and no_flusher_running(agent), timeout=60)
    return _ledger(agent)


def _sha(data: bytes) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def _gap_payload(entry: dict[str, Any]) -> dict[str, Any]:
    payload = entry["record"]["payload"]
    assert payload["hook_event_name"] == "elydora.gap", payload
    return dict(payload)


def test_the_limit_is_the_spool_readers_and_holds_a_large_write() -> None:
    assert hook_template.EVENT_LIMIT == spool.EVENT_LIMIT == 8 << 20
    assert spool.LINE_LIMIT > spool.EVENT_LIMIT


def test_a_write_of_1_1_mib_is_recorded_whole(tmp_path: Path) -> None:
    """On main the 1 MiB cap refused it: an error.log line, nothing in the ledger."""
    agent = make_agent(tmp_path, "claudecode")
    data = _write_event(int(1.1 * (1 << 20)))
    assert agent.run("hook.py", data, timeout=60).returncode == 0
    [entry] = _settled(agent, 1)
    assert entry["record"]["payload"]["tool_input"]["content"] == "k" * int(1.1 * (1 << 20))


def test_an_event_over_the_limit_leaves_a_signed_gap_record(tmp_path: Path) -> None:
    agent = make_agent(tmp_path, "letta")  # fails closed: the agent is told, and the gap is still recorded
    data = _write_event(hook_template.EVENT_LIMIT + 1000)
    result = agent.run("hook.py", data, timeout=60)
    assert result.returncode == 1 and b"larger than" in result.stderr and b"gap record" in result.stderr
    [entry] = _settled(agent, 1)
    gap = _gap_payload(entry)
    assert gap["reason"] == "too_large" and gap["session_id"] == "s-gap"
    assert gap["event"] == {"bytes": len(data), "sha256": _sha(data), "tool_name": "Write"}
    assert entry["record"]["signature"] and entry["record"]["prev_chain_hash"]


def _stalled(agent: AgentHandle, data: bytes) -> int:
    read_end, write_end = os.pipe()
    process = subprocess.Popen(runtime_argv(PYTHON, agent.path("hook.py")), stdin=read_end,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    os.close(read_end)
    os.write(write_end, data)
    try:
        return process.wait(timeout=30)
    finally:
        os.close(write_end)


@pytest.mark.parametrize(
    ("reason", "data"),
    [
        ("not_json", b"this is not JSON at all"),
        ("not_json", b""),
        ("not_utf8", b'{"session_id": "s-gap", "tool_name": "Bash", "x": "\xff\xfe"}'),
    ],
)
def test_unreadable_input_leaves_a_signed_gap_record(tmp_path: Path, reason: str, data: bytes) -> None:
    agent = make_agent(tmp_path, "codex")
    assert agent.run("hook.py", data).returncode == 0  # Codex fails open
    [entry] = _settled(agent, 1)
    gap = _gap_payload(entry)
    assert (gap["reason"], gap["event"]["bytes"], gap["event"]["sha256"]) == (reason, len(data), _sha(data))
    if reason == "not_utf8":
        assert gap["event"]["tool_name"] == "Bash"


def test_a_stdin_stalled_before_the_event_was_complete_leaves_a_signed_gap_record(tmp_path: Path) -> None:
    agent = make_agent(tmp_path, "codex")
    part = b'{"session_id": "s-gap", "tool_name": "Bash", "tool_input": {"command": "cat ~/.ssh/id'
    assert _stalled(agent, part) == 0
    [entry] = _settled(agent, 1)
    gap = _gap_payload(entry)
    assert gap["reason"] == "stalled" and gap["event"] == {
        "bytes": len(part),
        "sha256": _sha(part),
        "tool_name": "Bash",
    }


@pytest.mark.parametrize("depth", [900, 990])
def test_an_event_nested_deep_is_set_aside_and_does_not_jam_the_spool(tmp_path: Path, depth: int) -> None:
    """On main 900 levels parsed but crashed the flusher in canonicalisation (RecursionError in error.log):
    nothing was recorded, and every later event stayed behind it."""
    agent = make_agent(tmp_path, "codex")
    deep = b'{"tool_name": "Bash", "x": ' + b"[" * depth + b"]" * depth + b"}"
    assert agent.run("hook.py", deep).returncode == 0
    assert agent.run("hook.py", b'{"tool_name": "Read", "after": true}').returncode == 0
    entries = _settled(agent, 2)
    reason = entries[0]["gap"]["reason"]
    assert entries[0]["sink"] == "gap" and ("nested deeper than 128" in reason or "recursion" in reason)
    assert entries[0]["gap"]["tool"] == "Bash" and entries[0]["gap"]["bytes"] > len(deep)
    assert entries[1]["record"]["payload"]["after"] is True


def test_the_depth_limit_is_found_before_anything_recurses() -> None:
    line = b'1 {"x": ' + b"[" * 200 + b"]" * 200 + b"}\n"
    with pytest.raises(spool.BadLine, match="nested deeper than 128 levels"):
        parse_line(line)


def test_status_says_audit_gaps_until_audit_verify_lists_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """On main status stayed healthy and audit verify said nothing of the lost event."""
    agent = make_agent(tmp_path, "codex")
    assert agent.run("hook.py", b"\xff not an event").returncode == 0
    _settled(agent, 1)
    found = health.check(str(agent.directory))
    assert found.audited and (found.audit.gaps, found.audit.gaps_unreviewed) == (1, 1)
    assert main(["audit", "verify", "--provider", "codex", "--state-root", str(tmp_path), "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["gap_records"] == [1] and shown["gap_details"][0]["reason"] == "not_json"
    assert health.check(str(agent.directory)).audit.gaps_unreviewed == 0  # shown: status is healthy again
    assert agent.run("hook.py", b"[]").returncode == 0
    _settled(agent, 2)
    assert health.check(str(agent.directory)).audit.gaps_unreviewed == 1  # a new one is reported again


def test_the_status_word_for_unreviewed_gaps(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from elydora_cli.commands import status

    assert "audit gaps" in status.STATES and "audit gaps" not in status.HEALTHY_STATES
    agent = make_agent(tmp_path, "codex")
    assert agent.run("hook.py", b"nope").returncode == 0
    _settled(agent, 1)
    text = health.check(str(agent.directory)).audit.to_json()
    assert text["gaps_unreviewed"] == 1 and text["host_check"] == {"foreign": 0, "unrecognised": 0}


def test_elydora_hook_leaves_a_signed_gap_record_for_a_request_it_cannot_read(tmp_path: Path) -> None:
    """The supervisor path (`elydora hook`): on main an unreadable request got the failure mode and nothing else."""
    import sys

    agent = make_agent(tmp_path, "kimi")
    data = b'{"tool_name": "Shell", "broken": '
    argv = [sys.executable, "-m", "elydora_cli", "hook", "--state-root", str(tmp_path), "--provider", "kimi"]
    env = {k: v for k, v in os.environ.items() if not k.startswith("ELYDORA_VERIFY")}
    assert subprocess.run(argv, input=data, capture_output=True, env=env, timeout=60).returncode == 0  # fail-open
    [entry] = _settled(agent, 1)
    gap = _gap_payload(entry)
    assert gap["reason"] == "not_json" and gap["event"] == {
        "bytes": len(data),
        "sha256": _sha(data),
        "tool_name": "Shell",
    }
