"""The generated audit hook and the local-ledger flusher: verbatim events, parallel calls, crash repair."""

from __future__ import annotations

import json
import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from elydora_testkit.platforms import NO_MODES, WINDOWS, posix_only
from elydora_testkit.runtime_helpers import AgentHandle, host_envelope, make_agent, no_flusher_running, wait_until
from locations import CAPTURED_PAYLOADS, PAYLOADS

from elydora_cli import identity, statefiles
from elydora_cli.runtime import flush, flusher, ledger, state

SAMPLES = sorted(PAYLOADS.glob("*.json")) + sorted(CAPTURED_PAYLOADS.glob("*.json"))
AUDIT = {  # providers.md: success output and failure mode of hook.py
    "claudecode": ("", 0),
    "codex": ("", 0),
    "gemini": ("{}\n", 0),
    "kimi": ("", 0),
    "grok": ("", 0),
    "augment": ("", 0),
    "cline": ("", 0),
    "copilot": ("", 0),
    "cursor": ("{}\n", 1),
    "droid": ("", 0),
    "qwen": ("", 0),
    "letta": ("", 1),
    "qoder": ("", 0),
    "openhands": ("", 0),
    "crush": ("", 0),
    "opencode": ("", 0),
    "kilo": ("", 0),
    "pi": ("", 0),
    "hermes": ("", 0),
}


def _entries(agent: AgentHandle) -> list[dict[str, object]]:
    path = agent.path(identity.LEDGER)
    return [json.loads(line) for line in path.read_bytes().splitlines()] if path.exists() else []


def _verify(agent: AgentHandle) -> ledger.Report:
    return ledger.verify(str(agent.path(identity.LEDGER)), agent.key.public_key())


def _settled(agent: AgentHandle, count: int) -> bool:
    return len(_entries(agent)) >= count and no_flusher_running(agent)


@pytest.mark.parametrize("provider", sorted(AUDIT))
def test_audit_success_output_and_spooled_event(tmp_path: Path, provider: str) -> None:
    agent = make_agent(tmp_path, provider)
    event = b'{"tool_name": "Read", "session_id": "s-1"}'
    result = agent.run("hook.py", event)
    assert (result.returncode, result.stdout.decode(), result.stderr) == (0, AUDIT[provider][0], b"")
    assert wait_until(lambda: _settled(agent, 1))
    [entry] = _entries(agent)
    assert entry["record"]["payload"] == json.loads(host_envelope(provider, event))  # type: ignore[index]


@pytest.mark.parametrize("provider", sorted(AUDIT))
def test_audit_failure_mode(tmp_path: Path, provider: str) -> None:
    agent = make_agent(tmp_path, provider)
    result = agent.run("hook.py", b"[1, 2]")
    success, failure_exit = AUDIT[provider]
    assert result.returncode == failure_exit
    if failure_exit:
        assert result.stdout == b""
        assert result.stderr.decode().startswith("[Elydora audit] ") and result.stderr.count(b"\n") == 1
    else:
        assert (result.stdout.decode(), result.stderr) == (success, b"")
    assert "not a JSON object" in agent.path(identity.ERROR_LOG).read_text()


def test_every_sample_event_is_recorded_verbatim(tmp_path: Path) -> None:
    assert len(SAMPLES) > 40
    agent = make_agent(tmp_path, "claudecode")
    for sample in SAMPLES:
        assert agent.run("hook.py", sample.read_bytes()).returncode == 0
    assert wait_until(lambda: _settled(agent, len(SAMPLES)))
    entries = _entries(agent)
    sent = [json.loads(host_envelope("claudecode", s.read_bytes())) for s in SAMPLES]
    assert [e["record"]["payload"] for e in entries] == sent  # type: ignore[index]
    assert _verify(agent).ok and _verify(agent).entries == len(SAMPLES)


def test_eight_parallel_audit_calls_all_arrive_once_with_a_valid_chain(tmp_path: Path) -> None:
    agent = make_agent(tmp_path, "codex")
    events = [json.dumps({"tool_name": "Bash", "session_id": "p", "call": i, "pad": "x" * 5000 * i}) for i in range(8)]
    with ThreadPoolExecutor(8) as pool:
        results = list(pool.map(lambda e: agent.run("hook.py", e.encode()), events))
    assert [r.returncode for r in results] == [0] * 8
    assert wait_until(lambda: _settled(agent, 8))
    calls = [e["record"]["payload"]["call"] for e in _entries(agent)]  # type: ignore[index]
    assert sorted(calls) == list(range(8))
    assert [e["seq"] for e in _entries(agent)] == list(range(1, 9))
    report = _verify(agent)
    assert report.ok and report.entries == 8


@posix_only(NO_MODES)
def test_spool_readable_by_others_is_refused(tmp_path: Path) -> None:
    agent = make_agent(tmp_path, "cursor")
    agent.path(identity.SPOOL).write_bytes(b"")
    agent.path(identity.SPOOL).chmod(0o644)
    result = agent.run("hook.py", b"{}")
    assert (result.returncode, result.stdout) == (1, b"")


def _spool(agent: AgentHandle, lines: list[bytes]) -> None:
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_BINARY", 0)  # Windows: no CRLF
    fd = os.open(agent.path(identity.SPOOL), flags, 0o600)
    try:
        os.write(fd, b"".join(lines))
    finally:
        os.close(fd)


