"""End to end, ``--scope system``: the real agents read our entries from their managed layer.

``elydora install <agent> --scope system --root <sysroot>`` writes ``<sysroot>/etc/...`` and the root-owned
launchers under ``<sysroot>/usr/local/lib/elydora``; the namespace driver binds ``<sysroot>/etc/claude-code``
over ``/etc/claude-code`` (and ``etc/codex`` over ``/etc/codex``) in a private mount namespace, through a
throw-away overlay of ``/etc``: the machine's ``/etc`` is never touched. The user-scope install every session
makes is removed first, so whatever runs comes from the managed layer alone.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from elydora_testkit.e2e_managed import System, system_session, write_settings
from elydora_testkit.e2e_session import AgentSession

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def claude(agent_cache: dict[str, Any], tmp_path_factory: pytest.TempPathFactory) -> Iterator[System]:
    yield from system_session("claudecode", agent_cache, tmp_path_factory.mktemp("e2e-managed-claude"))


@pytest.fixture(scope="module")
def codex(agent_cache: dict[str, Any], tmp_path_factory: pytest.TempPathFactory) -> Iterator[System]:
    yield from system_session("codex", agent_cache, tmp_path_factory.mktemp("e2e-managed-codex"))


def _user_settings(s: AgentSession, value: dict[str, Any] | None) -> None:
    write_settings(s.sandbox.home / ".claude" / "settings.json", value)


def test_claude_runs_our_managed_guard_and_audit(claude: System) -> None:
    assert not (claude.s.sandbox.home / ".claude" / "settings.json").exists()  # nothing of ours in user scope
    claude.check_allowed()


def test_claude_frozen_by_policy_is_blocked(claude: System) -> None:
    with claude.frozen():
        claude.check_blocked(claude.run("managed-block"))


@pytest.mark.parametrize("settings", [{"hooks": {}}, {"disableAllHooks": True}], ids=["no-hooks", "disableAllHooks"])
def test_claude_user_settings_do_not_switch_managed_hooks_off(claude: System, settings: dict[str, Any]) -> None:
    """Claude Code takes a user's disableAllHooks as allowManagedHooksOnly: our managed guard still blocks."""
    with claude.frozen():
        _user_settings(claude.s, settings)
        try:
            run = claude.run(f"managed-user-{next(iter(settings))}")
            assert not run.proof_exists and claude.ran("guard"), run.describe()
        finally:
            _user_settings(claude.s, None)


def test_codex_runs_managed_hooks_without_trust_or_bypass(codex: System) -> None:
    argv = [a for a in codex.s.agent.argv(codex.s.info["bin"]) if a != "--dangerously-bypass-hook-trust"]
    assert not (codex.s.sandbox.home / ".codex" / "hooks.json").exists()
    codex.check_allowed(argv)
    codex.elydora("agent", "freeze", "--provider", "codex")
    codex.check_blocked(codex.run("managed-block", argv))


def test_codex_user_feature_switch_does_not_silence_managed_hooks(codex: System) -> None:
    """A user's ``[features] hooks = false`` switches every hook off, managed ones too (shown: with the pin
    removed the frozen agent's tool runs, no guard); the ``[features] hooks = true`` our system install writes
    into requirements.toml keeps them on, and the probe reports the pin gone."""
    argv = [a for a in codex.s.agent.argv(codex.s.info["bin"]) if a != "--dangerously-bypass-hook-trust"]
    config = codex.s.sandbox.home / ".codex" / "config.toml"
    requirements = codex.sysroot / "etc" / "codex" / "requirements.toml"
    original, pinned = config.read_text(), requirements.read_text()
    assert "[features]\nhooks = true\n" in pinned
    codex.elydora("agent", "freeze", "--provider", "codex")
    try:
        config.write_text(original + "\n[features]\nhooks = false\n")
        codex.check_blocked(codex.run("user-feature-off", argv))
        requirements.write_text(pinned.replace("[features]\nhooks = true\n", ""))
        probe = codex.s.sandbox.elydora("status", "codex", "--scope", "system", "--root", str(codex.sysroot),
                                        check=False)
        assert probe.returncode == 1 and "features.hooks is not true" in probe.stdout, probe.stdout
        run = codex.run("user-feature-off-unpinned", argv)
        assert run.proof_exists and not codex.ran("guard"), run.describe()
    finally:
        requirements.write_text(pinned)
        config.write_text(original)
        codex.elydora("agent", "unfreeze", "--provider", "codex")


def _lock_down_switches_user_hooks_off(system: System, argv: list[str] | None = None) -> None:
    """A user-scope install beside ours, its agent frozen: it blocks, until ``--lock-down`` leaves only ours."""
    s, sb = system.s, system.s.sandbox
    agent = s.agent.id
    sb.elydora("install", agent, "--root", str(sb.home))
    sb.elydora("agent", "freeze", "--provider", agent, "--root", str(sb.home))
    try:
        sb.clear_bytecode()
        run = system.run("user-hooks-too", argv)
        assert not run.proof_exists and sb.runtime_ran("guard"), run.describe()
        system.elydora("install", agent, "--lock-down")
        sb.clear_bytecode()
        run = system.run("lock-down", argv)
        assert run.proof_exists and system.ran("guard") and not sb.runtime_ran("guard"), run.describe()
    finally:
        system.elydora("install", agent, "--no-lock-down")
        sb.elydora("uninstall", agent, "--root", str(sb.home))


def test_claude_lock_down_switches_user_hooks_off(claude: System) -> None:
    _lock_down_switches_user_hooks_off(claude)


def test_codex_lock_down_switches_user_hooks_off(codex: System) -> None:
    """With the bypass flag Codex would run the user's untrusted hooks; allow_managed_hooks_only drops them."""
    codex.elydora("agent", "unfreeze", "--provider", "codex")
    _lock_down_switches_user_hooks_off(codex)
