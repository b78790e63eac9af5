"""Delivery to a real HTTP Elydora server: parallel calls, outages, 429, lost answers, resync, big payloads."""

from __future__ import annotations

import json
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from elydora_testkit.fake_elydora_server import FakeElydora
from elydora_testkit.runtime_helpers import AgentHandle, make_agent, no_flusher_running, wait_until

from elydora_cli import identity, statefiles
from elydora_cli.runtime import client, flush, ledger, record, state
from elydora_cli.runtime.deliver import RetryPolicy

QUICK = RetryPolicy(attempts=2, base_delay=0.01, max_delay=0.02)


def _server_payloads(server: FakeElydora, agent: AgentHandle) -> list[Any]:
    return [r["payload"] for r in server.state.agents[agent.config.agent_id].records]


def _ledger(agent: AgentHandle) -> list[dict[str, Any]]:
    path = agent.path(identity.LEDGER)
    return [json.loads(line) for line in path.read_bytes().splitlines()] if path.exists() else []


def _assert_server_chain(server: FakeElydora, agent: AgentHandle) -> None:
    records = server.state.agents[agent.config.agent_id].records
    prev = statefiles.GENESIS
    for rec in records:
        assert rec["prev_chain_hash"] == prev
        prev = rec["chain_hash"]
    assert [e["record"]["operation_id"] for e in _ledger(agent)] == [r["operation_id"] for r in records]
    assert ledger.verify(str(agent.path(identity.LEDGER)), agent.key.public_key()).ok


def _arrived(server: FakeElydora, agent: AgentHandle, count: int) -> bool:
    return len(_server_payloads(server, agent)) >= count and no_flusher_running(agent)


def _audit(agent: AgentHandle, n: int) -> None:
    result = agent.run("hook.py", json.dumps({"tool_name": "Bash", "session_id": "s", "n": n}).encode())
    assert result.returncode == 0, result.stderr


def test_eight_parallel_calls_arrive_in_order_once(tmp_path: Path, server: FakeElydora) -> None:
    agent = make_agent(tmp_path, "claudecode", server=server)
    with ThreadPoolExecutor(8) as pool:
        list(pool.map(lambda n: _audit(agent, n), range(8)))
    assert wait_until(lambda: _arrived(server, agent, 8))
    assert sorted(p["n"] for p in _server_payloads(server, agent)) == list(range(8))
    assert [e["record"]["payload"] for e in _ledger(agent)] == _server_payloads(server, agent)
    _assert_server_chain(server, agent)


def test_records_made_while_the_server_is_down_arrive_when_it_is_back(tmp_path: Path, server: FakeElydora) -> None:
    agent = make_agent(tmp_path, "gemini", server=server)
    server.stop()
    for n in range(5):
        _audit(agent, n)
    time.sleep(0.8)
    assert _server_payloads(server, agent) == []
    server.start()
    assert wait_until(lambda: _arrived(server, agent, 5), timeout=40)
    assert [p["n"] for p in _server_payloads(server, agent)] == list(range(5))
    _assert_server_chain(server, agent)


def test_a_run_that_gave_up_keeps_everything_for_the_next(tmp_path: Path, server: FakeElydora) -> None:
    agent = make_agent(tmp_path, "kimi", server=server)
    server.stop()
    spool_events(agent, 3)
    assert flush.flush(str(agent.directory), policy=QUICK) == flush.STOPPED
    assert state.load_outbox(str(agent.directory)) is not None
    assert "server unreachable" in agent.path(identity.ERROR_LOG).read_text()
    assert server.state.token not in agent.path(identity.ERROR_LOG).read_text()
    server.start()
    assert flush.flush(str(agent.directory), policy=QUICK) == flush.DRAINED
    assert [p["n"] for p in _server_payloads(server, agent)] == [0, 1, 2]
    _assert_server_chain(server, agent)


def spool_events(agent: AgentHandle, count: int) -> None:
    with open(agent.path(identity.SPOOL), "ab") as handle:
        for n in range(count):
            handle.write(b'\n%d {"tool_name": "Read", "n": %d}\n' % (1000 + n, n))
    agent.path(identity.SPOOL).chmod(0o600)


def test_429_with_retry_after_is_honoured(tmp_path: Path, server: FakeElydora) -> None:
    agent = make_agent(tmp_path, "grok", server=server)
    busy = (429, {"error": {"code": "RATE_LIMITED", "message": "slow down"}}, {"Retry-After": "1"})
    server.state.canned.extend([busy, busy])
    spool_events(agent, 3)
    started = time.monotonic()
    assert flush.flush(str(agent.directory)) == flush.DRAINED
    assert time.monotonic() - started >= 1.9  # two waits of one second each
    assert [p["n"] for p in _server_payloads(server, agent)] == [0, 1, 2]
    assert [s for _m, _p, s in server.state.requests].count(429) == 2
    _assert_server_chain(server, agent)


def test_long_retry_after_stops_the_run_and_is_kept(tmp_path: Path, server: FakeElydora) -> None:
    agent = make_agent(tmp_path, "qwen", server=server)
    server.state.canned.append((503, {"error": {"code": "UNAVAILABLE", "message": "x"}}, {"Retry-After": "3600"}))
    spool_events(agent, 1)
    assert flush.flush(str(agent.directory)) == flush.STOPPED
    outbox = state.load_outbox(str(agent.directory))
    assert outbox is not None and outbox["not_before"] > time.time() + 3000
    assert flush.flush(str(agent.directory)) == flush.STOPPED  # still honoured by the next run
    assert len(server.state.requests) == 1


