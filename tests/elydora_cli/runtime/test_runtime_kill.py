"""Kill the flusher (SIGKILL) at random points: after the next run nothing is lost or duplicated."""

from __future__ import annotations

import json
import random
import subprocess
import time
from pathlib import Path

import pytest
from elydora_testkit.fake_elydora_server import FakeElydora
from elydora_testkit.runtime_helpers import PYTHON, AgentHandle, make_agent

from elydora_cli import identity, statefiles
from elydora_cli.runtime import flush, ledger


def _append(agent: AgentHandle, start: int, count: int) -> None:
    with open(agent.path(identity.SPOOL), "ab") as handle:
        for n in range(start, start + count):
            handle.write(b'\n%d {"tool_name": "Edit", "n": %d, "pad": "%s"}\n' % (n, n, b"p" * (n % 7) * 300))
    agent.path(identity.SPOOL).chmod(0o600)


def _progress(agent: AgentHandle) -> int:
    path = agent.path(identity.LEDGER)
    return path.read_bytes().count(b"\n") if path.exists() else 0


def _kill_runs(agent: AgentHandle, rng: random.Random, rounds: int, total: int, batch: int) -> int:
    """Start and SIGKILL the detached flusher ``rounds`` times, spooling ``batch`` events after each kill."""
    interrupted = 0
    for _ in range(rounds):
        before = _progress(agent)
        proc = subprocess.Popen([PYTHON, "-I", "-m", "elydora_cli.runtime.flush", str(agent.directory)])
        deadline = time.monotonic() + 20
        while _progress(agent) == before and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.001)  # wait until it is delivering, then kill it at a random point
        time.sleep(rng.uniform(0.0, 0.03))
        proc.kill()
        proc.wait()
        interrupted += proc.returncode == -9 and 0 < _progress(agent) < total
        _append(agent, total, batch)
        total += batch
    assert interrupted >= rounds // 2, "the kills should land while records are being delivered"
    return total


def _ledger_numbers(agent: AgentHandle) -> list[int]:
    return [
        json.loads(line)["record"]["payload"]["n"] for line in agent.path(identity.LEDGER).read_bytes().splitlines()
    ]


@pytest.mark.parametrize("seed", [11, 29])
def test_local_ledger_survives_random_kills(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    agent = make_agent(tmp_path, "claudecode")
    _append(agent, 0, 400)
    total = _kill_runs(agent, rng, rounds=8, total=400, batch=150)
    assert flush.flush(str(agent.directory)) == flush.DRAINED
    assert _ledger_numbers(agent) == list(range(total))
    report = ledger.verify(str(agent.path(identity.LEDGER)), agent.key.public_key())
    assert report.ok and report.entries == total


@pytest.mark.parametrize("seed", [5])
def test_server_delivery_survives_random_kills(tmp_path: Path, server: FakeElydora, seed: int) -> None:
    rng = random.Random(seed)
    agent = make_agent(tmp_path, "codex", server=server)
    _append(agent, 0, 60)
    total = _kill_runs(agent, rng, rounds=8, total=60, batch=25)
    assert flush.flush(str(agent.directory)) == flush.DRAINED
    records = server.state.agents["codex"].records
    assert [r["payload"]["n"] for r in records] == list(range(total))
    prev = statefiles.GENESIS
    for rec in records:
        assert rec["prev_chain_hash"] == prev
        prev = rec["chain_hash"]
    assert _ledger_numbers(agent) == list(range(total))
    assert ledger.verify(str(agent.path(identity.LEDGER)), agent.key.public_key()).ok
