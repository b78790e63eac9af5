"""End to end, ``--scope system`` for Auggie: the real Auggie (0.36.0, offline against ``fake_augment.py`` with
``enable_hooks`` on) reads our entries from ``/etc/augment/settings.json``.

As in ``test_managed.py``: ``elydora install augment --scope system --root <sysroot>`` writes
``<sysroot>/etc/augment/settings.json`` and the root-owned launchers; the namespace driver binds
``<sysroot>/etc/augment`` over ``/etc/augment`` in a private mount namespace (the machine's ``/etc`` is never
touched), and the user-scope install of the session is removed first, so whatever runs comes from the managed
layer alone.

Auggie has no setting that switches hooks off and adds the hooks of every settings file together (it refuses a
merged set that lacks one of the system file's hooks): a user or project file emptied of hooks, or naming
switches other agents have, leaves ours running. The one way a user can silence ours is shown too: where
Augment's server allows client flag overrides (the fake API's ``overrides/`` tenant), a user's
``featureFlagOverrides`` turns ``enable_hooks`` off, unless the managed file sets that key itself.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from elydora_testkit.e2e_agents.augment import session_env
from elydora_testkit.e2e_harness import contains
from elydora_testkit.e2e_managed import System, system_session, write_settings
from elydora_testkit.e2e_session import guard_line

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def auggie(agent_cache: dict[str, Any], tmp_path_factory: pytest.TempPathFactory) -> Iterator[System]:
    yield from system_session("augment", agent_cache, tmp_path_factory.mktemp("e2e-managed-augment"))


def test_auggie_runs_our_managed_guard_and_audit(auggie: System) -> None:
    assert not (auggie.s.sandbox.home / ".augment" / "settings.json").exists()  # nothing of ours in user scope
    auggie.check_allowed()
    row = json.loads(auggie.elydora("status", "augment", "--json").stdout)["providers"][0]
    assert (row["covered"], row["enforced"], row["delivering"]) == (True, True, True), row


def test_auggie_frozen_by_policy_is_blocked(auggie: System) -> None:
    with auggie.frozen():
        auggie.check_blocked(auggie.run("managed-block"))


OFF_ATTEMPTS = {
    "user-no-hooks": (".augment/settings.json", {"hooks": {}}),
    "user-empty-events": (".augment/settings.json", {"hooks": {"PreToolUse": [], "PostToolUse": []}}),
    "user-disable-switches": (".augment/settings.json", {"disableAllHooks": True, "hooksDisabled": True}),
    "user-flag-override": (".augment/settings.json", {"featureFlagOverrides": {"enableHooks": False}}),
    "project-no-hooks": (".augment/settings.json", {"hooks": {}}),
}
"""What a user can write to switch hooks off: in their own settings file (below their home) or in the project's
(below the work folder, ``project-*``). ``featureFlagOverrides`` counts only where Augment's server allows client
overrides (the fake server, like Augment's default, does not)."""


@pytest.mark.parametrize("attempt", sorted(OFF_ATTEMPTS))
def test_user_and_project_settings_do_not_switch_managed_hooks_off(auggie: System, attempt: str) -> None:
    """Our managed guard of a frozen agent still blocks, whatever the user's or the project's file says."""
    relative, value = OFF_ATTEMPTS[attempt]
    base = auggie.s.sandbox.work if attempt.startswith("project-") else auggie.s.sandbox.home
    path = base / relative
    with auggie.frozen():
        write_settings(path, value)
        try:
            run = auggie.run(f"managed-{attempt}")
            assert not run.proof_exists and auggie.ran("guard"), run.describe()
            assert any(contains(r["body"], guard_line("augment")) for r in run.after_tool_call()), run.describe()
        finally:
            write_settings(path, None)


def test_a_user_hook_beside_ours_runs_too(auggie: System) -> None:
    """Hooks are added together: a user's own PreToolUse hook runs, and ours (frozen) still blocks."""
    marker = auggie.s.sandbox.home / "user-hook-ran"
    user_hook = {"type": "command", "command": "/bin/sh", "args": ["-c", f"touch {marker}"]}
    path = auggie.s.sandbox.home / ".augment" / "settings.json"
    write_settings(path, {"hooks": {"PreToolUse": [{"matcher": ".*", "hooks": [user_hook]}]}})
    auggie.elydora("agent", "freeze", "--provider", "augment")
    try:
        run = auggie.run("managed-beside-user-hook")
        assert marker.exists() and auggie.ran("guard") and not run.proof_exists, run.describe()
    finally:
        marker.unlink(missing_ok=True)
        write_settings(path, None)
        auggie.elydora("agent", "unfreeze", "--provider", "augment")


@contextmanager
def _server_allows_overrides(system: System) -> Iterator[None]:
    """Auggie logged in to a tenant whose server sets ``allow_client_feature_flag_overrides``."""
    row = system.s.agent
    system.s.agent = dataclasses.replace(row, env=lambda sb, port: session_env(port, hooks=True, overrides=True))
    try:
        yield
    finally:
        system.s.agent = row


def test_where_the_server_allows_flag_overrides_a_user_can_switch_hooks_off(auggie: System) -> None:
    """The hole the managed layer's promise names: with client overrides allowed, the user's
    ``featureFlagOverrides: {"enableHooks": false}`` switches every hook off, ours included; an administrator's
    ``featureFlagOverrides`` in the managed file closes it (Auggie takes the key from the first file that has it,
    the managed one first)."""
    layer = auggie.sysroot / "etc" / "augment" / "settings.json"
    ours = layer.read_bytes()
    user = auggie.s.sandbox.home / ".augment" / "settings.json"
    auggie.elydora("agent", "freeze", "--provider", "augment")
    try:
        with _server_allows_overrides(auggie):
            run = auggie.run("overrides-allowed")
            assert any(r.get("overrides") for r in run.requests if r.get("endpoint") == "get-models"), run.describe()
            assert not run.proof_exists and auggie.ran("guard"), run.describe()  # allowed, nothing overridden
            write_settings(user, {"featureFlagOverrides": {"enableHooks": False}})
            run = auggie.run("overrides-user-off")
            assert run.proof_exists and not auggie.ran("guard"), run.describe()  # the user silenced ours
            layer.write_text(json.dumps({**json.loads(ours), "featureFlagOverrides": {}}, indent=2) + "\n")
            run = auggie.run("overrides-managed-wins")
            assert not run.proof_exists and auggie.ran("guard"), run.describe()
    finally:
        layer.write_bytes(ours)
        write_settings(user, None)
        auggie.elydora("agent", "unfreeze", "--provider", "augment")
