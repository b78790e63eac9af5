"""End to end (issue 27): a project layer that switches our user-scope hooks off, with the real agent.

Claude Code 2.1.332 with ``disableAllHooks: true`` in the project's ``.claude/settings.json`` or
``settings.local.json``, and Gemini CLI 0.61.0 (in a trusted folder) with ``hooksConfig.enabled: false`` or our
name in ``hooksConfig.disabled`` in the project's ``.gemini/settings.json``. For each: ``elydora status``, run
from the project folder, says ``switched off`` and names the file; the real agent, frozen, then runs the tool
with no guard (so status is right); with the file gone, status is healthy and the same run is blocked.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from elydora_testkit.e2e_session import AgentSession, open_session

pytestmark = pytest.mark.e2e

CASES = {
    "claude project settings": ("claudecode", ".claude/settings.json", {"disableAllHooks": True}),
    "claude project local settings": ("claudecode", ".claude/settings.local.json", {"disableAllHooks": True}),
    "gemini hooksConfig.enabled": ("gemini", ".gemini/settings.json", {"hooksConfig": {"enabled": False}}),
    "gemini hooksConfig.disabled": (
        "gemini",
        ".gemini/settings.json",
        {"hooksConfig": {"disabled": ["elydora-guard"]}},
    ),
}


def _status(s: AgentSession) -> tuple[int, str]:
    done = s.sandbox.elydora("status", s.agent.id, "--root", str(s.sandbox.home), check=False)
    return done.returncode, done.stdout + done.stderr


@pytest.mark.parametrize("case", list(CASES))
def test_status_names_the_project_file_the_real_agent_obeys(
    case: str, agent_cache: dict[str, Any], tmp_path_factory: pytest.TempPathFactory
) -> None:
    agent_id, relative, settings = CASES[case]
    for s in open_session(agent_id, agent_cache, tmp_path_factory.mktemp(f"e2e-switch-{agent_id}")):
        sb = s.sandbox
        assert s.status.returncode == 0 and s.status.stdout.split()[1:2] == ["healthy"], s.status.stdout
        sb.elydora("agent", "freeze", "--provider", agent_id, "--root", str(sb.home))
        project_file = sb.work / relative
        project_file.parent.mkdir(parents=True, exist_ok=True)
        project_file.write_text(json.dumps(settings) + "\n")

        code, out = _status(s)
        assert code == 1 and out.split()[1:3] == ["switched", "off"], out
        assert f"{project_file}: " in out and "runs none of our hooks" in out, out

        run = s.run("switched-off")
        assert run.proof_exists and not sb.runtime_ran("guard"), (
            f"{s.agent.name} ran our guard although {project_file} switches it off: status would be wrong\n"
            f"{run.describe()}"
        )

        project_file.unlink()
        code, out = _status(s)
        assert code == 1 and out.split()[1:2] == ["frozen"], out  # enforced again: frozen, not switched off
        run = s.run("switched-on")
        assert not run.proof_exists and sb.runtime_ran("guard"), run.describe()
