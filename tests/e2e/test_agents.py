"""End to end: each real agent CLI, installed by ``elydora install``, driven headless against the fake model.

One row per catalog agent. For each runnable agent, in a fresh sandbox home and a loopback-only network
namespace:

* ``test_allow``: the tool runs, our guard and audit hooks fired, and the signed ledger holds the agent's
  native post-tool payload as the agent sent it;
* ``test_block``: after ``elydora agent freeze`` the tool does not run, the post-tool hook does not fire, and
  the model is told about the block (our message, where the agent passes stderr on);
* ``test_uninstall``: after ``elydora uninstall`` (agent still frozen) the tool runs and no hook fires;
* ``test_reinstall``: in that home, which the agent has now used, ``status`` and ``install`` still work.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from elydora_testkit.e2e_agents import AGENTS, DENIAL_WITH_REASON, NOT_RUNNABLE, STDERR_TO_MODEL, TASK_ABORTED
from elydora_testkit.e2e_harness import COMMAND, PROOF_FILE, contains, record_version
from elydora_testkit.e2e_session import (
    AgentSession,
    assert_blocked_call_recorded,
    assert_reached_only_the_fake_model,
    guard_line,
    installed_ok,
    ledger_payloads,
)

from elydora_cli import catalog
from elydora_cli import providers as registry

pytestmark = pytest.mark.e2e

ROWS = list(catalog.provider_ids())

# Product bugs that these tests found and that are reported to the lead; strict, so a fix turns them red
# until the mark is removed.
KNOWN_PRODUCT_BUGS: dict[tuple[str, str], str] = {}


@pytest.fixture(scope="module", params=ROWS)
def session(request: pytest.FixtureRequest, agent_cache: dict[str, Any],
            tmp_path_factory: pytest.TempPathFactory) -> Iterator[AgentSession]:
    agent_id: str = request.param
    if agent_id not in registry.implemented_ids():
        pytest.skip(f"{agent_id}: no installer yet (elydora_cli/providers/{agent_id}.py is not there)")
    if agent_id in NOT_RUNNABLE:
        pytest.skip(f"{agent_id}: {NOT_RUNNABLE[agent_id]}")
    if agent_id not in AGENTS:
        pytest.skip(f"{agent_id}: the e2e suite has no row for this agent yet")
    info = agent_cache.get(agent_id) or {"available": False, "reason": "not in the e2e cache manifest"}
    if not info.get("available"):
        pytest.skip(f"{agent_id}: {info.get('reason')}")
    record_version(agent_id, info["version"])
    s = AgentSession(AGENTS[agent_id], info, tmp_path_factory.mktemp(f"e2e-{agent_id}"))
    try:
        assert s.driver.interfaces == ["lo"], f"the namespace must have only loopback: {s.driver.interfaces}"
        yield s
    finally:
        s.close()


def known_bug(request: pytest.FixtureRequest, agent_id: str, phase: str) -> None:
    reason = KNOWN_PRODUCT_BUGS.get((agent_id, phase))
    if reason:
        request.node._e2e_xfail = True
        request.applymarker(pytest.mark.xfail(strict=True, reason=f"product bug (reported): {reason}"))


# -- the four phases ------------------------------------------------------------------------------------------
def test_allow(session: AgentSession, request: pytest.FixtureRequest) -> None:
    agent, sb = session.agent, session.sandbox
    known_bug(request, agent.id, "allow")
    assert installed_ok(agent.id, session.status), (
        f"elydora status after install:\n{session.status.stdout}{session.status.stderr}"
    )
    sb.elydora("agent", "unfreeze", "--provider", agent.id, "--root", str(sb.home))
    before = len(ledger_payloads(session))
    run = session.run("allow")

    assert_reached_only_the_fake_model(run)
    assert run.proof_exists, f"the tool did not run: {PROOF_FILE} is missing\n{run.describe()}"
    assert sb.runtime_ran("guard"), f"the guard hook did not run\n{run.describe()}"
    assert sb.runtime_ran("audit"), f"the audit hook did not run\n{run.describe()}"

    payloads = ledger_payloads(session)[before:]
    posts = [p for p in payloads if agent.post_event_ok(p)]
    assert len(posts) == 1, f"expected one post-tool record, ledger has {json.dumps(payloads)[:3000]}"
    payload = posts[0]
    # The agent's own payload, not a translation: its native key set and values from this very run.
    assert set(payload) == agent.post_keys, (
        f"not the native {agent.name} payload: extra {sorted(set(payload) - agent.post_keys)}, "
        f"missing {sorted(agent.post_keys - set(payload))}"
    )
    assert agent.payload_tool(payload) == agent.hook_tool
    assert agent.payload_command(payload) == COMMAND
    assert agent.payload_cwd(payload) == str(sb.work)
    call_id = agent.payload_call_id(payload)
    if call_id is not None:
        assert call_id == run.tool_call["tool_call_id"], "the payload's tool call id is not the model's"
    verify = sb.elydora("audit", "verify", "--provider", agent.id, "--root", str(sb.home))
    assert "ledger OK" in verify.stdout


def test_block(session: AgentSession, request: pytest.FixtureRequest) -> None:
    agent, sb = session.agent, session.sandbox
    known_bug(request, agent.id, "block")
    sb.elydora("agent", "freeze", "--provider", agent.id, "--root", str(sb.home))
    before = len(ledger_payloads(session))
    run = session.run("block")

    assert_reached_only_the_fake_model(run, expect_followup=agent.block_feedback != TASK_ABORTED)
    assert not run.proof_exists, f"the tool ran although the agent is frozen\n{run.describe()}"
    assert sb.runtime_ran("guard"), f"the guard hook did not run\n{run.describe()}"
    if agent.block_record is None:
        assert not sb.runtime_ran("audit"), "the post-tool hook fired"
        assert not sb.spool_lines() and len(ledger_payloads(session)) == before, "the post-tool hook recorded an event"
    else:  # the agent reports the vetoed call as failed: one record of it, blocked by our guard
        assert_blocked_call_recorded(session, run, before)
    followups = run.after_tool_call()
    if agent.block_feedback == STDERR_TO_MODEL:
        assert any(contains(r["body"], guard_line(agent.id)) for r in followups), (
            f"the model was not told our block message\n{json.dumps([r['body'] for r in followups])[-3000:]}"
        )
    elif agent.block_feedback == DENIAL_WITH_REASON:  # the agent's denial carries the reason the guard printed
        told = agent.denial_text + (agent.deny_reason or guard_line)(agent.id)
        assert any(contains(r["body"], told) for r in followups), (
            f"the model was not told {told!r}\n{json.dumps([r['body'] for r in followups])[-3000:]}"
        )
    else:  # the whole task is cancelled: no further model request, and the agent says it aborted
        assert not followups, f"{agent.name} went on after the cancel\n{run.describe()}"
        assert '"finishReason":"aborted"' in run.stdout, run.describe()


def test_uninstall(session: AgentSession) -> None:
    agent, sb = session.agent, session.sandbox
    sb.elydora("uninstall", agent.id, "--root", str(sb.home))
    for rel in agent.config_files:
        path = sb.home / rel
        files = [p for p in path.rglob("*") if p.is_file()] if path.is_dir() else [path] if path.exists() else []
        for f in files:
            assert ".elydora" not in f.read_text(errors="replace"), f"{f} still refers to our runtime"
    before = len(ledger_payloads(session))
    run = session.run("uninstall")  # the agent is still frozen: any hook left would block or fail

    assert_reached_only_the_fake_model(run)
    assert run.proof_exists, f"the tool did not run after uninstall\n{run.describe()}"
    assert not sb.runtime_ran("guard") and not sb.runtime_ran("audit"), "a hook ran after uninstall"
    assert not sb.spool_lines() and len(ledger_payloads(session)) == before, "an event was recorded"
    assert not any(contains(r["body"], "Elydora") for r in run.model_requests), "the model heard of Elydora"


def test_reinstall(session: AgentSession, request: pytest.FixtureRequest) -> None:
    """A user installs into a home where the agent has already been used: the files it wrote for itself
    (state, migrated settings) must not stop ``status`` or ``install``."""
    agent, sb = session.agent, session.sandbox
    known_bug(request, agent.id, "reinstall")
    if not (sb.work / PROOF_FILE).exists():  # run alone: use the agent once, without our hooks
        sb.elydora("uninstall", agent.id, "--root", str(sb.home))
        session.run("used")
    status = sb.elydora("status", agent.id, "--root", str(sb.home), check=False)
    assert status.returncode == 0 and "not installed" in status.stdout, status.stdout + status.stderr
    frozen = _agent_status(sb.home, agent.id) == "frozen"  # test_block froze it; uninstall keeps the identity
    sb.elydora("install", agent.id, "--root", str(sb.home))
    status = sb.elydora("status", agent.id, "--root", str(sb.home), check=False)
    if frozen:  # the state survives uninstall and reinstall, and status says so instead of "healthy"
        expected = ["awaiting", "approval"] if agent.id == "codex" else ["frozen"]
        assert status.returncode == 1 and status.stdout.split()[1:][: len(expected)] == expected, status.stdout
        sb.elydora("agent", "unfreeze", "--provider", agent.id, "--root", str(sb.home))
        status = sb.elydora("status", agent.id, "--root", str(sb.home), check=False)
    assert installed_ok(agent.id, status), status.stdout + status.stderr


def _agent_status(home: Path, agent_id: str) -> str | None:
    """The local status the guard enforces for ``agent_id`` (``None`` before the agent exists)."""
    path = home / ".elydora" / agent_id / "status.json"
    return json.loads(path.read_text(encoding="utf-8")).get("status") if path.exists() else None
