"""End to end, Auggie only: without the server's ``enable_hooks`` flag Auggie runs none of our hooks, and all
``status`` can say about that is its note (the flag lives on Augment's server, not in any local file); the
quoted-wrapper form of earlier versions never runs, and ``install`` replaces it."""

from __future__ import annotations

import dataclasses
import json
import sys
from typing import Any

import pytest
from elydora_testkit.e2e_agents import AGENTS
from elydora_testkit.e2e_agents.augment import session_env
from elydora_testkit.e2e_harness import contains
from elydora_testkit.e2e_session import (
    AgentSession,
    assert_reached_only_the_fake_model,
    guard_line,
    ledger_payloads,
    open_session,
)

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


def _earlier_quoted_form(s: AgentSession) -> None:
    """What earlier versions installed: wrapper scripts, each named in ``settings.json`` by its quoted path."""
    sb, agent_dir = s.sandbox, s.sandbox.agent_dir
    settings = sb.home / ".augment" / "settings.json"
    value = json.loads(settings.read_text(encoding="utf-8"))
    for event, (wrapper, runtime) in {"PreToolUse": ("augment-guard.sh", "guard.py"),
                                      "PostToolUse": ("augment-hook.sh", "hook.py")}.items():
        script = agent_dir / wrapper
        script.write_text(f"#!/bin/sh\nexec '{sys.executable}' '{agent_dir / runtime}'\n", encoding="utf-8")
        script.chmod(0o700)
        value["hooks"][event] = [{"matcher": ".*", "hooks": [
            {"type": "command", "command": f"'{script}'", "timeout": 10000}]}]
    settings.write_text(json.dumps(value, indent=2) + "\n", encoding="utf-8")


def test_auggie_cannot_spawn_the_earlier_quoted_form_and_install_replaces_it(
        agent_cache: dict[str, Any], tmp_path_factory: pytest.TempPathFactory) -> None:
    """With the flag on, Auggie spawns the quoted wrapper path without a shell: ENOENT, which it treats as
    non-blocking, so a frozen agent runs its tool. ``status`` says unhealthy; ``install`` replaces the entries
    with the exec form, and the guard blocks again."""
    for s in open_session("augment", agent_cache, tmp_path_factory.mktemp("e2e-augment-quoted")):
        sb = s.sandbox
        _earlier_quoted_form(s)
        sb.elydora("agent", "freeze", "--provider", "augment", "--root", str(sb.home))
        run = s.run("quoted")
        assert_reached_only_the_fake_model(run)
        assert run.proof_exists and not sb.runtime_ran("guard"), (
            f"Auggie ran the quoted wrapper path (it spawns through a shell now: revisit the migration)\n"
            f"{run.describe()}"
        )
        status = sb.elydora("status", "augment", "--root", str(sb.home), check=False)
        assert status.returncode == 1 and status.stdout.split()[1:2] == ["unhealthy"], status.stdout
        sb.elydora("install", "augment", "--root", str(sb.home))
        assert ".sh" not in (sb.home / ".augment" / "settings.json").read_text(encoding="utf-8")
        run = s.run("migrated")
        assert not run.proof_exists and sb.runtime_ran("guard") and not sb.runtime_ran("audit"), run.describe()
        assert any(contains(r["body"], guard_line("augment")) for r in run.after_tool_call()), run.describe()


def _blank_settings(sb: Any) -> None:
    """A user's ``settings.json`` that holds only a line break: Auggie 0.36's hook loader reads it as no hooks."""
    settings = sb.home / ".augment" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_bytes(b"\n")


def test_a_blank_settings_file_is_filled_and_auggie_runs_the_guard(
        agent_cache: dict[str, Any], tmp_path_factory: pytest.TempPathFactory) -> None:
    """As Auggie reads a blank settings file as empty settings, install writes our hooks into it (no refusal),
    and Auggie then runs the guard from it: a frozen agent's tool is blocked."""
    for s in open_session("augment", agent_cache, tmp_path_factory.mktemp("e2e-augment-blank"), _blank_settings):
        sb = s.sandbox
        assert s.install.returncode == 0, s.install.stdout + s.install.stderr
        assert "PreToolUse" in (sb.home / ".augment" / "settings.json").read_text(encoding="utf-8")
        sb.elydora("agent", "freeze", "--provider", "augment", "--root", str(sb.home))
        run = s.run("blank")
        assert_reached_only_the_fake_model(run)
        assert not run.proof_exists and sb.runtime_ran("guard"), run.describe()
        assert any(contains(r["body"], guard_line("augment")) for r in run.after_tool_call()), run.describe()
