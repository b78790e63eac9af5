"""Verify's probes, and nothing the agent can set in the hooks' environment redirecting the runtime (issue 27).

A probe's scratch state is a fresh owner-only directory ``verify-probe.<128 random bits>`` that ``elydora
verify`` makes inside the agent's own directory; the environment names it by its random name only
(``ELYDORA_VERIFY_PROBE``). The generated guard and audit hook, and ``elydora hook``, take the status from it,
spool and log there, and start neither the refresher nor the flusher. Any other value (the old
``ELYDORA_VERIFY_STATE`` path, a path, a name with no directory, a stale, linked or open directory) is ignored:
the real status decides, the event reaches the real spool and the ledger, and the attempt is logged.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from elydora_testkit.fake_elydora_server import FakeElydora
from elydora_testkit.runtime_helpers import PYTHON, AgentHandle, make_agent, no_flusher_running, wait_until

from elydora_cli import catalog, identity, statefiles
from elydora_cli.installer import verify as verify_module
from elydora_cli.neutral import agentstate
from elydora_cli.runtime import runtime_argv
from elydora_cli.runtime.templates import hookinput

EVENT = b'{"hook_event_name": "PreToolUse", "transcript_path": "/t.jsonl", "tool_name": "Bash", "tool_input": {}}'


def probe(agent: AgentHandle, status: str) -> tuple[str, Path]:
    name, path = verify_module.make_probe_dir(str(agent.directory), status)
    return name, Path(path)


def run(agent: AgentHandle, script: str, stdin: bytes, env: dict[str, str]) -> subprocess.CompletedProcess[bytes]:
    argv = runtime_argv(PYTHON, agent.path(script))
    clean = {k: v for k, v in os.environ.items() if not k.startswith("ELYDORA_VERIFY")}
    return subprocess.run(argv, input=stdin, capture_output=True, env={**clean, **env}, timeout=30, check=False)


def elydora_hook(root: Path, provider: str, stdin: bytes, env: dict[str, str]) -> subprocess.CompletedProcess[bytes]:
    argv = [sys.executable, "-m", "elydora_cli", "hook", "--state-root", str(root), "--provider", provider]
    clean = {k: v for k, v in os.environ.items() if not k.startswith("ELYDORA_VERIFY")}
    return subprocess.run(argv, input=stdin, capture_output=True, env={**clean, **env}, timeout=60, check=False)


def agent_files(agent: AgentHandle) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in agent.directory.iterdir() if p.is_file()}


def test_every_reader_names_the_same_probe() -> None:
    assert hookinput.PROBE_ENV.decode() == agentstate.PROBE_ENV == statefiles.PROBE_ENV == "ELYDORA_VERIFY_PROBE"
    assert hookinput.PROBE_PREFIX == statefiles.PROBE_PREFIX
    assert hookinput.PROBE_LIFETIME == statefiles.PROBE_LIFETIME
    assert hookinput.PROBE_NAME_LENGTH == 2 * statefiles.PROBE_NAME_BYTES == 32  # 128 random bits


def test_a_probe_directory_is_private_fresh_and_named_at_random(tmp_path: Path) -> None:
    agent = make_agent(tmp_path, "codex")
    first, path = probe(agent, "frozen")
    second, _ = probe(agent, "frozen")
    assert first != second and len(first) == 32 and path.parent == agent.directory
    assert path.stat().st_mode & 0o777 == 0o700 and (path / "status.json").stat().st_mode & 0o777 == 0o600


@pytest.mark.parametrize(("real", "wanted", "denied"), [("active", "frozen", True), ("frozen", "active", False)])
def test_the_guard_decides_from_the_probe_status(tmp_path: Path, real: str, wanted: str, denied: bool) -> None:
    agent = make_agent(tmp_path, "cursor")
    agent.set_local_status(real)
    before = agent_files(agent)
    name, _ = probe(agent, wanted)
    result = run(agent, "guard.py", EVENT, {statefiles.PROBE_ENV: name})
    facts = catalog.provider("cursor")
    if denied:
        assert (result.returncode, result.stdout) == (facts.guard.deny_exit_code, facts.deny_stdout("frozen"))
    else:
        assert (result.returncode, result.stdout) == (0, facts.guard.success_stdout)
    assert agent_files(agent) == before


def test_a_server_agent_probe_needs_no_cache_and_starts_no_refresh(tmp_path: Path, server: FakeElydora) -> None:
    agent = make_agent(tmp_path, "claudecode", server=server)
    name, _ = probe(agent, "frozen")
    result = run(agent, "guard.py", EVENT, {statefiles.PROBE_ENV: name})
    assert result.returncode == 2 and b'Agent "claudecode" is frozen' in result.stderr
    assert not agent.path("refresh.lock").exists() and not agent.path(identity.STATUS_CACHE).exists()


def test_guard_errors_are_logged_in_the_probe_directory(tmp_path: Path) -> None:
    agent = make_agent(tmp_path, "gemini")
    name, path = probe(agent, "active")
    result = run(agent, "guard.py", b"not json", {statefiles.PROBE_ENV: name})
    assert result.returncode == 0 and b"stdin is not a JSON object" in result.stderr  # Gemini fails open
    assert "stdin is not a JSON object" in (path / "error.log").read_text()
    assert not agent.path("error.log").exists()


def test_the_audit_hook_spools_into_the_probe_directory(tmp_path: Path) -> None:
    agent = make_agent(tmp_path, "letta")
    name, path = probe(agent, "active")
    result = run(agent, "hook.py", b'{"event_type": "PostToolUse"}\n', {statefiles.PROBE_ENV: name})
    assert (result.returncode, result.stderr) == (0, b"")
    line = (path / "spool.jsonl").read_bytes()
    assert line.startswith(b"\n") and line.endswith(b' {"event_type": "PostToolUse"}\n')
    names = {p.name for p in agent.directory.iterdir()}
    assert not names & {"spool.jsonl", "flush.lock", "ledger.jsonl", "error.log"}


def test_elydora_hook_honours_the_probe(tmp_path: Path) -> None:
    agent = make_agent(tmp_path, "kimi")
    name, path = probe(agent, "frozen")
    result = elydora_hook(tmp_path, "kimi", EVENT, {statefiles.PROBE_ENV: name})
    assert result.returncode == 2 and b'Agent "kimi" is frozen' in result.stderr
    assert EVENT in (path / "spool.jsonl").read_bytes()
    assert not {"spool.jsonl", "flush.lock", "error.log"} & {p.name for p in agent.directory.iterdir()}


# -- what an agent can put into its hooks' environment (Claude Code: the settings `env` block) ------------------


def _planted(agent: AgentHandle, how: str, tmp_path: Path) -> dict[str, str]:
    """The environment an agent's settings could give its hooks, each naming an "active" scratch status."""
    outside = tmp_path / f"outside-{how}"
    outside.mkdir(mode=0o700)
    (outside / "status.json").write_bytes(identity.status_bytes("active", None))
    (outside / "status.json").chmod(0o600)
    if how == "old-variable":  # the variable every runtime honoured before issue 27
        return {"ELYDORA_VERIFY_STATE": str(outside)}
    if how == "path":
        return {statefiles.PROBE_ENV: str(outside)}
    if how == "no-such-probe":
        return {statefiles.PROBE_ENV: "0123456789abcdef0123456789abcdef"}
    name = "fedcba9876543210fedcba9876543210"
    target = agent.path(statefiles.PROBE_PREFIX + name)
    if how == "link":  # a link inside the agent directory to a directory the agent made elsewhere
        target.symlink_to(outside)
    else:
        target.mkdir(mode=0o700)
        (target / "status.json").write_bytes(identity.status_bytes("active", None))
        (target / "status.json").chmod(0o600)
        if how == "stale":  # made once, long ago, and planted for good
            old = time.time() - 10 * statefiles.PROBE_LIFETIME
            os.utime(target, (old, old))
        elif how == "open-mode":
            target.chmod(0o755)
    return {statefiles.PROBE_ENV: name}


