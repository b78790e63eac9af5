"""End to end, ``--scope system``: the real Gemini CLI and Qwen Code read our entries from their system settings.

Each runs offline in a private mount namespace where ``<sysroot>/etc/gemini-cli`` (``etc/qwen-code``) is bound
over ``/etc/gemini-cli`` (``/etc/qwen-code``), see :mod:`elydora_testkit.e2e_managed`. Gemini CLI 0.61 reads
the system file only when it and every directory above it are root's and not group- or other-writable, which
is why the file sits at its real path (its ``GEMINI_CLI_SYSTEM_SETTINGS_PATH`` into a temporary directory would
be skipped). Besides what the layer promises (our ``hooksConfig.enabled: true`` / ``disableAllHooks: false``
beats a user's switch; an emptied user hook map changes nothing), the tests show where a user CAN silence ours,
as docs/fleet.md says: Gemini's ``hooksConfig.disabled`` by name and an untrusted folder, Qwen's bare mode.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from elydora_testkit.e2e_harness import Run, mark_unread
from elydora_testkit.e2e_managed import System, system_session

from elydora_cli import managed

pytestmark = pytest.mark.e2e

USER_FILE = {"gemini": ".gemini/settings.json", "qwen": ".qwen/settings.json"}


@pytest.fixture(scope="module")
def gemini(agent_cache: dict[str, Any], tmp_path_factory: pytest.TempPathFactory) -> Iterator[System]:
    yield from system_session("gemini", agent_cache, tmp_path_factory.mktemp("e2e-managed-gemini"))


@pytest.fixture(scope="module")
def qwen(agent_cache: dict[str, Any], tmp_path_factory: pytest.TempPathFactory) -> Iterator[System]:
    yield from system_session("qwen", agent_cache, tmp_path_factory.mktemp("e2e-managed-qwen"))


def _merged(base: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in extra.items():
        both = isinstance(value, dict) and value and isinstance(out.get(key), dict)
        out[key] = _merged(out[key], value) if both else value
    return out


@contextlib.contextmanager
def frozen(system: System, extra: dict[str, Any] | None = None) -> Iterator[None]:
    """The agent frozen by root's policy, and the user's settings merged with ``extra`` (restored after)."""
    path = system.s.sandbox.home / USER_FILE[system.s.agent.id]
    before = path.read_text()
    with system.frozen():
        if extra is not None:
            path.write_text(json.dumps(_merged(json.loads(before), extra), indent=2))
        try:
            yield
        finally:
            path.write_text(before)


def _raw(system: System, phase: str) -> Run:
    """A run that may never reach the tool (the agent may refuse to act): only that it finished is asserted."""
    system.s.sandbox.reset_work()
    mark_unread(system.runtime)
    run = system.s.run_raw(phase, system.s.agent.argv(system.s.info["bin"]), tool=system.s.agent.shell_tool)
    assert not run.timed_out, run.describe()
    return run


def _with_env(system: System, extra: dict[str, str], drop: str = "") -> Callable[[], None]:
    """The agent's next runs with ``extra`` in their environment (and without ``drop``); returns the undo."""
    row = system.s.agent

    def env(sb: Any, port: int) -> dict[str, str]:
        return {k: v for k, v in {**row.env(sb, port), **extra}.items() if k != drop}

    system.s.agent = dataclasses.replace(row, env=env)

    def undo() -> None:
        system.s.agent = row

    return undo


def test_gemini_runs_our_managed_guard_and_audit(gemini: System) -> None:
    assert "elydora" not in (gemini.s.sandbox.home / USER_FILE["gemini"]).read_text()  # nothing in user scope
    gemini.check_allowed()
    with frozen(gemini):
        gemini.check_blocked(gemini.run("managed-block"))


@pytest.mark.parametrize(
    "settings", [{"hooks": {}}, {"hooksConfig": {"enabled": False}}], ids=["no-hooks", "hooksConfig-enabled-false"]
)
def test_gemini_user_settings_do_not_switch_managed_hooks_off(gemini: System, settings: dict[str, Any]) -> None:
    """The system file is merged last: our hooksConfig.enabled: true beats the user's false."""
    with frozen(gemini, settings):
        gemini.check_blocked(gemini.run(f"managed-user-{next(iter(settings))}"))


def test_gemini_without_our_pin_a_users_switch_turns_ours_off(gemini: System) -> None:
    """What the pin is for: with hooksConfig.enabled gone from the system file, the user's false wins."""
    path = gemini.sysroot / managed.LAYERS["gemini"].path.lstrip("/")
    before = path.read_text()
    path.write_text(before.replace('"enabled": true', '"notifications": true', 1))
    try:
        with frozen(gemini, {"hooksConfig": {"enabled": False}}):
            run = gemini.run("managed-unpinned")
            assert run.proof_exists and not gemini.ran("guard"), run.describe()
    finally:
        path.write_text(before)


