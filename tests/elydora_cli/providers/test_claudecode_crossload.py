"""Claude Code's entries run by other agents (Grok Build, Copilot CLI): each form those agents use is
simulated (with the payloads and environments they were seen to give Claude entries) on the generated
runtime, which must act for Claude Code alone and do nothing for anyone else, while no environment variable can
make Claude Code's own event look like another agent's."""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import pytest
from elydora_testkit.crossload import CLAUDE_ENV, COPILOT_PAYLOAD, GROK_ENV, installed_frozen, run_entry
from elydora_testkit.provider_cases import payload
from locations import CAPTURED_PAYLOADS

from elydora_cli import statefiles
from elydora_cli.plug.cmdforms import posix_command


def _spooled(scratch: Path) -> int:
    spool = scratch / "spool.jsonl"
    return len([line for line in spool.read_bytes().splitlines() if line]) if spool.exists() else 0


def test_claude_code_itself_is_guarded_and_audited(tmp_path: Path) -> None:
    _, argvs, scratch = installed_frozen(tmp_path)
    assert [len(argv) for argv in argvs.values()] == [1, 1]  # the launcher alone: nothing an agent can drop
    code, _, err = run_entry(argvs["guard"], payload("claudecode", "PreToolUse"), scratch, CLAUDE_ENV)
    assert code == 2 and b"frozen" in err
    code, _, _ = run_entry(argvs["audit"], payload("claudecode", "PostToolUse"), scratch, CLAUDE_ENV)
    assert code == 0 and _spooled(scratch) == 1


@pytest.mark.parametrize("shell", ["/bin/sh", "bash"])
@pytest.mark.parametrize(("host", "env"), [("grok", GROK_ENV), ("copilot", {"COPILOT_PROJECT_DIR": "/tmp"})])
def test_another_agent_running_the_command_as_a_shell_string_changes_nothing(
    tmp_path: Path, shell: str, host: str, env: dict[str, str]
) -> None:
    if shutil.which(shell) is None:
        pytest.skip(f"{shell} is not installed")
    ctx, argvs, scratch = installed_frozen(tmp_path)
    data = payload("grok", "PreToolUse") if host == "grok" else _captured("copilot-claude-PreToolUse.json")
    for role in ("guard", "audit"):
        code, out, err = run_entry([shell, "-c", argvs[role][0]], data, scratch, env)  # args dropped / shell string
        assert (code, out, err) == (0, b"", b""), role
    assert _spooled(scratch) == 0
    log = (ctx.agent_dir("claudecode") / statefiles.HOST_LOG).read_text().splitlines()
    assert [line.split()[1:3] for line in log] == [["guard", "foreign"], ["audit", "foreign"]]  # counted


@pytest.mark.parametrize(
    "env", [GROK_ENV, {"COPILOT_PROJECT_DIR": "/tmp"}, {"GROK_HOOK_EVENT": "x", "COPILOT_PROJECT_DIR": "/tmp"}]
)
def test_claude_codes_own_event_is_guarded_whatever_the_environment_says(tmp_path: Path, env: dict[str, str]) -> None:
    """Issue 27: Claude Code's settings `env` block puts any variable into its hooks' environment; with
    COPILOT_PROJECT_DIR there, its own events were skipped silently (a frozen agent ran every tool). Claude Code
    always sends hook_event_name and transcript_path: such a payload is Claude Code's, whatever the variables."""
    _, argvs, scratch = installed_frozen(tmp_path)
    code, _, err = run_entry(argvs["guard"], payload("claudecode", "PreToolUse"), scratch, {**CLAUDE_ENV, **env})
    assert code == 2 and b'Agent "claudecode" is frozen' in err
    code, _, _ = run_entry(argvs["audit"], payload("claudecode", "PostToolUse"), scratch, {**CLAUDE_ENV, **env})
    assert code == 0 and _spooled(scratch) == 1