PLANTED = ["old-variable", "path", "no-such-probe", "link", "stale", "open-mode"]


def _recorded(agent: AgentHandle, marker: bytes) -> bool:
    ledger = agent.path(identity.LEDGER)
    return ledger.exists() and marker in ledger.read_bytes()


@pytest.mark.parametrize("how", PLANTED)
def test_a_planted_variable_never_lifts_a_freeze_of_the_guard(tmp_path: Path, how: str) -> None:
    """Before issue 27, ELYDORA_VERIFY_STATE pointing at an "active" status.json let a frozen agent run tools."""
    agent = make_agent(tmp_path, "claudecode")
    agent.set_local_status("frozen")
    result = run(agent, "guard.py", EVENT, _planted(agent, how, tmp_path))
    assert result.returncode == 2 and b'Agent "claudecode" is frozen' in result.stderr
    if how != "old-variable":  # the old variable is not read at all any more
        assert "ignored: ELYDORA_VERIFY_PROBE" in agent.path("error.log").read_text()


@pytest.mark.parametrize("how", PLANTED)
def test_a_planted_variable_never_diverts_a_record_of_the_audit_hook(tmp_path: Path, how: str) -> None:
    """Before issue 27, the event went to the planted directory's spool and never reached the ledger."""
    agent = make_agent(tmp_path, "claudecode")
    event = EVENT.replace(b"PreToolUse", b"PostToolUse").replace(b'"Bash"', b'"planted-%s"' % how.encode())
    result = run(agent, "hook.py", event, _planted(agent, how, tmp_path))
    assert result.returncode == 0
    assert wait_until(lambda: _recorded(agent, b"planted-" + how.encode()) and no_flusher_running(agent))
    assert not (tmp_path / f"outside-{how}" / "spool.jsonl").exists()


