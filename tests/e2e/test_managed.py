"""End to end, ``--scope system``: the real agents read our entries from their managed layer.

``elydora install <agent> --scope system --root <sysroot>`` writes ``<sysroot>/etc/...`` and the root-owned
launchers under ``<sysroot>/usr/local/lib/elydora``; the namespace driver binds ``<sysroot>/etc/claude-code``
over ``/etc/claude-code`` (and ``etc/codex`` over ``/etc/codex``) in a private mount namespace, through a
throw-away overlay of ``/etc``: the machine's ``/etc`` is never touched. The user-scope install every session
makes is removed first, so whatever runs comes from the managed layer alone.
"""

from __future__ import annotations

import json
import os
import plistlib
import pwd
from collections.abc import Iterator
from pathlib import Path
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


@pytest.fixture(scope="module")
def copilot(agent_cache: dict[str, Any], tmp_path_factory: pytest.TempPathFactory) -> Iterator[System]:
    yield from system_session("copilot", agent_cache, tmp_path_factory.mktemp("e2e-managed-copilot"))


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


def _organizations_file(claude: System, marker: Path) -> tuple[Path, bytes]:
    """The organization's own managed-settings.json, with a PreToolUse hook of its own that leaves ``marker``."""
    org = {"permissions": {"deny": ["WebFetch"]},
           "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": f"touch {marker}"}]}]}}
    base = claude.sysroot / "etc" / "claude-code" / "managed-settings.json"
    text = (json.dumps(org, indent=2) + "\n").encode()
    base.write_bytes(text)
    return base, text


def test_claude_runs_our_drop_in_beside_the_organizations_managed_hooks(claude: System) -> None:
    """Our drop-in in managed-settings.d/ and the organization's managed-settings.json with its own hook: Claude
    Code merges them and runs both (allowed, then frozen); install and uninstall never change the
    organization's file by one byte."""
    marker = claude.sysroot / "org-hook-ran"
    base, text = _organizations_file(claude, marker)
    dropin = claude.sysroot / "etc" / "claude-code" / "managed-settings.d" / "elydora.json"
    try:
        claude.elydora("install", "claudecode")
        assert base.read_bytes() == text and dropin.exists()
        run = claude.run("org-and-ours-allow")  # not check_allowed: earlier tests' records share the ledger
        assert run.proof_exists and claude.ran("guard") and claude.ran("audit"), run.describe()
        assert marker.exists()
        marker.unlink()
        with claude.frozen():
            claude.check_blocked(claude.run("org-and-ours-frozen"))
        assert marker.exists()
        claude.elydora("uninstall", "claudecode")
        assert base.read_bytes() == text and not dropin.exists()
        marker.unlink()
        run = claude.run("org-alone")
        assert run.proof_exists and marker.exists() and not claude.ran("guard"), run.describe()
    finally:
        base.unlink()
        claude.elydora("install", "claudecode")


def test_claude_runs_our_hooks_from_the_profiles_settings(claude: System) -> None:
    """``elydora profile claude`` parsed back with plistlib: its payload's settings, written as the file form
    (managed-settings.json) with our drop-in set aside, are what the real Claude Code runs: the frozen agent is
    blocked by our guard. The same dict is what the com.anthropic.claudecode profile delivers on macOS."""
    profile = claude.sysroot / "elydora-claude.mobileconfig"
    claude.s.sandbox.elydora("profile", "claude", "--root", str(claude.sysroot), "--output", str(profile))
    (content,) = plistlib.loads(profile.read_bytes())["PayloadContent"]
    assert content["PayloadType"] == "com.anthropic.claudecode"
    settings = {k: v for k, v in content.items() if not k.startswith("Payload")}
    base = claude.sysroot / "etc" / "claude-code" / "managed-settings.json"
    dropin = claude.sysroot / "etc" / "claude-code" / "managed-settings.d" / "elydora.json"
    aside = dropin.with_name("elydora.json.aside")  # not *.json: Claude Code skips it
    dropin.rename(aside)
    try:
        base.write_text(json.dumps(settings, indent=2))
        with claude.frozen():
            claude.check_blocked(claude.run("profile-file-form"))
        base.unlink()
        run = claude.run("profile-removed")  # nothing of ours left in the file tier: the tool runs, no guard
        assert run.proof_exists and not claude.ran("guard"), run.describe()
    finally:
        base.unlink(missing_ok=True)
        aside.rename(dropin)


def test_copilot_runs_our_policy_hook_whatever_disable_all_hooks_says(copilot: System) -> None:
    """A user's disableAllHooks (their settings.json, and the project's) switches their own hooks off, not our
    policy hook: the frozen agent stays blocked by the root-owned guard."""
    s = copilot.s
    user = s.sandbox.home / ".copilot" / "settings.json"
    project = s.sandbox.work / ".github" / "copilot" / "settings.json"
    original = user.read_text() if user.exists() else None
    assert not (s.sandbox.home / ".copilot" / "hooks" / "elydora-audit.json").exists()
    copilot.check_allowed()
    try:
        settings = json.loads(original or "{}")
        user.write_text(json.dumps({**settings, "disableAllHooks": True}))
        write_settings(project, {"disableAllHooks": True})
        run = copilot.run("policy-hook-user-disabled-allow")
        assert run.proof_exists and copilot.ran("guard") and copilot.ran("audit"), run.describe()
        with copilot.frozen():
            copilot.check_blocked(copilot.run("policy-hook-user-disabled"))
    finally:
        write_settings(project, None)
        if original is None:
            user.unlink(missing_ok=True)
        else:
            user.write_text(original)