def test_gemini_user_can_silence_ours_by_name(gemini: System) -> None:
    """hooksConfig.disabled is merged as a union across layers: a user naming our hooks switches them off."""
    with frozen(gemini, {"hooksConfig": {"disabled": ["elydora-guard", "elydora-audit"]}}):
        run = gemini.run("managed-disabled-by-name")
        assert run.proof_exists and not gemini.ran("guard") and not gemini.ran("audit"), run.describe()


def test_gemini_headless_refuses_an_untrusted_folder(gemini: System) -> None:
    """Gemini registers settings hooks, the system file's included, only in a trusted folder; headless, it
    does not run at all in an untrusted one (interactive sessions there run without settings hooks, with every
    tool call asking the user: not shown here)."""
    undo = _with_env(gemini, {"GEMINI_CLI_TRUST_WORKSPACE": "false"})
    try:
        with frozen(gemini):
            run = _raw(gemini, "managed-untrusted")
            assert run.rc != 0 and run.tool_call is None and not gemini.ran("guard"), run.describe()
            assert "not running in a trusted directory" in run.stderr, run.describe()
    finally:
        undo()


def test_gemini_folder_trust_is_on_by_default_and_the_administrator_can_pin_it_off(gemini: System) -> None:
    """Without GEMINI_CLI_TRUST_WORKSPACE an unknown folder is untrusted (0.61: security.folderTrust.enabled
    defaults to true), so headless Gemini refuses it; the administrator's security.folderTrust.enabled: false in
    the system file (merged last, so no user can switch trust back on) makes every folder trusted: ours run."""
    undo = _with_env(gemini, {}, drop="GEMINI_CLI_TRUST_WORKSPACE")
    path = gemini.sysroot / managed.LAYERS["gemini"].path.lstrip("/")
    before = path.read_text()
    try:
        with frozen(gemini):
            run = _raw(gemini, "managed-trust-default")
            assert run.rc != 0 and run.tool_call is None, run.describe()
            assert "not running in a trusted directory" in run.stderr, run.describe()
        path.write_text(before.replace('{"hooksConfig"', '{"security": {"folderTrust": {"enabled": false}}, '
                                       '"hooksConfig"', 1))
        with frozen(gemini, {"security": {"folderTrust": {"enabled": True}}}):
            gemini.check_blocked(gemini.run("managed-trust-pinned-off"))
    finally:
        path.write_text(before)
        undo()


def test_qwen_runs_our_managed_guard_and_audit(qwen: System) -> None:
    assert "elydora" not in (qwen.s.sandbox.home / USER_FILE["qwen"]).read_text()
    qwen.check_allowed()
    with frozen(qwen):
        qwen.check_blocked(qwen.run("managed-block"))


@pytest.mark.parametrize("settings", [{"hooks": {}}, {"disableAllHooks": True}], ids=["no-hooks", "disableAllHooks"])
def test_qwen_user_settings_do_not_switch_managed_hooks_off(qwen: System, settings: dict[str, Any]) -> None:
    """The system file is merged last: our disableAllHooks: false beats the user's true."""
    with frozen(qwen, settings):
        qwen.check_blocked(qwen.run(f"managed-user-{next(iter(settings))}"))


def test_qwen_bare_mode_silences_every_hook_ours_included(qwen: System) -> None:
    """``--bare`` (or QWEN_CODE_SIMPLE) is the user's own: it drops system hooks too."""
    undo = _with_env(qwen, {"QWEN_CODE_SIMPLE": "1"})
    try:
        with frozen(qwen):
            run = _raw(qwen, "managed-bare")
            assert run.proof_exists and not qwen.ran("guard") and not qwen.ran("audit"), run.describe()
    finally:
        undo()


def test_status_then_uninstall_after_the_agents_own_runs(gemini: System, qwen: System) -> None:
    """After the real runs we are still covered; uninstall then leaves none of ours. Gemini never writes its
    system file (we created it: it is gone); Qwen, run as root, rewrote it in its own layout and stamped
    ``$version``, which stays (its bytes, not ours)."""
    for system in (gemini, qwen):
        result = system.s.sandbox.elydora("status", system.s.agent.id, "--json", "--scope", "system", "--root",
                                          str(system.sysroot), check=False)
        row = json.loads(result.stdout)["providers"][0]
        assert (row["covered"], row["enforced"]) == (True, True), row
        system.elydora("uninstall", system.s.agent.id)
    assert not (gemini.sysroot / managed.LAYERS["gemini"].path.lstrip("/")).exists()
    left = (qwen.sysroot / managed.LAYERS["qwen"].path.lstrip("/")).read_text()
    assert "elydora" not in left.lower().replace("// managed by elydora", "") and '"$version"' in left, left