@pytest.mark.parametrize("how", PLANTED)
def test_a_planted_variable_never_lifts_a_freeze_of_elydora_hook(tmp_path: Path, how: str) -> None:
    """Before issue 27, `elydora hook` (a supervisor) took the planted status and spooled there."""
    agent = make_agent(tmp_path, "kimi")
    agent.set_local_status("frozen")
    result = elydora_hook(tmp_path, "kimi", EVENT, _planted(agent, how, tmp_path))
    assert result.returncode == 2 and b'Agent "kimi" is frozen' in result.stderr
    paths = (agent.path(identity.SPOOL), agent.path(identity.LEDGER))  # spooled, or already signed
    assert b"/t.jsonl" in b"".join(p.read_bytes() for p in paths if p.exists())
    if how != "old-variable":
        assert "ignored: ELYDORA_VERIFY_PROBE" in agent.path("error.log").read_text()


def test_a_probe_of_another_agent_is_not_honoured(tmp_path: Path) -> None:
    """A probe counts only inside the directory of the runtime that reads it."""
    agent = make_agent(tmp_path, "codex")
    agent.set_local_status("frozen")
    other = make_agent(tmp_path, "gemini")
    name, _ = probe(other, "active")
    assert run(agent, "guard.py", EVENT, {statefiles.PROBE_ENV: name}).returncode == 2


def test_verify_removes_its_probes_and_stale_ones(tmp_path: Path) -> None:
    agent = make_agent(tmp_path, "codex")
    _, left = probe(agent, "active")
    old = time.time() - 2 * statefiles.PROBE_LIFETIME
    os.utime(left, (old, old))
    _, fresh = probe(agent, "active")
    verify_module.remove_stale_probes(str(agent.directory))
    assert not left.exists() and fresh.exists()
