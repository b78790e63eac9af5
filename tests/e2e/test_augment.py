"""End to end, Auggie only: without the server's ``enable_hooks`` flag Auggie runs none of our hooks, and all
``status`` can say about that is its note (the flag lives on Augment's server, not in any local file)."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from elydora_testkit.e2e_agents import AGENTS
from elydora_testkit.e2e_agents.augment import session_env
from elydora_testkit.e2e_session import assert_reached_only_the_fake_model, ledger_payloads, open_session

pytestmark = pytest.mark.e2e

WITHOUT_HOOKS = dataclasses.replace(AGENTS["augment"], env=lambda sb, port: session_env(port, hooks=False))


def test_auggie_skips_our_hooks_without_enable_hooks(agent_cache: dict[str, Any],
                                                     tmp_path_factory: pytest.TempPathFactory) -> None:
    """The server answers ``enable_hooks: false`` (Auggie's default): a frozen agent's tool runs, neither hook
    fires, nothing is recorded; ``status`` is healthy as far as files go and its note names the flag."""
    root = tmp_path_factory.mktemp("e2e-augment-no-hooks")
    for s in open_session("augment", agent_cache, root, agent=WITHOUT_HOOKS):
        sb = s.sandbox
        words = s.status.stdout.split()
        assert s.status.returncode == 0 and words[1:2] == ["healthy"], s.status.stdout + s.status.stderr
        assert "`enable_hooks` feature flag" in s.status.stdout and "note" in s.install.stdout, s.status.stdout
        sb.elydora("agent", "freeze", "--provider", "augment", "--root", str(sb.home))
        before = len(ledger_payloads(s))  # the freeze itself is recorded
        run = s.run("no-hooks")

        assert_reached_only_the_fake_model(run)
        flags = [r.get("enable_hooks") for r in run.requests if r.get("endpoint") == "get-models"]
        assert flags and not any(flags), f"the fake API did not answer enable_hooks false\n{run.describe()}"
        assert run.proof_exists, f"the tool did not run\n{run.describe()}"
        assert not sb.runtime_ran("guard") and not sb.runtime_ran("audit"), (
            f"Auggie ran our hooks without its enable_hooks flag (the gate changed: revisit the status note)\n"
            f"{run.describe()}"
        )
        assert not sb.spool_lines() and len(ledger_payloads(s)) == before, "a tool call was recorded"
