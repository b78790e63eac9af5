"""End to end: a home whose path holds a newline and a ``$`` (valid on Linux and macOS) gets hooks the real agents
run. Each form quotes the path its own way (an exec-form argument, a POSIX-quoted command, a JavaScript string,
a Python word list): the tool runs while the agent is active, and a frozen agent's tool is blocked by our guard."""

from __future__ import annotations

from typing import Any

import pytest
from elydora_testkit.e2e_session import assert_reached_only_the_fake_model, open_session

pytestmark = pytest.mark.e2e

ODD_FOLDER = "line\nbreak $HOME"
"""A folder name a shell would split, expand or end a command at, were any form to leave it unquoted."""


@pytest.mark.parametrize("agent_id", ["claudecode", "cline", "hermes", "pi"])
def test_the_guard_runs_from_a_home_whose_path_holds_a_newline(
        agent_id: str, agent_cache: dict[str, Any], tmp_path_factory: pytest.TempPathFactory) -> None:
    root = tmp_path_factory.mktemp(f"e2e-odd-{agent_id}") / ODD_FOLDER
    for s in open_session(agent_id, agent_cache, root):
        sb = s.sandbox
        assert s.install.returncode == 0, s.install.stdout + s.install.stderr
        sb.elydora("agent", "unfreeze", "--provider", agent_id, "--root", str(sb.home))
        allowed = s.run("allow")
        assert_reached_only_the_fake_model(allowed)
        assert allowed.proof_exists and sb.runtime_ran("guard"), allowed.describe()
        sb.elydora("agent", "freeze", "--provider", agent_id, "--root", str(sb.home))
        blocked = s.run("block")
        assert not blocked.proof_exists and sb.runtime_ran("guard"), blocked.describe()
