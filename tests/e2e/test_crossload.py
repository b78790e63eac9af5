"""End to end: agents that also run Claude Code's hook entries (issue 15, cross-loading).

Grok Build 0.2.111 runs the hooks of ``~/.claude/settings.json`` and Copilot CLI 1.0.102 those of a project's
``.claude/settings.json``, both dropping ``args``. With claudecode installed beside them (its runtime entries,
or ``--hook-command`` ones), each of their tool calls must be guarded and recorded once, by their own entries,
under their own identity: claudecode's entries do nothing, and a frozen claudecode blocks nobody else.

"No stray interpreter start" is shown by installing claudecode with ``--python`` set to a wrapper named
``python3`` that logs its arguments and execs the real interpreter: every start must be our launcher run
through its ``#!<python> -IS`` line, never the bare interpreter reading the payload as a program (what these
agents did with the earlier interpreter exec form).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from elydora_testkit.e2e_harness import Sandbox
from elydora_testkit.e2e_session import AgentSession, ledger_payloads, open_session

pytestmark = pytest.mark.e2e

STARTS = "claudecode-python-starts.log"


def _wrapper(sb: Sandbox) -> Path:
    """An interpreter for claudecode's hooks that logs each start (its arguments) before running Python."""
    exe = sb.root / "claude-python" / "python3"
    exe.parent.mkdir(exist_ok=True)
    exe.write_text(f"#!/bin/sh\nprintf '%s\\n' \"$*\" >> '{sb.root / STARTS}'\nexec '{sys.executable}' \"$@\"\n")
    exe.chmod(0o755)
    return exe


def _starts(sb: Sandbox) -> list[str]:
    path = sb.root / STARTS
    return path.read_text().splitlines() if path.exists() else []


def _supervisor(sb: Sandbox) -> str:
    """``elydora hook`` as a supervisor: this interpreter's ``elydora`` (as ``sb.elydora`` runs it)."""
    exe = sb.root / "supervisor" / "elydora"
    exe.parent.mkdir(exist_ok=True)
    exe.write_text(f"#!/bin/sh\nexec '{sys.executable}' -m elydora_cli \"$@\"\n")
    exe.chmod(0o755)
    return f"{exe} hook --state-root {sb.home}"


def _install_claudecode(supervised: bool) -> Callable[[Sandbox], None]:
    def install(sb: Sandbox) -> None:
        extra = ["--hook-command", _supervisor(sb)] if supervised else []
        sb.elydora("install", "claudecode", "--root", str(sb.home), "--python", str(_wrapper(sb)), *extra)
    return install


def _tool_records(sb: Sandbox) -> list[dict[str, Any]]:
    """The ledger's tool-call records (``elydora`` itself records status changes too)."""
    return [e["record"]["payload"] for e in sb.ledger() if e["record"]["payload"].get("tool_name") != "elydora"]


def _claude_scripts(sb: Sandbox, before: int) -> list[str]:
    """The claudecode scripts started since ``before``: each start must be ``-IS <state>/claudecode/<script>``
    (our launcher through its ``#!`` line); anything else is a stray interpreter."""
    prefix = f"-IS {sb.home / '.elydora' / 'claudecode'}/"
    starts = _starts(sb)[before:]
    assert all(line.startswith(prefix) and "/" not in line[len(prefix):] for line in starts), starts
    return [line[len(prefix):] for line in starts]


def _call_recorded_once(s: AgentSession, claude: Sandbox, ours_before: int, run: Any) -> None:
    assert run.proof_exists, f"the tool did not run\n{run.describe()}"
    posts = [p for p in ledger_payloads(s)[ours_before:] if s.agent.post_event_ok(p)]
    assert len(posts) == 1, f"{s.agent.id}'s ledger: {json.dumps(posts)[:2000]}"
    assert _tool_records(claude) == [] and not claude.spool_lines(), "claudecode recorded the other agent's call"


def _claude_entries_do_nothing(s: AgentSession, claude: Sandbox, launcher: str | None, denial: str) -> None:
    """The other agent's call, with claudecode active and then frozen: no ``denial`` reaches the model, the call
    is recorded once by the agent that made it, and claudecode's launchers ran (pre and post tool) and did
    nothing."""
    sb = s.sandbox
    for phase, frozen in (("allow", None), ("claude-frozen", "claudecode")):
        if frozen:
            sb.elydora("agent", "freeze", "--provider", frozen, "--root", str(sb.home))
        before, starts = len(ledger_payloads(s)), len(_starts(sb))
        run = s.run(phase)
        assert not any(denial in json.dumps(r["body"]) for r in run.model_requests), run.describe()
        _call_recorded_once(s, claude, before, run)
        scripts = _claude_scripts(sb, starts)
        assert sorted(set(scripts)) == ([launcher] if launcher else ["guard.py", "hook.py"]), scripts


@pytest.mark.parametrize("supervised", [False, True], ids=["runtime", "hook-command"])
def test_grok_runs_claude_code_entries_that_do_nothing(supervised: bool, agent_cache: dict[str, Any],
                                                        tmp_path_factory: pytest.TempPathFactory) -> None:
    launcher = "supervisor.py" if supervised else None
    for s in open_session("grok", agent_cache, tmp_path_factory.mktemp("e2e-crossload-grok"),
                          _install_claudecode(supervised)):
        sb = s.sandbox
        claude = Sandbox("claudecode", sb.root)
        _claude_entries_do_nothing(s, claude, launcher, denial="Hook denied")
        sb.elydora("agent", "freeze", "--provider", "grok", "--root", str(sb.home))  # grok's own guard still blocks
        run = s.run("grok-frozen")
        assert not run.proof_exists and any(
            'Hook denied: Agent \\"grok\\" is frozen' in json.dumps(r["body"]) for r in run.model_requests
        ), run.describe()


@pytest.mark.parametrize("supervised", [False, True], ids=["runtime", "hook-command"])
def test_copilot_runs_project_claude_code_entries_that_do_nothing(
    supervised: bool, agent_cache: dict[str, Any], monkeypatch: pytest.MonkeyPatch,
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """claudecode at project level (``CLAUDE_CONFIG_DIR=.claude``, taken from the project folder): its entries
    land in ``<project>/.claude/settings.json``, which Copilot runs; Copilot denies on any non-zero exit."""
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", ".claude")  # `elydora` runs from the project folder
    launcher = "supervisor.py" if supervised else None
    for s in open_session("copilot", agent_cache, tmp_path_factory.mktemp("e2e-crossload-copilot"),
                          _install_claudecode(supervised)):
        sb = s.sandbox
        claude = Sandbox("claudecode", sb.root)
        settings = json.loads((sb.work / ".claude" / "settings.json").read_text())
        assert str(claude.agent_dir) in json.dumps(settings["hooks"]) and not (sb.home / ".claude").exists()
        _claude_entries_do_nothing(s, claude, launcher, denial="Denied by")
