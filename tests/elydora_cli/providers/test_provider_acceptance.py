"""Acceptance of every implemented provider against the before/after pairs of fixtures/configs.

For each pair: install gives data equal to the after-file (our handlers in place of the reference's), with
every byte of the before-file kept (pure insertions); installing twice is byte-identical to once; uninstall
restores the before-file byte for byte (or removes a file we created); the installed commands, run the way
the agent runs them with its sample payload, allow when the agent is active and block when it is frozen.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from elydora_testkit.provider_cases import (
    Case,
    expected_value,
    installed_commands,
    load_cases,
    make_context,
    ordered,
    parse_any,
    payload,
    run_as_agent,
    set_status,
    target_path,
)
from locations import CONFIGS

from elydora_cli import catalog
from elydora_cli import providers as registry
from elydora_cli.installer import operations
from elydora_cli.runtime.stubs import stub_time


def only_insertions(before: str, after: str) -> bool:
    """Every character of ``before`` survives, in order: the edit only inserted text."""
    rest = iter(after)
    return all(char in rest for char in before)


CASES = load_cases()


def _setup(tmp_path: Path, case: Case):
    ctx = make_context(tmp_path, case.env, case.dirs)
    module = registry.load(case.provider)
    target = target_path(case, ctx, module)
    before = (CONFIGS / case.before).read_bytes() if case.before else None
    if before is not None:  # old Elydora entries in a before-file point into the test's own home
        before = before.replace(b"/HOME/.elydora/AGENT/", f"{ctx.elydora_dir}/{case.provider}/".encode())
    if before is not None:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(before)
    return ctx, module, target, before


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_install_matches_the_after_file_and_keeps_every_byte(tmp_path, case):
    ctx, module, target, before = _setup(tmp_path, case)
    operations.install(case.provider, ctx)
    after_text = target.read_bytes().decode("utf-8")
    reference = parse_any((CONFIGS / case.after).read_text(encoding="utf-8"), target.suffix)
    if case.deviation is not None:
        reference = case.deviation(reference)
    expected = expected_value(reference, module, ctx, case.provider)
    assert ordered(parse_any(after_text, target.suffix)) == ordered(expected)
    if before is not None and not case.legacy:
        assert only_insertions(before.decode(), after_text), "install changed bytes it did not add"


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_install_twice_is_install_once(tmp_path, case):
    ctx, _, target, _ = _setup(tmp_path, case)
    operations.install(case.provider, ctx)
    once = target.read_bytes()
    stat_once = target.stat()
    outcome = operations.install(case.provider, ctx)
    assert target.read_bytes() == once
    assert str(target) not in outcome.changed
    assert target.stat().st_ino == stat_once.st_ino


@pytest.mark.parametrize("case", [c for c in CASES if not c.legacy], ids=lambda c: c.id)
def test_uninstall_restores_original_bytes(tmp_path, case):
    ctx, _, target, before = _setup(tmp_path, case)
    operations.install(case.provider, ctx)
    operations.uninstall(case.provider, ctx)
    if before is None:
        assert not target.exists()
    else:
        assert target.read_bytes() == before
    agent_dir = ctx.agent_dir(case.provider)
    # issue 13: the launchers become inert stubs (running sessions keep working); the runtime itself is gone
    assert all(stub_time(agent_dir / name) is not None for name in ("guard.py", "hook.py"))
    assert not (agent_dir / "_elydora_guard.py").exists() and not (agent_dir / "_elydora_audit.py").exists()


@pytest.mark.parametrize("provider", registry.implemented_ids())
def test_installed_commands_allow_then_block(tmp_path, provider):
    ctx = make_context(tmp_path)
    operations.install(provider, ctx)
    commands = installed_commands(provider, ctx)
    facts = catalog.provider(provider)
    assert sorted(e for e, _, _ in commands) == sorted([facts.events.pre_tool, *facts.events.audit_events])
    for event, role, argv in commands:
        result = run_as_agent(argv, payload(provider, event))
        assert result.returncode == 0, result.stderr
        expected = facts.guard.success_stdout if role == "guard" else facts.audit.success_stdout
        assert result.stdout == expected
    set_status(ctx, provider, "frozen")
    for event, role, argv in commands:
        if role != "guard":
            continue
        result = run_as_agent(argv, payload(provider, event))
        assert result.returncode == facts.guard.deny_exit_code
        assert f'Agent "{provider}" is frozen in Elydora.' in result.stderr.decode()
        assert result.stdout == facts.deny_stdout("frozen")


def test_status_reports_healthy_then_unhealthy(tmp_path):
    ctx = make_context(tmp_path)
    for provider in registry.implemented_ids():
        assert not operations.status(provider, ctx).installed
        operations.install(provider, ctx)
        if provider == "codex":  # Codex runs hooks only once the user trusted them (test_provider_codex.py)
            assert operations.status(provider, ctx).awaiting_approval
            continue
        assert operations.status(provider, ctx).healthy, operations.status(provider, ctx).findings
    (ctx.agent_dir("claudecode") / "guard.py").unlink()
    broken = operations.status("claudecode", ctx)
    assert broken.installed and not broken.healthy
    missing = [f.render() for f in broken.findings if "missing" in f.render()]
    assert missing == [f"{ctx.agent_dir('claudecode') / 'guard.py'}: runtime file is missing"]