def test_bad_spool_lines_are_quarantined_not_dropped(tmp_path: Path) -> None:
    agent = make_agent(tmp_path, "kimi")
    _spool(agent, [b'1 {"n": 1}\n', b"garbage\n", b'2 {"n": NaN}\n', b'3 {"n": 2}\n', b'4 {"n": 3'])
    assert flush.flush(str(agent.directory)) == flush.DRAINED
    entries = _entries(agent)
    assert [e["sink"] for e in entries] == ["local", "gap", "gap", "local"]  # type: ignore[index]
    assert [e["record"]["payload"] for e in entries if "record" in e] == [{"n": 1}, {"n": 2}]  # type: ignore
    assert _verify(agent).ok and _verify(agent).gaps == [2, 3]
    assert agent.path(identity.REJECTED).read_bytes() == b'garbage\n2 {"n": NaN}\n'
    assert state.load(str(agent.directory)).spool_offset == len(b'1 {"n": 1}\ngarbage\n2 {"n": NaN}\n3 {"n": 2}\n')
    _spool(agent, [b"}\n"])  # the unterminated tail completes later and is delivered then
    flush.flush(str(agent.directory))
    assert [e["record"]["payload"] for e in _entries(agent) if "record" in e][-1] == {"n": 3}  # type: ignore
    assert not agent.path(identity.SPOOL).exists()  # fully delivered spool was retired


def test_torn_ledger_tail_and_lagging_state_are_repaired(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    agent = make_agent(tmp_path, "grok")
    _spool(agent, [b'%d {"n": %d}\n' % (i, i) for i in range(5)])
    directory = str(agent.directory)
    old_state = state.load(directory)
    with monkeypatch.context() as patch:  # a crash leaves the spool in place: it is retired after the state save
        patch.setattr(flusher.Flusher, "_retire", lambda self: None)
        flush.flush(directory)
    assert len(_entries(agent)) == 5
    # Crash after appending the ledger but before saving the state, then a torn half-entry.
    state.save(directory, old_state)
    with open(agent.path(identity.LEDGER), "ab") as handle:
        handle.write(b'{"seq": 6, "record": {"trunc')
    _spool(agent, [b'9 {"n": 9}\n'])
    flush.flush(directory)
    payloads = [e["record"]["payload"]["n"] for e in _entries(agent)]  # type: ignore[index]
    assert payloads == [0, 1, 2, 3, 4, 9]
    assert _verify(agent).ok


def test_interrupted_spool_retirement_resumes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    agent = make_agent(tmp_path, "droid")
    directory = str(agent.directory)
    _spool(agent, [b'1 {"n": 1}\n'])
    with monkeypatch.context() as patch:
        patch.setattr(flusher.Flusher, "_retire", lambda self: None)
        flush.flush(directory)
    assert state.load(directory).spool_offset == len(b'1 {"n": 1}\n')
    # Crash right after step (1): the delivered spool was renamed, the offset not yet reset.
    os.replace(agent.path(identity.SPOOL), agent.path(identity.RETIRED_SPOOL))
    _spool(agent, [b'2 {"n": 22}\n'])  # a new spool, shorter or longer than the old offset
    flush.flush(directory)
    assert [e["record"]["payload"]["n"] for e in _entries(agent)] == [1, 22]  # type: ignore[index]
    assert not agent.path(identity.RETIRED_SPOOL).exists()
    assert _verify(agent).ok


def test_record_fields_follow_the_eor_rules(tmp_path: Path) -> None:
    agent = make_agent(tmp_path, "cline")
    event = json.loads((PAYLOADS / "cline-PostToolUse.json").read_bytes())
    assert agent.run("hook.py", json.dumps(event).encode()).returncode == 0
    assert wait_until(lambda: _settled(agent, 1))
    rec = _entries(agent)[0]["record"]
    assert isinstance(rec, dict)
    assert rec["subject"] == {"session_id": event["taskId"]}
    assert rec["action"] == {"tool": event["tool_result"]["name"]}
    assert rec["prev_chain_hash"] == statefiles.GENESIS and rec["ttl_ms"] == 30000
    assert rec["operation_type"] == "ai.tool_use" and rec["op_version"] == "1.0"
    assert rec["org_id"] == "local" and rec["agent_pubkey_kid"] == agent.config.kid
    assert len(rec["signature"]) == 86 and len(rec["nonce"]) == 22
    assert rec["operation_id"][14] == "7" and rec["operation_id"][19] in "89ab"


def test_error_log_is_owner_only_and_bounded(tmp_path: Path) -> None:
    agent = make_agent(tmp_path, "codex")
    log = agent.path(identity.ERROR_LOG)
    log.write_bytes(b"x" * ((1 << 20) + 10))
    log.chmod(0o600)
    assert agent.run("hook.py", b"nope").returncode == 0
    assert agent.path(identity.ERROR_LOG + ".1").stat().st_size > 1 << 20
    assert log.stat().st_size < 400 and ((log.stat().st_mode & 0o777) == 0o600 or WINDOWS)  # no modes there
    line = log.read_text()
    assert line.endswith("[elydora-hook] audit: stdin is not a JSON object; a signed gap record takes its place\n")
    assert line[:4].isdigit()
