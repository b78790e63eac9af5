"""End to end, the two Kimis: the archived kimi-cli (``~/.kimi``) through the same four phases as every agent, and
``kimi migrate``, which carries our entries from kimi-cli's config into Kimi Code's.

``test_agents.py`` drives Kimi Code (the ``kimi`` row); here the ``session`` fixture is kimi-cli 1.51.0 (lock entry
``kimi-cli``), and the four phase tests are the same functions.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import Any

import pytest
from elydora_testkit.e2e_agents.kimi import LEGACY, ROW, configure_legacy
from elydora_testkit.e2e_harness import record_version
from elydora_testkit.e2e_session import (
    AgentSession,
    assert_blocked_call_recorded,
    assert_reached_only_the_fake_model,
    installed_ok,
    ledger_payloads,
    open_session,
)
from test_agents import test_allow, test_block, test_reinstall, test_uninstall

pytestmark = pytest.mark.e2e

__all__ = ["test_allow", "test_block", "test_reinstall", "test_uninstall"]  # kimi-cli's four phases, collected here

LEGACY_KEY = "kimi-cli"
"""kimi-cli's entry in agents.lock.json (its catalog id is ``kimi``, which names Kimi Code there)."""


@pytest.fixture(scope="module", params=[LEGACY_KEY])
def session(request: pytest.FixtureRequest, agent_cache: dict[str, Any],
            tmp_path_factory: pytest.TempPathFactory) -> Iterator[AgentSession]:
    info = agent_cache.get(LEGACY_KEY) or {}
    if not info.get("available"):
        pytest.skip(f"{LEGACY_KEY}: {info.get('reason', 'not in the e2e cache manifest')}")
    record_version(LEGACY_KEY, info["version"])
    yield from open_session(LEGACY_KEY, agent_cache, tmp_path_factory.mktemp("e2e-kimi-cli"), agent=LEGACY)


MIGRATED = dataclasses.replace(ROW, name="Kimi Code after kimi migrate", configure=configure_legacy)
"""Kimi Code in a home where only kimi-cli was set up (and our install went into ``~/.kimi/config.toml``)."""


def _our_commands(text: str) -> list[str]:
    """The ``command`` lines that run our runtime (each of our hook tables has one)."""
    lines = (line.strip() for line in text.splitlines())
    return sorted(line for line in lines if line.startswith("command") and ".elydora" in line)


def test_kimi_migrate_carries_our_hooks_and_uninstall_removes_them(agent_cache: dict[str, Any],
                                                                  tmp_path_factory: pytest.TempPathFactory) -> None:
    """docs/providers.md (Kimi Code, ``kimi migrate``): ``elydora install kimi`` in a kimi-cli home writes
    ``~/.kimi/config.toml`` only; ``kimi migrate --run`` copies those tables into a new ``~/.kimi-code/config.toml``
    that Kimi wrote, not we; status is healthy, Kimi Code runs our guard and audit from it, and ``uninstall``
    takes our tables out of both files by their shape, leaving Kimi's file and its providers."""
    for s in open_session("kimi", agent_cache, tmp_path_factory.mktemp("e2e-kimi-migrate"), agent=MIGRATED):
        sb = s.sandbox
        legacy, stable = sb.home / ".kimi" / "config.toml", sb.home / ".kimi-code" / "config.toml"
        assert not stable.parent.exists() and len(_our_commands(legacy.read_text())) == 3, s.install.stdout

        migrate = s.run_raw("migrate", [s.info["bin"], "migrate", "--run", "--config-only"], tool="-")
        assert migrate.rc == 0 and not migrate.timed_out, migrate.describe()
        assert _our_commands(stable.read_text()) == _our_commands(legacy.read_text()), stable.read_text()
        status = sb.elydora("status", "kimi", "--root", str(sb.home), check=False)
        assert installed_ok("kimi", status), status.stdout + status.stderr

        run = s.run("allow")
        assert_reached_only_the_fake_model(run)
        assert run.proof_exists and sb.runtime_ran("guard") and sb.runtime_ran("audit"), run.describe()
        assert [p["hook_event_name"] for p in ledger_payloads(s) if "tool_call_id" in p] == ["PostToolUse"]

        sb.elydora("agent", "freeze", "--provider", "kimi", "--root", str(sb.home))
        before = len(ledger_payloads(s))
        run = s.run("block")
        assert not run.proof_exists and sb.runtime_ran("guard"), run.describe()
        assert_blocked_call_recorded(s, run, before)

        sb.elydora("uninstall", "kimi", "--root", str(sb.home))
        for path in (legacy, stable):
            assert ".elydora" not in path.read_text(), f"{path} still names our runtime:\n{path.read_text()}"
        assert "[providers.fake]" in stable.read_text(), "uninstall took Kimi's settings"
        run = s.run("uninstall")
        assert run.proof_exists and not sb.runtime_ran("guard") and not sb.runtime_ran("audit"), run.describe()
