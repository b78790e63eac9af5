"""Ledger rollback: what a local check catches, and the receipts of a server-bound agent (issue 27, item 7).

Before: cutting the ledger's tail and deleting or rewriting ``chain-state.json`` passed ``audit verify`` (the
flusher even adopted the cut ledger as a crash), a corrupted chain head left status healthy while the flusher
chained new records onto it, and a server entry whose receipt was removed or relabelled local passed ("78 of
79 receipts verified", exit 0). A whole older copy of the directory agrees with itself: that stays uncaught
locally (the documented limit, pinned below); root's witness under system scope catches it
(tests/elydora_cli/commands/test_cmd_system_witness.py).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from elydora_testkit.fake_elydora_server import FakeElydora
from elydora_testkit.runtime_helpers import AgentHandle, make_agent

from elydora_cli import health, identity
from elydora_cli.main import main
from elydora_cli.runtime import chaincheck, flush, state
from elydora_cli.runtime.deliver import RetryPolicy

QUICK = RetryPolicy(attempts=2, base_delay=0.01, max_delay=0.02, max_wait=1.0)


def _events(agent: AgentHandle, first: int, count: int) -> None:
    with open(agent.path(identity.SPOOL), "ab") as spool:
        for n in range(first, first + count):
            spool.write(b'\n%d {"tool_name": "Bash", "n": %d}\n' % (1_700_000_000_000 + n, n))
    agent.path(identity.SPOOL).chmod(0o600)


def _agent(tmp_path: Path, count: int = 4, server: FakeElydora | None = None) -> AgentHandle:
    agent = make_agent(tmp_path, "codex", server=server)
    _events(agent, 0, count)
    assert flush.flush(str(agent.directory), policy=QUICK) == flush.DRAINED
    assert not agent.path(identity.SPOOL).exists()  # delivered and retired
    return agent


def _lines(agent: AgentHandle) -> list[bytes]:
    return agent.path(identity.LEDGER).read_bytes().splitlines(keepends=True)


def _cut(agent: AgentHandle, keep: int) -> None:
    agent.path(identity.LEDGER).write_bytes(b"".join(_lines(agent)[:keep]))


def _verify(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, Any]]:
    code = main(["audit", "verify", "--provider", "codex", "--state-root", str(tmp_path), "--json"])
    return code, json.loads(capsys.readouterr().out)


def _status_problem(agent: AgentHandle) -> str:
    found = health.check(str(agent.directory))
    assert not found.audited, found.audit.problems
    return " ".join(found.audit.problems)


def test_a_cut_tail_with_chain_state_deleted_is_caught(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """On main the flusher adopted the cut ledger as a crash and audit verify passed."""
    agent = _agent(tmp_path)
    _cut(agent, 2)
    agent.path(identity.CHAIN_STATE).unlink()
    assert "is missing" in _status_problem(agent)
    code, shown = _verify(tmp_path, capsys)
    assert code == 1 and "disagree" in shown["reason"] and "chain-state.json is missing" in shown["reason"]


def test_a_cut_tail_with_chain_state_rewritten_back_is_caught(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A state older than the ledger is a crash only while the spool holds the lines; on main it was adopted."""
    agent = _agent(tmp_path)
    head_after_one = json.loads(_lines(agent)[0])["record"]["chain_hash"]
    _cut(agent, 3)
    state.save(str(agent.directory), state.ChainState(head_after_one, 1, 0))
    assert "does not show the lag a crash leaves" in _status_problem(agent)
    assert _verify(tmp_path, capsys)[0] == 1


def test_a_cut_tail_alone_makes_status_unaudited(tmp_path: Path) -> None:
    """On main audit verify caught it, but status stayed healthy and the flusher chained on."""
    agent = _agent(tmp_path)
    _cut(agent, 2)
    assert "records 4 entries" in _status_problem(agent)


