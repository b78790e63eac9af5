"""End to end, Codex only: its hooks run once trusted, and ``install --trust`` obtains that trust from Codex."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from elydora_testkit.e2e_harness import COMMAND, Run, contains
from elydora_testkit.e2e_session import (
    AgentSession,
    assert_reached_only_the_fake_model,
    guard_line,
    ledger_payloads,
    open_session,
)

pytestmark = pytest.mark.e2e


# -- Codex: hooks run only once trusted --------------------------------------------------------------------
@pytest.fixture(scope="module")
def codex_untrusted(agent_cache: dict[str, Any], tmp_path_factory: pytest.TempPathFactory) -> Iterator[
    AgentSession
]:
    yield from open_session("codex", agent_cache, tmp_path_factory.mktemp("e2e-codex-untrusted"))


def test_codex_skips_untrusted_hooks(codex_untrusted: AgentSession) -> None:
    """What a user gets right after ``elydora install codex``: Codex skips hooks nobody trusted yet."""
    s = codex_untrusted
    s.sandbox.elydora("agent", "freeze", "--provider", "codex", "--root", str(s.sandbox.home))
    argv = [a for a in s.agent.argv(s.info["bin"]) if a != "--dangerously-bypass-hook-trust"]
    s.sandbox.reset_work()
    s.sandbox.clear_bytecode()
    run = s.run_raw("untrusted", argv, tool=s.agent.shell_tool)
    assert_reached_only_the_fake_model(run)
    assert run.proof_exists and not s.sandbox.runtime_ran("guard"), (
        f"Codex ran untrusted hooks (the trust gate changed: revisit the status check)\n{run.describe()}"
    )


def test_codex_status_reports_untrusted_hooks(codex_untrusted: AgentSession) -> None:
    status = codex_untrusted.status
    assert "trust" in (status.stdout + status.stderr).lower() and "healthy" not in status.stdout.split(), (
        status.stdout
    )


# -- Codex: trusted by `install --trust`, no bypass flag --------------------------------------------------------
def _codex_path(info: dict[str, Any]) -> list[str]:
    """The folder of the cached ``codex`` (and its runtime): on ``PATH``, ``elydora`` can ask Codex itself."""
    return [str(Path(info["bin"]).parent), *info["path_prefix"]]


def _codex_status(s: AgentSession) -> dict[str, Any]:
    out = s.sandbox.elydora("status", "codex", "--root", str(s.sandbox.home), "--json", check=False,
                            path_prefix=_codex_path(s.info))
    row: dict[str, Any] = json.loads(out.stdout)["providers"][0]
    return row


def _codex_run_untrusting(s: AgentSession, phase: str) -> Run:
    """``codex exec`` as a user runs it: without ``--dangerously-bypass-hook-trust``."""
    argv = [a for a in s.agent.argv(s.info["bin"]) if a != "--dangerously-bypass-hook-trust"]
    s.sandbox.reset_work()
    s.sandbox.clear_bytecode()
    run = s.run_raw(phase, argv, tool=s.agent.shell_tool)
    assert not run.timed_out, run.describe()
    assert_reached_only_the_fake_model(run)
    return run


@pytest.fixture(scope="module")
def codex_trusted(agent_cache: dict[str, Any], tmp_path_factory: pytest.TempPathFactory) -> Iterator[AgentSession]:
    for s in open_session("codex", agent_cache, tmp_path_factory.mktemp("e2e-codex-trusted")):
        out = s.sandbox.elydora("install", "codex", "--root", str(s.sandbox.home), "--trust",
                                path_prefix=_codex_path(s.info))
        assert "confirmed by codex app-server" in out.stdout, out.stdout
        yield s


def test_codex_runs_our_hooks_after_install_trust(codex_trusted: AgentSession) -> None:
    """After ``install --trust`` Codex runs our hooks with no bypass flag: allow with one audit, then block."""
    s, sb = codex_trusted, codex_trusted.sandbox
    row = _codex_status(s)
    assert (row["state"], row["check"]) == ("healthy", "agent"), row
    sb.elydora("agent", "unfreeze", "--provider", "codex", "--root", str(sb.home))
    before = len(ledger_payloads(s))
    run = _codex_run_untrusting(s, "trusted-allow")
    assert run.proof_exists and sb.runtime_ran("guard") and sb.runtime_ran("audit"), run.describe()
    posts = [p for p in ledger_payloads(s)[before:] if s.agent.post_event_ok(p)]
    assert len(posts) == 1 and s.agent.payload_command(posts[0]) == COMMAND, posts
    assert "ledger OK" in sb.elydora("audit", "verify", "--provider", "codex", "--root", str(sb.home)).stdout
    sb.elydora("agent", "freeze", "--provider", "codex", "--root", str(sb.home))
    run = _codex_run_untrusting(s, "trusted-block")
    assert not run.proof_exists and sb.runtime_ran("guard") and not sb.runtime_ran("audit"), run.describe()
    assert any(contains(r["body"], guard_line("codex")) for r in run.after_tool_call()), run.describe()


def test_codex_status_unhealthy_after_a_trust_breaking_reinstall(codex_trusted: AgentSession) -> None:
    """A reinstall with another timeout where Codex cannot be asked leaves the old trust stale: Codex skips the
    hooks (``modified``) and ``status`` says unhealthy with the fix, until ``install --trust`` trusts them again."""
    s, sb = codex_trusted, codex_trusted.sandbox
    sb.elydora("agent", "freeze", "--provider", "codex", "--root", str(sb.home))
    sb.elydora("install", "codex", "--root", str(sb.home), "--hook-timeout-seconds", "12")  # no codex on PATH
    row = _codex_status(s)
    assert (row["state"], row["check"]) == ("unhealthy", "agent"), row
    fix = f"elydora install codex --trust --root {sb.home}"
    assert any("changed since it was trusted" in p and fix in p for p in row["problems"]), row["problems"]
    run = _codex_run_untrusting(s, "modified")
    assert run.proof_exists and not sb.runtime_ran("guard"), f"Codex ran hooks it lists as modified\n{run.describe()}"
    sb.elydora("install", "codex", "--root", str(sb.home), "--trust", path_prefix=_codex_path(s.info))
    assert _codex_status(s)["state"] == "frozen"
    run = _codex_run_untrusting(s, "retrusted")
    assert not run.proof_exists and sb.runtime_ran("guard"), run.describe()
