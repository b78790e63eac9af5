"""Issue 14, one test per failure: every refusal classified, no poison record, proof of acceptance.

Each test runs against the loopback fake server that follows the observed contract
(elydora_testkit/fake_elydora_server.py).
"""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path
from typing import Any

from elydora_testkit.fake_elydora_server import FakeElydora
from elydora_testkit.platforms import posix_only
from elydora_testkit.runtime_helpers import PYTHON, AgentHandle, make_agent, no_flusher_running, wait_until

from elydora_cli import identity
from elydora_cli.runtime import flush, health, ledger, receipt, record, refresh
from elydora_cli.runtime.deliver import RetryPolicy
from elydora_cli.runtime.jcs import canonicalize

QUICK = RetryPolicy(attempts=3, base_delay=0.01, max_delay=0.02)
POISON = b"1" + b"0" * 400  # valid JSON; JavaScript reads it as Infinity


def _ledger(agent: AgentHandle) -> list[dict[str, Any]]:
    path = agent.path(identity.LEDGER)
    return [json.loads(line) for line in path.read_bytes().splitlines()] if path.exists() else []


def _records(server: FakeElydora, agent: AgentHandle) -> list[dict[str, Any]]:
    return server.state.agents[agent.config.agent_id].records


def _spool(agent: AgentHandle, events: list[bytes]) -> None:
    with open(agent.path(identity.SPOOL), "ab") as handle:
        for n, event in enumerate(events):
            handle.write(b"\n%d %s\n" % (1000 + n, event))
    agent.path(identity.SPOOL).chmod(0o600)


def _verify(agent: AgentHandle) -> ledger.Report:
    jwks = agent.path(identity.SERVER_JWKS)
    keys = receipt.jwks_keys(json.loads(jwks.read_text())) if jwks.exists() else None
    return ledger.verify(str(agent.path(identity.LEDGER)), agent.key.public_key(), server_keys=keys)


def _cache(agent: AgentHandle) -> dict[str, Any]:
    return json.loads(agent.path(identity.STATUS_CACHE).read_text())  # type: ignore[no-any-return]


# -- 1. a refused status query is not "unreachable": reported, then the failure mode; 404 means revoked ----------
def test_refused_status_query_is_reported_then_fails_closed(tmp_path: Path, server: FakeElydora) -> None:
    agent = make_agent(tmp_path, "cursor", server=server)  # Cursor's guard is fail-closed
    assert refresh.refresh(str(agent.directory)) == "active"
    server.state.token = "tok-rotated"  # the agent's token expired
    assert refresh.refresh(str(agent.directory)) is None
    cache = _cache(agent)
    assert cache["status"] == "active" and cache["query_error"] == "401 UNAUTHORIZED"
    allowed = agent.run("guard.py", b"{}")  # within the grace period: last known status, reported
    assert allowed.returncode == 0 and b"refuses the status query (401 UNAUTHORIZED)" in allowed.stderr
    stamp = time.time()
    agent.path(identity.STATUS_CACHE).write_bytes(
        refresh.cache_bytes("active", stamp, stamp, "401 UNAUTHORIZED", stamp - health.QUERY_GRACE - 5)
    )
    refused = agent.run("guard.py", b"{}")
    assert (refused.returncode, refused.stdout) == (1, b"")  # status unknown: Cursor fails closed
    assert b"status unknown" in refused.stderr


def test_agent_gone_from_the_server_is_revoked(tmp_path: Path, server: FakeElydora) -> None:
    agent = make_agent(tmp_path, "claudecode", server=server)
    assert refresh.refresh(str(agent.directory)) == "active"
    del server.state.agents["claudecode"]  # 404 UNKNOWN_AGENT from now on
    assert refresh.refresh(str(agent.directory)) == "revoked"
    denied = agent.run("guard.py", b"{}")
    assert denied.returncode == 2 and b"is revoked in Elydora" in denied.stderr


# -- 2. a poison record is set aside; the good events around it are delivered ----------------------------------------
def test_poison_line_between_two_good_events(tmp_path: Path, server: FakeElydora) -> None:
    agent = make_agent(tmp_path, "gemini", server=server)
    _spool(agent, [b'{"tool_name": "Read", "n": 1}', b'{"tool_name": "Read", "n": ' + POISON + b"}",
                   b'{"tool_name": "Read", "n": 2}'])  # fmt: skip
    assert flush.flush(str(agent.directory), policy=QUICK) == flush.DRAINED
    assert [r["payload"]["n"] for r in _records(server, agent)] == [1, 2]
    assert POISON in agent.path(identity.REJECTED).read_bytes()
    [gap] = [e for e in _ledger(agent) if e["sink"] == "gap"]
    assert "double range" in gap["gap"]["reason"] and gap["gap"]["kept_in"] == identity.REJECTED
    report = _verify(agent)
    assert report.ok and report.gaps == [2] and report.entries == 3