def test_a_corrupted_head_stops_the_flusher_and_is_reported(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """On main status stayed healthy and the next record was chained onto the corrupted head."""
    agent = _agent(tmp_path)
    saved = state.load(str(agent.directory))
    state.save(str(agent.directory), state.ChainState("B" * 43, saved.seq, saved.spool_offset))
    assert "records the head " + "B" * 43 in _status_problem(agent)
    _events(agent, 10, 1)
    assert flush.flush(str(agent.directory)) == flush.STOPPED  # nothing chained on a head it cannot trust
    assert len(_lines(agent)) == 4 and agent.path(identity.SPOOL).exists()
    assert _verify(tmp_path, capsys)[0] == 1


def test_accept_ledger_resumes_with_a_signed_record_of_what_was_accepted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    agent = _agent(tmp_path)
    _cut(agent, 2)
    agent.path(identity.CHAIN_STATE).unlink()
    _events(agent, 10, 1)
    assert main(["audit", "flush", "--accept-ledger", "--provider", "codex", "--state-root", str(tmp_path)]) == 0
    capsys.readouterr()
    payloads = [json.loads(line)["record"]["payload"] for line in _lines(agent)]
    assert payloads[2]["n"] == 10  # the waiting event, chained on the accepted head
    accepted = payloads[3]
    assert accepted["hook_event_name"] == "elydora.gap" and accepted["reason"] == "ledger_accepted"
    assert "the ledger has 2 entries" in accepted["detail"] and "chain-state.json is missing" in accepted["detail"]
    found = health.check(str(agent.directory))
    assert found.audited and found.audit.gaps_unreviewed == 1  # status: "audit gaps" until verify shows it
    code, shown = _verify(tmp_path, capsys)
    assert code == 0 and shown["gap_records"] == [4]


def test_a_whole_older_copy_of_the_directory_is_not_caught_locally(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The documented limit (docs/runtime.md, "Rollback"): the copy agrees with itself. Root's witness (system
    scope) and the server's receipts are what catch it."""
    agent = _agent(tmp_path, count=2)
    copy = tmp_path / "copy"
    shutil.copytree(agent.directory, copy, symlinks=True)
    _events(agent, 5, 3)
    assert flush.flush(str(agent.directory)) == flush.DRAINED
    shutil.rmtree(agent.directory)
    shutil.copytree(copy, agent.directory, symlinks=True)
    assert chaincheck.disagreement(str(agent.directory)) is None
    assert _verify(tmp_path, capsys)[0] == 0


# -- a server-bound agent: every record has its receipt, or says why not ----------------------------------------------


def test_a_removed_receipt_breaks_audit_verify(
    tmp_path: Path, server: FakeElydora, capsys: pytest.CaptureFixture[str]
) -> None:
    """On main: "2 of 3 receipts verified", exit 0."""
    agent = _agent(tmp_path, count=3, server=server)
    lines = [json.loads(line) for line in _lines(agent)]
    del lines[1]["receipt"]
    agent.path(identity.LEDGER).write_text("".join(json.dumps(e) + "\n" for e in lines))
    code, shown = _verify(tmp_path, capsys)
    assert code == 1 and shown["break_line"] == 2 and "no receipt" in shown["reason"]


def test_a_server_entry_relabelled_local_breaks_audit_verify(
    tmp_path: Path, server: FakeElydora, capsys: pytest.CaptureFixture[str]
) -> None:
    agent = _agent(tmp_path, count=2, server=server)
    lines = [json.loads(line) for line in _lines(agent)]
    lines[0]["sink"] = "local"
    lines[0]["receipt"] = None
    agent.path(identity.LEDGER).write_text("".join(json.dumps(e) + "\n" for e in lines))
    code, shown = _verify(tmp_path, capsys)
    assert code == 1 and "labelled 'local'" in shown["reason"]


def test_a_receiptless_entry_with_a_stated_reason_passes_and_is_reported(
    tmp_path: Path, server: FakeElydora, capsys: pytest.CaptureFixture[str]
) -> None:
    agent = _agent(tmp_path, count=2, server=server)
    lines = [json.loads(line) for line in _lines(agent)]
    lines[0]["receipt"] = None
    lines[0]["receipt_missing"] = "answer_lost"
    agent.path(identity.LEDGER).write_text("".join(json.dumps(e) + "\n" for e in lines))
    code, shown = _verify(tmp_path, capsys)
    assert code == 0 and shown["receiptless"] == [1] and shown["server_entries"] == 2
