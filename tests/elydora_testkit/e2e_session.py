"""One agent's end-to-end session: its sandbox home, its namespace driver and its runs, plus the checks every
e2e test file shares (what the model was told, what the ledger holds, whether ``status`` is healthy)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Generator
from pathlib import Path
from typing import Any

import pytest

from elydora_testkit.e2e_agents import AGENTS, Agent, run_env
from elydora_testkit.e2e_harness import COMMAND, PROOF_FILE, Driver, Run, Sandbox, read_log

RUN_TIMEOUT = 150


def guard_line(agent_id: str) -> str:
    return f'[Elydora guard] Agent "{agent_id}" is frozen in Elydora. Tool execution blocked.'


class AgentSession:
    """One agent's sandbox, its namespace driver and its runs, shared by the three phases."""

    def __init__(self, agent: Agent, info: dict[str, Any], root: Path,
                 before_install: Callable[[Sandbox], None] | None = None) -> None:
        self.agent = agent
        self.info = info
        self.sandbox = Sandbox(agent.id, root)
        self.driver = Driver(root)
        self.setup_notes: list[str] = []
        sb = self.sandbox
        agent.configure(sb, self.driver.port)
        if agent.setup_argv is not None:  # the user's own provider setup (e.g. `cline auth`), before installing
            result = self.run_raw("setup", agent.setup_argv(info["bin"], self.driver.port), tool="-")
            assert result.rc == 0 and not result.timed_out, result.describe()
        if before_install is not None:  # a test's own user files, beyond the agent's settings
            before_install(sb)
        self.install = sb.elydora("install", agent.id, "--root", str(sb.home))
        self.status = sb.elydora("status", agent.id, "--root", str(sb.home), check=False)

    def run_raw(self, phase: str, argv: list[str], *, tool: str, call: dict[str, Any] | None = None) -> Run:
        """Run ``argv`` in the namespace; the fake model calls ``tool`` once (``call``: the reset's
        ``arguments`` and ``fill``, see driver.py; default: the shell command)."""
        sb = self.sandbox
        log = sb.logs / f"{phase}.requests.jsonl"
        out, err = sb.logs / f"{phase}.stdout", sb.logs / f"{phase}.stderr"
        self.driver.call(
            op="reset", tool=tool, command=COMMAND, log=str(log), answer_delay=self.agent.answer_delay, **(call or {})
        )
        env = run_env(self.agent, sb, self.driver.port, self.info["path_prefix"])
        started = time.time()
        answer = self.driver.call(op="run", argv=argv, env=env, cwd=str(sb.work), timeout=RUN_TIMEOUT,
                                  stdout=str(out), stderr=str(err))
        requests = read_log(log)
        if self.agent.model_log is not None:
            requests += self.agent.model_log(sb, started)
        return Run(
            phase=phase, rc=answer["rc"], timed_out=answer["timed_out"], seconds=answer["seconds"],
            stdout=out.read_text(errors="replace"), stderr=err.read_text(errors="replace"),
            requests=requests, proof_exists=(sb.work / PROOF_FILE).exists(), workdir=sb.work,
        )

    def run(self, phase: str, extra_args: tuple[str, ...] = ()) -> Run:
        self.sandbox.reset_work()
        self.sandbox.clear_bytecode()
        argv = self.agent.argv(self.info["bin"]) + list(extra_args)
        result = self.run_raw(phase, argv, tool=self.agent.shell_tool)
        assert not result.timed_out, f"{self.agent.name} did not finish in {RUN_TIMEOUT}s\n{result.describe()}"
        return result

    def close(self) -> None:
        self.driver.close()


def assert_reached_only_the_fake_model(run: Run, *, expect_followup: bool = True) -> None:
    """The namespace has nothing but loopback, so every model request the agent made is in this log."""
    assert run.tool_call is not None, (
        f"the fake model never got a request offering the shell tool\n{run.describe()}"
    )
    if expect_followup:
        assert run.after_tool_call(), f"the agent did not report the tool result to the model\n{run.describe()}"


def assert_blocked_call_recorded(session: AgentSession, run: Run, before: int) -> None:
    """For an agent with ``block_record`` (Kimi Code): the blocked call left exactly one record, the agent's own
    failure event for the model's tool call, whose error text is our guard's line (docs/providers.md)."""
    agent = session.agent
    assert session.sandbox.runtime_ran("audit"), f"{agent.name} sent no {agent.block_record} for the blocked call"
    added = ledger_payloads(session)[before:]
    assert len(added) == 1, f"expected one record of the blocked call, got {json.dumps(added)[:3000]}"
    payload = added[0]
    assert payload.get("hook_event_name") == agent.block_record, payload
    assert agent.block_record_text(payload) == guard_line(agent.id), payload
    assert run.tool_call is not None and agent.payload_call_id(payload) == run.tool_call["tool_call_id"], payload


def ledger_payloads(session: AgentSession) -> list[dict[str, Any]]:
    return [entry["record"]["payload"] for entry in session.sandbox.ledger()]


def installed_ok(agent_id: str, status: Any) -> bool:
    """``status`` after an install: healthy. Codex runs here with --dangerously-bypass-hook-trust standing in
    for the user's one-time trust, so for it the only acceptable problem is that trust is still awaited."""
    words = status.stdout.split()
    if agent_id == "codex" and words[1:3] == ["awaiting", "approval"]:
        problems = [line for line in status.stdout.splitlines() if line.strip().startswith("- ")]
        return status.returncode == 1 and len(problems) == 1 and "awaiting trust" in problems[0]
    return bool(status.returncode == 0 and words[1:2] == ["healthy"])


def open_session(agent_id: str, agent_cache: dict[str, Any], root: Path,
                 before_install: Callable[[Sandbox], None] | None = None,
                 agent: Agent | None = None) -> Generator[AgentSession, None, None]:
    """A session for a test of its own (beyond the four phases): skipped when the agent is not in the cache.
    ``agent``: a variant of the agent's row (e.g. another environment) instead of the row itself."""
    info = agent_cache.get(agent_id) or {}
    if not info.get("available"):
        pytest.skip(f"{agent_id}: {info.get('reason', 'not in the e2e cache manifest')}")
    s = AgentSession(agent or AGENTS[agent_id], info, root, before_install=before_install)
    try:
        yield s
    finally:
        s.close()
