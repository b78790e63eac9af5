"""Kiro CLI v2 custom agent: the agent file and handlers literally, the note status always gives, on request only."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from elydora_testkit.provider_cases import (
    change_before_commit,
    files_under,
    make_context,
    payload,
    run_as_agent,
    set_status,
)

from elydora_cli import presence
from elydora_cli.installer import operations
from elydora_cli.main import main
from elydora_cli.plug.context import Context
from elydora_cli.plug.ownership import Ref
from elydora_cli.providers import kiroagent
from elydora_config.errors import ConcurrentModificationError, MalformedConfigError


def _file(ctx: Context) -> Path:
    return ctx.home / ".kiro" / "agents" / "elydora-audit.json"


def test_the_handler_literally(tmp_path):
    ctx = make_context(tmp_path)
    handler = kiroagent.make_handler(Ref("kiroagent", "guard", "/opt/py/bin/python3", 10000), ctx)
    assert handler == {
        "matcher": "*",
        "command": f"'/opt/py/bin/python3' '-I' '-S' '{ctx.home}/.elydora/kiroagent/guard.py'",
        "timeout_ms": 10000,
    }


def test_a_fresh_install_creates_our_agent_and_uninstall_deletes_it(tmp_path):
    ctx = make_context(tmp_path)
    operations.install("kiroagent", ctx)
    value = json.loads(_file(ctx).read_text())
    assert list(value) == ["name", "description", "tools", "useLegacyMcpJson", "hooks"]
    assert (value["name"], value["tools"], value["useLegacyMcpJson"]) == ("elydora-audit", ["*"], True)
    assert list(value["hooks"]) == ["preToolUse", "postToolUse"]
    assert value["hooks"]["postToolUse"][0]["timeout_ms"] == 10000
    operations.uninstall("kiroagent", ctx)
    assert not _file(ctx).exists()


def test_status_always_says_that_only_this_agents_sessions_are_guarded(tmp_path, capsys):
    ctx = make_context(tmp_path)
    operations.install("kiroagent", ctx)
    status = operations.status("kiroagent", ctx)
    assert status.healthy
    assert [(f.render(), f.severity) for f in status.findings] == [
        (
            f"{_file(ctx)}: guards only the sessions started with `kiro-cli --agent elydora-audit`; the default agent"
            " and every other agent run unguarded and unaudited (install kirocli, the v3 hook file, to guard them all)",
            "note",
        )
    ]
    main(["status", "kiroagent", "-v", "--root", str(ctx.home), "--repo-root", str(ctx.repo_root)])
    assert "only the sessions started with `kiro-cli --agent elydora-audit`" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ({"name": "reviewer", "hooks": {}}, 'name must be "elydora-audit", not "reviewer"'),
        ({"name": "elydora-audit", "description": "x", "tools": ["*"], "useLegacyMcpJson": True,
          "hooks": {"preToolUse": [{"command": "x", "timeout_ms": "5"}]}},
         "hooks.preToolUse[0].timeout_ms must be a non-negative integer"),
        ({"name": "elydora-audit", "hooks": {"preToolUse": {"command": "x"}}}, "hooks.preToolUse must be an array"),
    ],
)  # fmt: skip
def test_malformed_agent_files_are_refused_with_one_error_line(tmp_path, capsys, value, problem):
    ctx = make_context(tmp_path)
    _file(ctx).parent.mkdir(parents=True)
    _file(ctx).write_text(json.dumps(value))
    before = files_under(ctx.home)
    with pytest.raises(MalformedConfigError):
        operations.install("kiroagent", ctx)
    code = main(["install", "kiroagent", "--root", str(ctx.home), "--repo-root", str(ctx.repo_root)])
    lines = capsys.readouterr().err.splitlines()
    assert code == 1 and lines == [f"Error: {_file(ctx)}: {problem}"]
    assert files_under(ctx.home) == before


def test_install_all_never_picks_it_but_naming_it_installs_it(tmp_path, capsys):
    ctx = make_context(tmp_path, {"PATH": str(tmp_path / "bin")})
    (ctx.home / ".kiro" / "agents").mkdir(parents=True)
    assert presence.absence("kiroagent", ctx) == "installed only on request: name it to install it"
    assert presence.absence("kirocli", ctx) is None
    root = ["--root", str(ctx.home), "--repo-root", str(ctx.repo_root)]
    assert main(["install", "--all", *root]) == 0
    capsys.readouterr()
    assert not _file(ctx).exists()
    assert (ctx.home / ".kiro" / "hooks" / "elydora-audit.json").exists()
    assert main(["install", "kiro-agent", *root]) == 0
    assert _file(ctx).exists()


def test_the_guard_answers_in_kiros_protocol(tmp_path):
    ctx = make_context(tmp_path)
    operations.install("kiroagent", ctx)
    guard = next(e for e in operations.installed_entries("kiroagent", ctx) if e.role == "guard")
    assert run_as_agent(guard.argv, payload("kiroagent", "preToolUse")).returncode == 0
    set_status(ctx, "kiroagent", "revoked")
    denied = run_as_agent(guard.argv, payload("kiroagent", "preToolUse"))
    assert (denied.returncode, denied.stdout) == (2, b"")
    assert 'Agent "kiroagent" is revoked in Elydora.' in denied.stderr.decode()


def test_a_concurrent_edit_of_the_users_agent_aborts_the_install(tmp_path, monkeypatch):
    ctx = make_context(tmp_path)
    _file(ctx).parent.mkdir(parents=True)
    original = {"name": "elydora-audit", "description": "The default tool set, guarded and audited by Elydora",
                "tools": ["*"], "useLegacyMcpJson": True, "prompt": "be brief"}  # fmt: skip
    _file(ctx).write_text(json.dumps(original))
    before = files_under(ctx.home)
    edited = json.dumps({**original, "prompt": "be thorough"}).encode()
    change_before_commit(monkeypatch, _file(ctx), edited)
    with pytest.raises(ConcurrentModificationError):
        operations.install("kiroagent", ctx)
    after = files_under(ctx.home)
    assert after.pop(str(_file(ctx))) == edited
    before.pop(str(_file(ctx)))
    assert after == before