def test_poison_line_does_not_lose_a_local_batch(tmp_path: Path) -> None:
    agent = make_agent(tmp_path, "kimi")
    _spool(agent, [b'{"n": 1}', b'{"n": ' + POISON + b"}", b'{"n": 2}'])
    assert flush.flush(str(agent.directory)) == flush.DRAINED
    assert [e["record"]["payload"]["n"] for e in _ledger(agent) if "record" in e] == [1, 2]
    assert _verify(agent).ok


# -- 3. permanent refusals are classified, not retried; reductions fit; a slow clock still delivers ------------------
def test_permanent_refusal_is_quarantined_and_the_rest_delivered(tmp_path: Path, server: FakeElydora) -> None:
    agent = make_agent(tmp_path, "qwen", server=server)
    server.state.refuse_tools["Bad"] = (400, "VALIDATION_ERROR")
    _spool(agent, [b'{"tool_name": "Read", "n": 1}', b'{"tool_name": "Bad", "n": 2}', b'{"tool_name": "Read", "n": 3}'])
    assert flush.flush(str(agent.directory), policy=QUICK) == flush.DRAINED
    assert [r["payload"]["n"] for r in _records(server, agent)] == [1, 3]
    assert server.state.codes.count("VALIDATION_ERROR") == 1  # refused once, never re-signed
    [kept] = [json.loads(line) for line in agent.path(identity.REJECTED_RECORDS).read_bytes().splitlines()]
    assert kept["answer"]["body"]["error"]["code"] == "VALIDATION_ERROR" and kept["record"]["payload"]["n"] == 2
    assert _verify(agent).ok and _verify(agent).gaps == [2]
    assert health.recorded(str(agent.directory))["last_refusal"]["code"] == "400 VALIDATION_ERROR"


def test_slow_client_clock_is_corrected_from_the_server_date(tmp_path: Path, server: FakeElydora) -> None:
    agent = make_agent(tmp_path, "grok", server=server)
    server.state.clock_offset_ms = 90_000  # our clock is 90 s slow: every record expires on arrival
    _spool(agent, [b'{"tool_name": "Read", "n": %d}' % n for n in range(3)])
    assert flush.flush(str(agent.directory), policy=QUICK) == flush.DRAINED
    assert [r["payload"]["n"] for r in _records(server, agent)] == [0, 1, 2]
    assert server.state.codes.count("TTL_EXPIRED") == 1  # corrected once, then every record fits
    assert abs(health.recorded(str(agent.directory))["clock_offset_ms"] - 90_000) < 3_000


def test_reduced_payload_always_fits_the_server_limit() -> None:
    event: dict[str, Any] = {f"field{n}": "x" * 1000 for n in range(300)}  # 300 top-level strings of 1,000
    payload, reduced = record.wire_payload(event)
    assert reduced and len(canonicalize(payload)) <= 262_144 < len(canonicalize(event))
    assert payload["field0"].startswith("x" * 100) and payload["field0"].endswith("chars cut]")
    many = {"tool_name": "Bash", "tool_input": {str(n): n for n in range(40_000)}}
    assert len(canonicalize(record.wire_payload(many)[0])) <= 262_144


# -- 4. delivered means a 202 with this record's receipt; receipts are kept and verified --------------------------
def test_maintenance_page_is_not_delivery(tmp_path: Path, server: FakeElydora) -> None:
    agent = make_agent(tmp_path, "droid", server=server)
    server.state.maintenance = True  # 200 text/html to everything
    _spool(agent, [b'{"tool_name": "Read", "n": 1}'])
    assert flush.flush(str(agent.directory), policy=QUICK) == flush.STOPPED
    assert _ledger(agent) == [] and agent.path(identity.OUTBOX).exists() and agent.path(identity.SPOOL).exists()
    server.state.maintenance = False
    assert flush.flush(str(agent.directory), policy=QUICK) == flush.DRAINED
    [entry] = _ledger(agent)
    assert entry["receipt"]["operation_id"] == entry["record"]["operation_id"]
    assert _verify(agent).ok and _verify(agent).receipts_checked == 1
    argv = [PYTHON, "-m", "elydora_cli", "audit", "verify", "--provider", "droid", "--state-root", str(tmp_path)]
    shown = subprocess.run([*argv, "--json"], capture_output=True, text=True, timeout=60, check=False)
    assert shown.returncode == 0 and json.loads(shown.stdout)["receipts_checked"] == 1