def test_lost_answer_after_acceptance_is_not_sent_twice(tmp_path: Path, server: FakeElydora) -> None:
    agent = make_agent(tmp_path, "copilot", server=server)
    server.state.drop_after_accept = 2
    spool_events(agent, 3)
    assert flush.flush(str(agent.directory)) == flush.DRAINED
    assert server.state.drop_after_accept == 0
    codes = server.state.codes
    # Each record accepted once; the two lost answers were followed by a refused replay (400
    # REPLAY_DETECTED) and a PREV_HASH_MISMATCH naming the accepted candidate, which then counted as delivered.
    assert codes.count("202") == 1 and codes.count("REPLAY_DETECTED") == 2
    assert codes.count("PREV_HASH_MISMATCH") == 2 and len(server.state.agents["copilot"].records) == 3
    assert [p["n"] for p in _server_payloads(server, agent)] == [0, 1, 2]
    _assert_server_chain(server, agent)


def test_prev_hash_mismatch_resyncs_without_dropping(tmp_path: Path, server: FakeElydora) -> None:
    agent = make_agent(tmp_path, "droid", server=server)
    spool_events(agent, 1)
    flush.flush(str(agent.directory))
    foreign = "F" * 43  # another writer moved the server's head
    server.state.agents["droid"].head = foreign
    spool_events(agent, 2)
    assert flush.flush(str(agent.directory)) == flush.DRAINED
    records = server.state.agents["droid"].records
    assert [r["payload"]["n"] for r in records] == [0, 0, 1]
    assert records[1]["prev_chain_hash"] == foreign
    entries = _ledger(agent)
    assert entries[1]["resync_from"] == entries[0]["record"]["chain_hash"]
    report = ledger.verify(str(agent.path(identity.LEDGER)), agent.key.public_key())
    assert report.ok and report.resyncs == [2]


def test_oversized_payload_is_reduced_for_the_server_and_kept_whole_locally(
    tmp_path: Path, server: FakeElydora
) -> None:
    agent = make_agent(tmp_path, "claudecode", server=server)
    event = {"session_id": "s-9", "hook_event_name": "PostToolUse", "transcript_path": "/t.jsonl"}
    event |= {"tool_name": "Write", "tool_input": {"content": "z" * 300_000}}
    assert agent.run("hook.py", json.dumps(event).encode()).returncode == 0
    assert wait_until(lambda: _arrived(server, agent, 1))
    [sent] = server.state.agents["claudecode"].records
    reduced = sent["payload"]["elydora_reduced"]
    assert reduced["full_payload_hash"] == record.payload_hash(event)
    assert sent["payload"]["session_id"] == "s-9"
    # The command survives: tool_input is kept and its long string cut in place, with a marker.
    content = sent["payload"]["tool_input"]["content"]
    assert content.startswith("z" * 1000) and content.endswith("chars cut]") and reduced["strings_cut"] == 1
    assert sent["subject"] == {"session_id": "s-9"} and sent["action"] == {"tool": "Write"}
    [entry] = _ledger(agent)
    assert entry["full_payload"] == event
    assert ledger.verify(str(agent.path(identity.LEDGER)), agent.key.public_key()).ok


def test_frozen_agent_keeps_records_queued_until_unfrozen(tmp_path: Path, server: FakeElydora) -> None:
    agent = make_agent(tmp_path, "letta", server=server)
    server.state.agents["letta"].status = "frozen"
    spool_events(agent, 2)
    assert flush.flush(str(agent.directory), policy=QUICK) == flush.STOPPED
    assert "AGENT_FROZEN" in agent.path(identity.ERROR_LOG).read_text()
    server.state.agents["letta"].status = "active"
    assert flush.flush(str(agent.directory), policy=QUICK) == flush.DRAINED
    assert [p["n"] for p in _server_payloads(server, agent)] == [0, 1]


def test_expired_outbox_candidate_is_re_signed(tmp_path: Path, server: FakeElydora) -> None:
    agent = make_agent(tmp_path, "cursor", server=server)
    server.stop()
    spool_events(agent, 1)
    assert flush.flush(str(agent.directory), policy=QUICK) == flush.STOPPED
    outbox = state.load_outbox(str(agent.directory))
    assert outbox is not None
    outbox["candidates"][-1]["issued_at"] -= 60_000  # as if the outage lasted a minute
    state.save_outbox(str(agent.directory), outbox)
    server.start()
    assert flush.flush(str(agent.directory), policy=QUICK) == flush.DRAINED
    [sent] = server.state.agents["cursor"].records
    assert sent["issued_at"] > time.time() * 1000 - 10_000


@pytest.mark.parametrize(
    ("header", "expected"),
    [("7", 7.0), ("0", 0.0), (None, None), ("soon", None), ("Wed, 21 Oct 2015 07:28:00 GMT", 0.0)],
)
def test_retry_after_parsing(header: str | None, expected: float | None) -> None:
    assert client.parse_retry_after(header) == expected


def test_retry_after_http_date_in_the_future() -> None:
    now = 1_700_000_000.0
    assert client.parse_retry_after("Tue, 14 Nov 2023 22:13:40 GMT", now=now) == pytest.approx(20.0)


def test_redirects_are_not_followed_with_the_token(server: FakeElydora) -> None:
    import threading
    from http.server import BaseHTTPRequestHandler, HTTPServer

    class Redirect(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(307)
            self.send_header("Location", server.base_url + self.path)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, format: str, *args: Any) -> None:
            pass

    other = HTTPServer(("127.0.0.1", 0), Redirect)
    threading.Thread(target=other.serve_forever, daemon=True).start()
    try:
        origin = f"http://127.0.0.1:{other.server_address[1]}"
        assert client.get_agent(origin, server.state.token, "a").status == 307
        assert server.state.requests == []
    finally:
        other.shutdown()
        other.server_close()
