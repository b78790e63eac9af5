"""Entries that run a ``--hook-command`` supervisor: how they are built from a Ref and recognised again."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from elydora_testkit.provider_cases import make_context

from elydora_cli.plug import hookmap
from elydora_cli.plug.context import Context
from elydora_cli.plug.ownership import AUDIT, GUARD, Ref, runtime_argv, supervisor_refs
from elydora_cli.providers import claudecode, codex
from elydora_config.jsonc import STRICT_JSON, JsoncDocument

COMMAND = "env SUP_HOME='/s h' /opt/sup hook --flag"


def _ctx(tmp_path: Path, **options: object) -> Context:
    return make_context(tmp_path, hook_command=COMMAND, provider="codex", **options)


def test_runtime_argv_is_the_supervisor_then_the_provider(tmp_path: Path) -> None:
    ctx = _ctx(tmp_path)
    head = ["env", "SUP_HOME=/s h", "/opt/sup", "hook", "--flag", "--provider", "codex"]
    assert runtime_argv(Ref("codex", GUARD, ctx.python), ctx) == head
    assert runtime_argv(Ref("team", AUDIT, ctx.python), ctx) == [*head, "--agent-id", "team"]
    plain = ctx.with_options(hook_command=None)
    assert runtime_argv(Ref("codex", GUARD, ctx.python), plain)[-1].endswith("/.elydora/codex/guard.py")
    with pytest.raises(ValueError, match="provider id"):
        runtime_argv(Ref("codex", GUARD, ctx.python), ctx.with_options(provider=None))


def test_a_handler_is_recognised_for_the_current_and_the_recorded_commands(tmp_path: Path) -> None:
    ctx = _ctx(tmp_path)
    handler = codex.make_handler(Ref("codex", AUDIT, ctx.python, 10), ctx)
    assert hookmap.ours(codex.HOOKS, handler, ctx) == Ref("codex", AUDIT, ctx.python, 10)
    other = ctx.with_options(hook_command="/opt/other hook")
    assert hookmap.ours(codex.HOOKS, handler, other) is None
    assert hookmap.ours(codex.HOOKS, handler, other.with_options(known_hook_commands=(COMMAND,))) is not None
    runtime = codex.make_handler(Ref("codex", GUARD, ctx.python, 10), ctx.with_options(hook_command=None))
    assert hookmap.ours(codex.HOOKS, runtime, ctx) == Ref("codex", GUARD, ctx.python, 10)


@pytest.mark.parametrize(
    "tail",
    [
        ["--provider", "claudecode"],
        ["--provider", "codex", "--verbose"],
        ["--provider", "codex", "--agent-id", "../x"],
        ["--provider", "codex", "--agent-id", "codex"],
        ["--provider"],
        [],
    ],
)
def test_look_alikes_name_no_agent(tmp_path: Path, tail: list[str]) -> None:
    ctx = _ctx(tmp_path)
    argv = ["env", "SUP_HOME=/s h", "/opt/sup", "hook", "--flag", *tail]
    assert list(supervisor_refs({"command": argv[0], "args": argv[1:]}, ctx)) == []


def test_the_role_comes_from_regenerating_the_handler(tmp_path: Path) -> None:
    ctx = _ctx(tmp_path, agent_id=None).with_options(provider="claudecode")
    audit = claudecode.make_handler(Ref("claudecode", AUDIT, ctx.python, 10), ctx)
    assert [ref.role for ref, _ in supervisor_refs(audit, ctx)] == [GUARD, AUDIT]
    assert hookmap.ours(claudecode.HOOKS, audit, ctx) == Ref("claudecode", AUDIT, ctx.python, 10)
    value = {"hooks": {"PostToolUse": [{"hooks": [audit]}], "PreToolUse": [{"hooks": [audit]}]}}
    doc = JsoncDocument.parse(json.dumps(value), STRICT_JSON)
    findings = hookmap.check(doc, claudecode.HOOKS, ctx, "claudecode")
    assert [f.message for f in findings] == [
        "no Elydora guard handler for PreToolUse (expected exactly one)",
        "no Elydora audit handler for PostToolUseFailure (expected exactly one)",
    ]
