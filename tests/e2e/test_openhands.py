"""End to end, OpenHands only: a project's own ``.openhands/hooks.json`` replaces the user file, and ``status``
says that our hooks do not run there."""

from __future__ import annotations

from typing import Any

import pytest
from elydora_testkit.e2e_harness import Sandbox
from elydora_testkit.e2e_session import assert_reached_only_the_fake_model, open_session

pytestmark = pytest.mark.e2e


def test_openhands_project_hooks_file_shadows_ours(agent_cache: dict[str, Any],
                                                   tmp_path_factory: pytest.TempPathFactory) -> None:
    """OpenHands CLI 1.16.0 loads the first of ``<project>/.openhands/hooks.json`` and ``~/.openhands/hooks.json``
    that exists: with a project file (here an empty one) a frozen agent's tool runs and our guard never starts,
    so ``status`` from that project must be unhealthy, naming the file."""
    def project_file(sb: Sandbox) -> None:
        path = sb.work / ".openhands" / "hooks.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text('{"hooks": {}}\n')

    for s in open_session("openhands", agent_cache, tmp_path_factory.mktemp("e2e-openhands-shadow"), project_file):
        sb = s.sandbox
        shadow = sb.work / ".openhands" / "hooks.json"
        assert s.status.returncode == 1 and s.status.stdout.split()[1:2] == ["unhealthy"], s.status.stdout
        assert f"{shadow}: this project has its own hooks.json" in s.status.stdout, s.status.stdout
        sb.elydora("agent", "freeze", "--provider", "openhands", "--root", str(sb.home))
        run = s.run("shadowed")
        assert_reached_only_the_fake_model(run)
        assert run.proof_exists and not sb.runtime_ran("guard"), f"OpenHands ran our user hooks\n{run.describe()}"
