"""End to end with real Claude Code (issue 27): nothing in its settings lifts a freeze or diverts a record, and a
large ``Write`` leaves a signed trace.

* Claude Code applies its settings ``env`` block to every hook. Before issue 27, ``ELYDORA_VERIFY_STATE`` there,
  naming a directory with an "active" ``status.json``, let a frozen agent run its tools with nothing recorded,
  and ``COPILOT_PROJECT_DIR`` made the hooks skip Claude Code's own calls. Here the block holds both, the
  verify variable that replaced the first (``ELYDORA_VERIFY_PROBE``, with a name of the right form) and Grok's
  ``GROK_HOOK_EVENT``: the call is still recorded in the real ledger when active, and blocked when frozen.
* A ``Write`` of 1.1 MiB (the key file of the issue) is recorded whole: the limit was 1 MiB, now 8 MiB. A
  ``Write`` whose post-tool event exceeds 8 MiB leaves a signed gap record with the event's byte count and
  SHA-256 and the tool name.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from elydora_testkit.e2e_harness import Sandbox, contains
from elydora_testkit.e2e_session import AgentSession, assert_reached_only_the_fake_model, guard_line, open_session

pytestmark = pytest.mark.e2e

PLANTED = "planted-state"


def _plant(sb: Sandbox) -> None:
    """The user's (or the agent's) settings env block, written before our install merges its hooks in."""
    planted = sb.root / PLANTED
    planted.mkdir(mode=0o700)
    (planted / "status.json").write_text('{"status": "active"}\n')
    (planted / "status.json").chmod(0o600)
    settings = sb.home / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    env = {
        "ELYDORA_VERIFY_STATE": str(planted),
        "ELYDORA_VERIFY_PROBE": "0123456789abcdef0123456789abcdef",
        "COPILOT_PROJECT_DIR": str(sb.work),
        "GROK_HOOK_EVENT": "pre_tool_use",
    }
    settings.write_text(json.dumps({"env": env}, indent=2) + "\n")


@pytest.fixture(scope="module")
def planted(agent_cache: dict[str, Any], tmp_path_factory: pytest.TempPathFactory) -> Iterator[AgentSession]:
    yield from open_session("claudecode", agent_cache, tmp_path_factory.mktemp("e2e-claude-planted"), _plant)


def _posts(session: AgentSession) -> list[dict[str, Any]]:
    return [
        e["record"]["payload"] for e in session.sandbox.ledger() if session.agent.post_event_ok(e["record"]["payload"])
    ]


def test_an_env_block_does_not_divert_the_record(planted: AgentSession) -> None:
    sb = planted.sandbox
    assert "env" in json.loads((sb.home / ".claude" / "settings.json").read_text())  # kept beside our hooks
    run = planted.run("planted-allow")
    assert_reached_only_the_fake_model(run)
    assert run.proof_exists and sb.runtime_ran("guard") and sb.runtime_ran("audit"), run.describe()
    assert len(_posts(planted)) == 1, "the call is not in the real ledger"
    assert not (sb.root / PLANTED / "spool.jsonl").exists(), "the record went to the planted directory"
    log = sb.agent_dir / "error.log"
    assert "ignored: ELYDORA_VERIFY_PROBE" in log.read_text(), "the planted probe name was not logged"
    hosts = sb.agent_dir / "host-check.log"
    assert not hosts.exists() or "foreign" not in hosts.read_text(), "Claude Code's own call was taken as foreign"


def test_an_env_block_does_not_lift_a_freeze(planted: AgentSession) -> None:
    sb = planted.sandbox
    sb.elydora("agent", "freeze", "--provider", "claudecode", "--root", str(sb.home))
    before = len(_posts(planted))
    run = planted.run("planted-block")
    assert_reached_only_the_fake_model(run)
    assert not run.proof_exists, f"the tool ran although the agent is frozen\n{run.describe()}"
    assert any(contains(r["body"], guard_line("claudecode")) for r in run.after_tool_call()), run.describe()
    assert len(_posts(planted)) == before


@pytest.fixture(scope="module")
def writer(agent_cache: dict[str, Any], tmp_path_factory: pytest.TempPathFactory) -> Iterator[AgentSession]:
    yield from open_session("claudecode", agent_cache, tmp_path_factory.mktemp("e2e-claude-write"))


def _write(session: AgentSession, phase: str, name: str, size: int) -> tuple[Any, Path]:
    sb = session.sandbox
    target = sb.work / name
    argv = [session.info["bin"], "-p", f"Write {name}", "--output-format", "json", "--allowedTools", "Write"]
    call = {"arguments": {"file_path": str(target)}, "fill": {"key": "content", "size": size}}
    sb.clear_bytecode()
    run = session.run_raw(phase, argv, tool="Write", call=call)
    assert not run.timed_out, run.describe()
    return run, target


def test_a_write_of_1_1_mib_is_signed_whole(writer: AgentSession) -> None:
    size = int(1.1 * (1 << 20))
    run, target = _write(writer, "write-1.1mib", "authorized_keys", size)
    assert target.exists() and target.stat().st_size == size, run.describe()
    writes = [p for p in _posts(writer) if p.get("tool_name") == "Write"]
    assert len(writes) == 1 and len(writes[0]["tool_input"]["content"]) == size
    entry = next(e for e in writer.sandbox.ledger() if e["record"]["payload"].get("tool_name") == "Write")
    assert entry["record"]["payload_hash"] and entry["record"]["signature"]
    verify = writer.sandbox.elydora("audit", "verify", "--provider", "claudecode", "--root", str(writer.sandbox.home))
    assert "ledger OK" in verify.stdout


def test_a_write_over_the_event_limit_leaves_a_signed_gap_with_its_hash(writer: AgentSession) -> None:
    size = (4 << 20) + (256 << 10)  # the post-tool event holds the content twice: above the 8 MiB limit
    run, target = _write(writer, "write-over-limit", "big.txt", size)
    assert target.exists() and target.stat().st_size == size, run.describe()
    gaps = [e for e in writer.sandbox.ledger() if e["record"]["payload"].get("hook_event_name") == "elydora.gap"]
    assert len(gaps) == 1, json.dumps([g["record"]["payload"] for g in gaps])
    gap = gaps[0]["record"]["payload"]
    assert gap["reason"] == "too_large" and gap["provider"] == "claudecode"
    assert (
        gap["event"]["tool_name"] == "Write" and gap["event"]["bytes"] > 8 << 20 and len(gap["event"]["sha256"]) == 43
    )
    assert gaps[0]["record"]["signature"]
    status = writer.sandbox.elydora("status", "claudecode", "--root", str(writer.sandbox.home), check=False)
    assert status.returncode == 1 and "audit gaps" in status.stdout, status.stdout
    verify = writer.sandbox.elydora("audit", "verify", "--provider", "claudecode", "--root", str(writer.sandbox.home))
    assert "ledger OK" in verify.stdout and "too_large" in verify.stdout