def test_copilot_runs_our_policy_hook_in_a_folder_its_trust_list_does_not_name(copilot: System) -> None:
    """Copilot CLI's trust list (``trusted_folders`` in ~/.copilot/config.json) names another folder only: our
    policy hook runs and blocks a frozen agent there. Headless (``-p`` with ``--allow-all-tools``), 1.0.102 also
    loaded the project's own hook file from that folder, so it did not treat the folder as untrusted: the test
    pins that fact (docs/providers.md), which leaves a truly untrusted folder unshown."""
    sb = copilot.s.sandbox
    config = sb.home / ".copilot" / "config.json"
    marker = sb.home / "project-hook-ran"
    project_hooks = sb.work / ".github" / "hooks" / "project.json"
    original = config.read_text() if config.exists() else None
    try:
        lines = (original or "{}").splitlines()  # Copilot writes this file with // comment lines at the top
        settings = json.loads("\n".join(line for line in lines if not line.lstrip().startswith("//")))
        write_settings(config, {**settings, "trusted_folders": [str(sb.home / "elsewhere")]})
        write_settings(project_hooks, {"version": 1, "hooks": {"preToolUse": [
            {"type": "command", "bash": f"touch '{marker}'", "timeoutSec": 10}]}})
        run = copilot.run("policy-hook-untrusted-allow")
        assert run.proof_exists and copilot.ran("guard") and copilot.ran("audit"), run.describe()
        assert marker.exists(), "the project's hooks did not run: Copilot now honours the trust list headless"
        with copilot.frozen():
            copilot.check_blocked(copilot.run("policy-hook-untrusted"))
    finally:
        write_settings(project_hooks, None)
        marker.unlink(missing_ok=True)
        if original is None:
            config.unlink(missing_ok=True)
        else:
            config.write_text(original)


def test_copilot_disable_all_hooks_silences_a_user_scope_install_but_not_the_policy_hook(copilot: System) -> None:
    """The contrast: the project's disableAllHooks does turn off a user-scope install of ours (its frozen guard
    no longer runs, the tool runs), while the policy hook beside it still runs. (Copilot 1.0.102 in -p mode kept
    running the user-scope hooks with disableAllHooks in ~/.copilot/settings.json alone: docs/providers.md.)"""
    sb = copilot.s.sandbox
    project = sb.work / ".github" / "copilot" / "settings.json"
    sb.elydora("install", "copilot", "--root", str(sb.home))
    sb.elydora("agent", "freeze", "--provider", "copilot", "--root", str(sb.home))
    try:
        sb.clear_bytecode()
        run = copilot.run("user-scope-frozen")
        assert not run.proof_exists and sb.runtime_ran("guard"), run.describe()
        write_settings(project, {"disableAllHooks": True})
        sb.clear_bytecode()
        run = copilot.run("user-scope-switched-off")
        assert run.proof_exists and copilot.ran("guard") and not sb.runtime_ran("guard"), run.describe()
    finally:
        write_settings(project, None)
        sb.elydora("uninstall", "copilot", "--root", str(sb.home))



def test_status_names_the_managed_source_claude_uses_beside_a_cached_server_copy(claude: System) -> None:
    """A second managed source: a cached copy of server-managed settings in the user's home. The probe names the
    source Claude Code uses for everyone (the files), and the cached copy for that user as not certain (it wins
    once Claude Code verifies it for the signed-in account); the real Claude Code, given an unverified copy,
    keeps running our drop-in: the frozen agent is blocked."""
    s = claude.s
    user_home = claude.sysroot / pwd.getpwuid(os.getuid()).pw_dir.lstrip("/")
    copies = [s.sandbox.home / ".claude" / "remote-settings.json", user_home / ".claude" / "remote-settings.json"]
    for copy in copies:
        copy.parent.mkdir(parents=True, exist_ok=True)
        copy.write_text(json.dumps({"permissions": {"deny": ["WebFetch"]}}, indent=2))
    try:
        probe = s.sandbox.elydora("status", "claude", "--scope", "system", "--root", str(claude.sysroot), "--json")
        row = json.loads(probe.stdout)["providers"][0]
        user = pwd.getpwuid(os.getuid()).pw_name
        source = row["managed_source"]
        assert source["used"]["source"] == "files" and source["ignored"] == [], source
        assert source["per_user"][user]["source"] == "remote" and source["per_user"][user]["where"] == str(copies[1])
        assert source["uncertain"] == [user] and row["enforced"], row
        text = s.sandbox.elydora("status", "claude", "--scope", "system", "--root", str(claude.sysroot)).stdout
        assert "enforced by managed-settings.json and managed-settings.d/, not certain for" in text, text
        with claude.frozen():
            claude.check_blocked(claude.run("unverified-server-copy"))
    finally:
        for copy in copies:
            copy.unlink()
