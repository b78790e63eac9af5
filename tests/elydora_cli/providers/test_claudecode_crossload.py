"""Claude Code's entries run by other agents (Grok Build, Copilot CLI): each form those agents use is
simulated (with the payloads and environments they were seen to give Claude entries) on the generated
runtime, which must act for Claude Code alone and do nothing for anyone else."""

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
@pytest.mark.parametrize(
    ("host", "data", "env"),
    [
        ("grok", b"", GROK_ENV),  # Grok: camelCase envelope, GROK_HOOK_EVENT set for every hook
        ("grok-claude-shaped", b"", GROK_ENV),  # even a Claude-shaped payload: the variable decides
        ("copilot", COPILOT_PAYLOAD, {}),  # Copilot: camelCase payload with true/null inside
    ],
)
def test_another_agent_running_the_command_as_a_shell_string_changes_nothing(
    tmp_path: Path, shell: str, host: str, data: bytes, env: dict[str, str]
) -> None:
    if shutil.which(shell) is None:
        pytest.skip(f"{shell} is not installed")
    _, argvs, scratch = installed_frozen(tmp_path)
    if host == "grok":
        data = payload("grok", "PreToolUse")
    elif host == "grok-claude-shaped":
        data = payload("claudecode", "PreToolUse")
    for role in ("guard", "audit"):
        code, out, err = run_entry([shell, "-c", argvs[role][0]], data, scratch, env)  # args dropped / shell string
        assert (code, out, err) == (0, b"", b""), role
    assert _spooled(scratch) == 0


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


def test_copilot_is_told_apart_by_its_hook_environment_not_by_its_payload_alone(tmp_path: Path) -> None:
    """Copilot 1.0.102 sends Claude entries a Claude-shaped snake_case payload (``hook_event_name``,
    ``session_id``, ``tool_name`` "Bash": fixtures/payloads/captured/copilot-claude-*.json) with no
    ``transcript_path``, and sets ``COPILOT_PROJECT_DIR`` for its hooks only (its tool shells get ``COPILOT_CLI``
    but not that). Were a later Copilot to add ``transcript_path``, the variable still decides."""
    _, argvs, scratch = installed_frozen(tmp_path)
    env = {"COPILOT_PROJECT_DIR": "/tmp", "COPILOT_CLI": "1", "CLAUDE_PROJECT_DIR": "/tmp"}
    for name, role in (("copilot-claude-PreToolUse.json", "guard"), ("copilot-claude-PostToolUse.json", "audit")):
        event = json.loads(_captured(name))
        for data in (_captured(name), json.dumps({**event, "transcript_path": "/tmp/t.jsonl"}).encode()):
            assert run_entry(["/bin/sh", "-c", argvs[role][0]], data, scratch, env) == (0, b"", b""), (name, data)
    assert _spooled(scratch) == 0


def test_claude_code_started_from_a_copilot_shell_is_still_guarded(tmp_path: Path) -> None:
    """A Claude Code run from Copilot's shell tool inherits ``COPILOT_CLI`` (not ``COPILOT_PROJECT_DIR``):
    its own hooks must still guard it."""
    _, argvs, scratch = installed_frozen(tmp_path)
    inherited = {**CLAUDE_ENV, "COPILOT_CLI": "1", "COPILOT_AGENT_SESSION_ID": "s", "GROK_AGENT": "1"}
    code, _, err = run_entry(argvs["guard"], payload("claudecode", "PreToolUse"), scratch, inherited)
    assert code == 2 and b"frozen" in err
