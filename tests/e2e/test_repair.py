"""End to end: the repair timer restores an entry removed from a real agent's settings (issue 32).

A user-scope install of Claude Code 2.1.332 in a test home, frozen. Its ``PreToolUse`` entry is removed (what a
user, or an agent rewriting its settings, does): the real Claude Code then runs the tool. ``elydora repair
--timer on`` writes the systemd user units (not activated under ``--root``); the command of the service's
``ExecStart=`` is run exactly as systemd would split it, and the same Claude Code is blocked again by our guard.
"""

from __future__ import annotations

import json
import subprocess
from typing import Any

import pytest
from elydora_testkit.e2e_session import open_session
from elydora_testkit.systemd_units import exec_start

pytestmark = pytest.mark.e2e


def test_the_timers_repair_brings_the_guard_back_for_the_real_agent(
    agent_cache: dict[str, Any], tmp_path_factory: pytest.TempPathFactory
) -> None:
    for s in open_session("claudecode", agent_cache, tmp_path_factory.mktemp("e2e-repair-claude")):
        sb = s.sandbox
        root = ["--root", str(sb.home)]
        sb.elydora("agent", "freeze", "--provider", "claudecode", *root)
        sb.elydora("repair", "--timer", "on", *root)
        settings = sb.home / ".claude" / "settings.json"
        value = json.loads(settings.read_text())
        del value["hooks"]["PreToolUse"]
        settings.write_text(json.dumps(value, indent=2) + "\n")

        run = s.run("entry-removed")
        assert run.proof_exists and not sb.runtime_ran("guard"), run.describe()

        unit = (sb.home / ".config" / "systemd" / "user" / "elydora-repair.service").read_text()
        env = {"PATH": "/usr/bin:/bin", "HOME": str(sb.home)}
        done = subprocess.run(exec_start(unit), capture_output=True, text=True, env=env, timeout=120, cwd=sb.home)
        assert done.returncode == 0, done.stderr
        assert "PreToolUse" in json.loads(settings.read_text())["hooks"]

        run = s.run("repaired")
        assert not run.proof_exists and sb.runtime_ran("guard"), run.describe()
        status = sb.elydora("status", "claudecode", *root, check=False)
        assert "repair: timer on (systemd" in status.stdout and "restored 1 file(s) of claudecode" in status.stdout
