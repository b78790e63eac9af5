"""Kiro IDE: its own file in the shared hook folder, literally; its refusals; the Kiro CLI file as a note."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from elydora_testkit.provider_cases import files_under, make_context

from elydora_cli.installer import operations
from elydora_cli.main import main
from elydora_cli.plug.context import Context
from elydora_cli.plug.ownership import Ref
from elydora_cli.plug.triggerfile import SHARED_FOLDER
from elydora_cli.providers import kiroide
from elydora_config.errors import MalformedConfigError


def _file(ctx: Context) -> Path:
    return ctx.home / ".kiro" / "hooks" / "elydora-kiroide.json"


def test_the_entries_literally_posix_and_windows(tmp_path):
    ctx = make_context(tmp_path)
    guard = kiroide.HOOKS.entry("PreToolUse", Ref("kiroide", "guard", "/opt/py/bin/python3", 10), ctx)
    command = f"'/opt/py/bin/python3' '-I' '-S' '{ctx.home}/.elydora/kiroide/guard.py'"
    assert guard == {
        "name": "elydora-guard",
        "trigger": "PreToolUse",
        "action": {"type": "command", "command": command},
        "timeout": 10,
        "enabled": True,
    }
    windows = ctx.with_options(windows=True)
    audit = kiroide.HOOKS.entry("PostToolUse", Ref("kiroide", "audit", "C:\\Py\\python.exe", 10), windows)
    call = f"& 'C:\\Py\\python.exe' '-I' '-S' '{ctx.home}/.elydora/kiroide/hook.py'; exit $LASTEXITCODE"
    assert audit["action"] == {"type": "command", "command": call}


def test_install_writes_the_ide_file_only_and_uninstall_deletes_it(tmp_path):
    ctx = make_context(tmp_path)
    operations.install("kiroide", ctx)
    value = json.loads(_file(ctx).read_text())
    assert [(h["name"], h["trigger"]) for h in value["hooks"]] == [
        ("elydora-guard", "PreToolUse"),
        ("elydora-audit", "PostToolUse"),
    ]
    assert sorted(p.name for p in _file(ctx).parent.iterdir()) == ["elydora-kiroide.json"]
    status = operations.status("kiroide", ctx)
    assert status.healthy and status.findings == []
    operations.uninstall("kiroide", ctx)
    assert not _file(ctx).exists()


def test_a_foreign_file_of_that_name_is_refused_and_kept(tmp_path, capsys):
    ctx = make_context(tmp_path)
    _file(ctx).parent.mkdir(parents=True)
    _file(ctx).write_text('{"version": "v1", "hooks": [], "team": true}\n')
    before = files_under(ctx.home)
    with pytest.raises(MalformedConfigError, match="holds content Elydora did not write"):
        operations.install("kiroide", ctx)
    assert files_under(ctx.home) == before
    assert main(["uninstall", "kiroide", "--root", str(ctx.home), "--repo-root", str(ctx.repo_root)]) == 0
    assert files_under(ctx.home) == before


def test_the_kiro_cli_file_beside_ours_is_a_note(tmp_path):
    ctx = make_context(tmp_path)
    operations.install("kirocli", ctx)
    operations.install("kiroide", ctx)
    status = operations.status("kiroide", ctx)
    assert status.healthy
    cli_file = ctx.home / ".kiro" / "hooks" / "elydora-audit.json"
    assert [(f.render(), f.severity) for f in status.findings] == [(f"{cli_file}: {SHARED_FOLDER}", "note")]


def test_another_agent_ids_file_is_reported_then_replaced(tmp_path):
    ctx = make_context(tmp_path)
    operations.install("kiroide", ctx.with_options(agent_id="team-ide"))
    findings = operations.status("kiroide", ctx).findings
    assert f"{_file(ctx)}: runs the hooks of agent 'team-ide', not 'kiroide'; run install" in [
        f.render() for f in findings
    ]
    operations.install("kiroide", ctx)
    assert operations.status("kiroide", ctx).healthy
    assert "/.elydora/kiroide/guard.py" in json.loads(_file(ctx).read_text())["hooks"][0]["action"]["command"]