def test_a_forged_receipt_breaks_audit_verify(tmp_path: Path, server: FakeElydora) -> None:
    agent = make_agent(tmp_path, "augment", server=server)
    _spool(agent, [b'{"tool_name": "Read", "n": 1}'])
    assert flush.flush(str(agent.directory), policy=QUICK) == flush.DRAINED
    [entry] = _ledger(agent)
    entry["receipt"]["seq_no"] = 99
    agent.path(identity.LEDGER).write_text(json.dumps(entry) + "\n")
    report = _verify(agent)
    assert not report.ok and report.first_break == "receipt_hash does not match the receipt"


# -- 6. a refusal permanent for the agent stops delivery, keeps everything, and says so ----------------------------
def test_agent_refusal_stops_delivery_and_is_reported(tmp_path: Path, server: FakeElydora) -> None:
    agent = make_agent(tmp_path, "codex", server=server)
    assert refresh.refresh(str(agent.directory)) == "active"
    server.state.org_id = "org-of-the-token"  # a wrong org binding: every record is INVALID_SIGNATURE
    _spool(agent, [b'{"tool_name": "Read", "n": %d}' % n for n in range(2)])
    assert flush.flush(str(agent.directory), policy=QUICK) == flush.STOPPED
    assert server.state.codes.count("INVALID_SIGNATURE") == 1 and _ledger(agent) == []
    report = health.agent_health(str(agent.directory))
    assert not report["healthy"] and report["delivery"]["pending"] == 2
    assert report["delivery"]["stopped"] == "400 INVALID_SIGNATURE"
    guard = agent.run("guard.py", b"{}")
    assert guard.returncode == 0 and b"audit delivery stopped" in guard.stderr
    server.state.org_id = "org-1"  # fixed on the server: the next run delivers everything and clears the mark
    assert flush.flush(str(agent.directory), policy=QUICK) == flush.DRAINED
    assert health.agent_health(str(agent.directory))["healthy"] and len(_ledger(agent)) == 2


# -- 7. an idle agent's first call after a freeze is decided on a fresh status --------------------------------------
def test_far_stale_cache_is_refreshed_before_deciding(tmp_path: Path, server: FakeElydora) -> None:
    agent = make_agent(tmp_path, "claudecode", server=server)
    stamp = time.time() - 3600  # idle for an hour; frozen meanwhile
    agent.path(identity.STATUS_CACHE).write_bytes(refresh.cache_bytes("active", stamp, stamp))
    agent.path(identity.STATUS_CACHE).chmod(0o600)
    server.state.agents["claudecode"].status = "frozen"
    denied = agent.run("guard.py", b"{}")
    assert denied.returncode == 2 and b"is frozen in Elydora" in denied.stderr


# -- 8. a big output keeps its command on the server -------------------------------------------------------------
def test_big_output_keeps_its_command(tmp_path: Path, server: FakeElydora) -> None:
    agent = make_agent(tmp_path, "claudecode", server=server)
    event = {"session_id": "s", "tool_name": "Bash", "tool_input": {"command": "cat big.log"},
             "tool_response": {"stdout": "line\n" * 80_000, "stderr": ""}}  # fmt: skip
    assert agent.run("hook.py", json.dumps(event).encode()).returncode == 0
    assert wait_until(lambda: len(_records(server, agent)) == 1 and agent.path(identity.LEDGER).exists())
    [sent] = _records(server, agent)
    assert sent["payload"]["tool_input"] == {"command": "cat big.log"}
    stdout = sent["payload"]["tool_response"]["stdout"]
    assert stdout.startswith("line\n") and "chars cut]" in stdout
    assert len(canonicalize(sent["payload"])) <= 262_144


# -- 9. errors name a file and a problem, never an exception type --------------------------------------------------
def test_flush_errors_are_one_line_naming_the_file(tmp_path: Path, server: FakeElydora) -> None:
    agent = make_agent(tmp_path, "letta", server=server)
    server.state.refuse_tools["Read"] = (400, "PAYLOAD_TOO_LARGE")
    _spool(agent, [b'{"tool_name": "Read", "n": ' + POISON + b"}", b'{"tool_name": "Read", "n": 1}'])
    argv = [PYTHON, "-m", "elydora_cli", "audit", "flush", "--provider", "letta", "--state-root", str(tmp_path)]
    result = subprocess.run(argv, capture_output=True, text=True, timeout=60, check=False)
    assert "Error: CanonicalizationError" not in result.stderr and "RuntimeError" not in result.stderr
    assert result.returncode == 0, result.stderr
    agent.path(identity.OUTBOX).write_text("{broken")
    agent.path(identity.OUTBOX).chmod(0o600)
    _spool(agent, [b'{"tool_name": "Other"}'])
    result = subprocess.run(argv, capture_output=True, text=True, timeout=60, check=False)
    assert result.returncode == 1 and result.stderr == f"Error: {agent.path(identity.OUTBOX)}: is not valid JSON\n"