def test_an_event_without_the_host_marks_or_a_known_host_is_decided_and_counted(tmp_path: Path) -> None:
    """Issue 27: a payload without hook_event_name and transcript_path, with no other agent's variable set, was
    skipped without a log line. It is now decided and recorded as Claude Code's (a freeze holds, nothing is
    lost) and noted in host-check.log and error.log."""
    ctx, argvs, scratch = installed_frozen(tmp_path)
    code, _, err = run_entry(argvs["guard"], COPILOT_PAYLOAD, scratch, {})
    assert code == 2 and b"frozen" in err
    assert run_entry(argvs["audit"], COPILOT_PAYLOAD, scratch, {})[0] == 0 and _spooled(scratch) == 1
    agent_dir = ctx.agent_dir("claudecode")
    log = (agent_dir / statefiles.HOST_LOG).read_text().splitlines()
    assert [line.split()[1:3] for line in log] == [["guard", "unrecognised"], ["audit", "unrecognised"]]
    assert "without the payload's host marks" in (agent_dir / "error.log").read_text()


def test_an_old_shell_string_entry_run_by_another_agent_changes_nothing(tmp_path: Path) -> None:
    """A hand-written or older installer's Claude entry as one shell string: Grok runs all of it."""
    ctx, _, scratch = installed_frozen(tmp_path)
    agent_dir = ctx.agent_dir("claudecode")
    for script in ("guard.py", "hook.py"):
        command = posix_command([sys.executable, "-I", "-S", str(agent_dir / script)])
        code, out, err = run_entry(["/bin/sh", "-c", command], payload("grok", "PreToolUse"), scratch, GROK_ENV)
        assert (code, out, err) == (0, b"", b"")
        code, _, _ = run_entry(["/bin/sh", "-c", command], payload("claudecode", "PreToolUse"), scratch, CLAUDE_ENV)
        assert code == (2 if script == "guard.py" else 0)
    assert _spooled(scratch) == 1  # only Claude Code's own event


def test_the_launcher_runs_without_its_interpreter_flags_in_the_environment(tmp_path: Path) -> None:
    """The ``#!<python> -IS`` line gives isolated mode even when the agent passes no flag at all."""
    ctx, argvs, _ = installed_frozen(tmp_path)
    first = Path(argvs["guard"][0]).read_bytes().split(b"\n", 1)[0]
    assert first == f"#!{sys.executable} -IS".encode() and os.access(argvs["guard"][0], os.X_OK)
    assert (
        json.loads((ctx.home / ".claude" / "settings.json").read_text())["hooks"]["PreToolUse"][0]["hooks"][0]["args"]
        == []
    )


def _captured(name: str) -> bytes:
    return (CAPTURED_PAYLOADS / name).read_bytes()


def test_copilot_is_told_apart_by_its_payload_and_its_hook_environment(tmp_path: Path) -> None:
    """Copilot 1.0.102 sends Claude entries a Claude-shaped snake_case payload (``hook_event_name``,
    ``session_id``, ``tool_name`` "Bash": fixtures/payloads/captured/copilot-claude-*.json) with no
    ``transcript_path``, and sets ``COPILOT_PROJECT_DIR`` for its hooks only (its tool shells get ``COPILOT_CLI``
    but not that): skipped. Were a later Copilot to add ``transcript_path``, its payload would be Claude Code's
    and the call guarded and recorded as Claude Code's: no variable can make such a payload foreign."""
    _, argvs, scratch = installed_frozen(tmp_path)
    env = {"COPILOT_PROJECT_DIR": "/tmp", "COPILOT_CLI": "1", "CLAUDE_PROJECT_DIR": "/tmp"}
    for name, role in (("copilot-claude-PreToolUse.json", "guard"), ("copilot-claude-PostToolUse.json", "audit")):
        assert run_entry(["/bin/sh", "-c", argvs[role][0]], _captured(name), scratch, env) == (0, b"", b""), name
    assert _spooled(scratch) == 0
    marked = json.dumps({**json.loads(_captured("copilot-claude-PreToolUse.json")), "transcript_path": "/t"})
    assert run_entry(["/bin/sh", "-c", argvs["guard"][0]], marked.encode(), scratch, env)[0] == 2


def test_claude_code_started_from_a_copilot_shell_is_still_guarded(tmp_path: Path) -> None:
    """A Claude Code run from Copilot's shell tool inherits ``COPILOT_CLI`` (not ``COPILOT_PROJECT_DIR``):
    its own hooks must still guard it."""
    _, argvs, scratch = installed_frozen(tmp_path)
    inherited = {**CLAUDE_ENV, "COPILOT_CLI": "1", "COPILOT_AGENT_SESSION_ID": "s", "GROK_AGENT": "1"}
    code, _, err = run_entry(argvs["guard"], payload("claudecode", "PreToolUse"), scratch, inherited)
    assert code == 2 and b"frozen" in err
