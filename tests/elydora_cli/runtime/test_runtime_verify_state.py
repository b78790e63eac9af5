"""``ELYDORA_VERIFY_STATE``: the scratch state ``elydora verify`` gives a probe.

The generated guard and audit hook, and ``elydora hook``, take the status from the scratch directory's
``status.json``, spool and log there, and start neither the refresher nor the flusher: the agent's own
state is only read (``config.json``).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from elydora_testkit.fake_elydora_server import FakeElydora
from elydora_testkit.runtime_helpers import PYTHON, AgentHandle, make_agent

from elydora_cli import catalog, identity
from elydora_cli.installer import verify as verify_module
from elydora_cli.neutral import agentstate
from elydora_cli.runtime import runtime_argv
from elydora_cli.runtime.templates import guard as guard_template
from elydora_cli.runtime.templates import hook as hook_template

ENV = "ELYDORA_VERIFY_STATE"
EVENT = b'{"hook_event_name": "PreToolUse", "transcript_path": "/t.jsonl", "tool_name": "Bash", "tool_input": {}}'


def scratch(tmp_path: Path, status: str) -> Path:
    directory = tmp_path / "scratch"
    directory.mkdir(mode=0o700)
    (directory / identity.STATUS).write_bytes(identity.status_bytes(status, None))
    (directory / identity.STATUS).chmod(0o600)
    return directory


def run(agent: AgentHandle, script: str, stdin: bytes, state: Path | str) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, ENV: str(state)}
    argv = runtime_argv(PYTHON, agent.path(script))
    return subprocess.run(argv, input=stdin, capture_output=True, env=env, timeout=30, check=False)


def agent_files(agent: AgentHandle) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in agent.directory.iterdir() if p.is_file()}


def test_every_reader_names_the_same_variable() -> None:
    assert guard_template.VERIFY_ENV.decode() == hook_template.VERIFY_ENV.decode() == ENV
    assert agentstate.VERIFY_ENV == verify_module.VERIFY_ENV == ENV


@pytest.mark.parametrize(("real", "probe", "denied"), [("active", "frozen", True), ("frozen", "active", False)])
def test_the_guard_decides_from_the_scratch_status(tmp_path: Path, real: str, probe: str, denied: bool) -> None:
    agent = make_agent(tmp_path, "cursor")
    agent.set_local_status(real)
    before = agent_files(agent)
    result = run(agent, "guard.py", EVENT, scratch(tmp_path, probe))
    facts = catalog.provider("cursor")
    if denied:
        assert (result.returncode, result.stdout) == (facts.guard.deny_exit_code, facts.deny_stdout("frozen"))
    else:
        assert (result.returncode, result.stdout) == (0, facts.guard.success_stdout)
    assert agent_files(agent) == before


def test_a_server_agent_probe_needs_no_cache_and_starts_no_refresh(tmp_path: Path, server: FakeElydora) -> None:
    agent = make_agent(tmp_path, "claudecode", server=server)
    result = run(agent, "guard.py", EVENT, scratch(tmp_path, "frozen"))
    assert result.returncode == 2 and b'Agent "claudecode" is frozen' in result.stderr
    assert not agent.path("refresh.lock").exists() and not agent.path(identity.STATUS_CACHE).exists()


def test_guard_errors_are_logged_in_the_scratch_directory(tmp_path: Path) -> None:
    agent = make_agent(tmp_path, "gemini")
    state = scratch(tmp_path, "active")
    result = run(agent, "guard.py", b"not json", state)
    assert result.returncode == 0 and b"stdin is not a JSON object" in result.stderr  # Gemini fails open
    assert "stdin is not a JSON object" in (state / "error.log").read_text()
    assert not agent.path("error.log").exists()


def test_a_relative_scratch_directory_is_refused(tmp_path: Path) -> None:
    agent = make_agent(tmp_path, "cursor")
    result = run(agent, "guard.py", EVENT, "relative/dir")
    assert result.returncode == 1 and b"ELYDORA_VERIFY_STATE must be an absolute path" in result.stderr


def test_the_audit_hook_spools_into_the_scratch_directory(tmp_path: Path) -> None:
    agent = make_agent(tmp_path, "letta")
    state = scratch(tmp_path, "active")
    result = run(agent, "hook.py", b'{"event_type": "PostToolUse"}\n', state)
    assert (result.returncode, result.stderr) == (0, b"")
    line = (state / "spool.jsonl").read_bytes()
    assert line.startswith(b"\n") and line.endswith(b' {"event_type": "PostToolUse"}\n')
    names = {p.name for p in agent.directory.iterdir()}
    assert not names & {"spool.jsonl", "flush.lock", "ledger.jsonl", "error.log"}


def test_the_audit_hook_fails_closed_when_the_scratch_spool_cannot_be_written(tmp_path: Path) -> None:
    agent = make_agent(tmp_path, "letta")
    result = run(agent, "hook.py", b"{}", tmp_path / "absent")
    assert result.returncode == 1 and b"[Elydora audit]" in result.stderr
    assert not agent.path("spool.jsonl").exists()


def test_elydora_hook_honours_the_scratch_state(tmp_path: Path) -> None:
    agent = make_agent(tmp_path, "kimi")
    state = scratch(tmp_path, "frozen")
    env = {**os.environ, ENV: str(state)}
    argv = [sys.executable, "-m", "elydora_cli", "hook", "--state-root", str(tmp_path), "--provider", "kimi"]
    result = subprocess.run(argv, input=EVENT, capture_output=True, env=env, timeout=60, check=False)
    assert result.returncode == 2 and b'Agent "kimi" is frozen' in result.stderr
    assert EVENT in (state / "spool.jsonl").read_bytes()
    assert not {"spool.jsonl", "flush.lock", "error.log"} & {p.name for p in agent.directory.iterdir()}
    grok = make_agent(tmp_path, "grok")  # Grok's payload spells its pre-tool event pre_tool_use
    argv[-1] = "grok"
    grok_event = b'{"hookEventName": "pre_tool_use", "toolName": "run_terminal_command"}'
    result = subprocess.run(argv, input=grok_event, capture_output=True, env=env, timeout=60, check=False)
    assert result.returncode == 2 and b'"decision":"deny"' in result.stdout
    assert not grok.path("spool.jsonl").exists()