def test_guard_copies_of_the_health_constants_are_pinned() -> None:
    from elydora_cli.runtime.templates import guard as guard_template
    from elydora_cli.runtime.templates import hook as hook_template

    assert guard_template.FAR_STALE == health.FAR_STALE and guard_template.QUERY_GRACE == health.QUERY_GRACE
    assert guard_template.DELIVERY_STOPPED == identity.DELIVERY_STOPPED
    assert hook_template.LOCK_FD_FLAG == flush.LOCK_FD_FLAG


# -- issue 19: one flusher per burst ---------------------------------------------------------------------------
@posix_only("the hook hands its lock over on POSIX only: Windows locks belong to the process that took them")
def test_flusher_adopts_the_lock_the_hook_handed_over(tmp_path: Path) -> None:
    import os

    from elydora_config._platform import locking

    agent = make_agent(tmp_path, "kimi")
    _spool(agent, [b'{"n": 1}'])
    fd = os.open(agent.path(identity.FLUSH_LOCK), os.O_RDWR | os.O_CREAT, 0o600)
    locking.flock(fd, locking.LOCK_EX_NB)  # as the hook holds it while spawning
    assert flush.flush(str(agent.directory), held_fd=fd) == flush.DRAINED  # not BUSY: the lock is ours
    assert [e["record"]["payload"] for e in _ledger(agent)] == [{"n": 1}]


def test_parallel_hooks_start_one_flusher(tmp_path: Path) -> None:
    from concurrent.futures import ThreadPoolExecutor

    agent = make_agent(tmp_path, "claudecode")
    marker = agent.path("starts")
    # Count flusher starts: every start of the flusher's boot code appends a byte (a probe beside the agent).
    # It then sleeps 2 s, so the whole burst arrives while the first flusher is alive.
    probe = f"import time; open({str(marker)!r}, 'ab').write(b'x'); time.sleep(2); sys.exit(main())\n"
    hook = agent.path("_elydora_audit.py")
    source = hook.read_text()
    assert source.count('"sys.exit(main())\\n"') == 1 and "FLUSH_PATH = ()" not in source
    hook.write_text(source.replace('"sys.exit(main())\\n"', repr(probe)))
    with ThreadPoolExecutor(8) as pool:
        list(pool.map(lambda n: agent.run("hook.py", b'{"n": %d}' % n), range(8)))
    assert wait_until(lambda: len(_ledger(agent)) == 8 and no_flusher_running(agent))
    assert marker.read_bytes() == b"x"


PACKAGE_IMPORT = "import sys, elydora_config; print(*sorted(m for m in sys.modules if m.startswith('elydora_config')))"
"""What ``import elydora_config`` loads: the package's public names (errors, files, paths, records) and its OS
layer. An idle flusher may load that and the OS layer's lock, nothing more of the library."""


def test_flusher_without_work_loads_no_signing_or_http(tmp_path: Path) -> None:
    agent = make_agent(tmp_path, "claudecode", server=None)
    code = (
        "import sys; from elydora_cli.runtime import flush; r = flush.flush(sys.argv[1]);"
        "print(r, 'cryptography' in sys.modules, 'urllib.request' in sys.modules,"
        " *sorted(m for m in sys.modules if m.startswith('elydora_config')))"
    )
    result = subprocess.run([PYTHON, "-I", "-c", code, str(agent.directory)], capture_output=True, text=True)
    outcome, signing, http, *library = result.stdout.split()
    assert (outcome, signing, http) == ("drained", "False", "False"), result.stderr
    package = subprocess.run([PYTHON, "-I", "-c", PACKAGE_IMPORT], capture_output=True, text=True, check=True)
    assert "elydora_config._platform.locking" in library
    assert [name for name in set(library) - set(package.stdout.split())
            if not name.startswith("elydora_config._platform.")] == []
    assert not any(name.startswith(("elydora_config.transaction", "elydora_config.jsonc")) for name in library)


def test_neutral_hook_path_applies_the_same_grace(tmp_path: Path, server: FakeElydora) -> None:
    import pytest

    from elydora_cli.neutral import agentstate

    agent = make_agent(tmp_path, "claudecode", server=server)
    stamp = time.time()
    for since, refused in ((stamp - 10, False), (stamp - health.QUERY_GRACE - 5, True)):
        data = refresh.cache_bytes("active", stamp, stamp, "403 FORBIDDEN", since)
        agent.path(identity.STATUS_CACHE).write_bytes(data)
        agent.path(identity.STATUS_CACHE).chmod(0o600)
        with agentstate.AgentDir(str(agent.directory)) as handle:
            if refused:
                with pytest.raises(agentstate.AgentStateError, match="refused the status query"):
                    agentstate.read_state(handle, provider_id="claudecode", python=PYTHON)
            else:
                assert agentstate.read_state(handle, provider_id="claudecode", python=PYTHON).status == "active"
