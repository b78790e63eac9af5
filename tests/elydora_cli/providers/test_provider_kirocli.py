"""Kiro CLI (v3): the standalone hook file, literally; ownership by exact content; refusals; the neighbour note."""

from __future__ import annotations

import json
import sys
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
from elydora_cli.plug.triggerfile import SHARED_FOLDER
from elydora_cli.providers import kirocli, kiroide
from elydora_config.errors import ConcurrentModificationError, MalformedConfigError

PY = "/opt/py/bin/python3"


def _ctx(tmp_path: Path, python: str = PY) -> Context:
    return make_context(tmp_path).with_options(python=python)


def _file(ctx: Context) -> Path:
    return ctx.home / ".kiro" / "hooks" / "elydora-audit.json"


def _write(path: Path, text: str) -> bytes:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path.read_bytes()


def _entry(ctx: Context, role: str, trigger: str, script: str, python: str = PY) -> dict[str, object]:
    command = f"'{python}' '-I' '-S' '{ctx.home}/.elydora/kirocli/{script}'"
    return {"name": f"elydora-{role}", "trigger": trigger, "action": {"type": "command", "command": command},
            "timeout": 10, "enabled": True}  # fmt: skip


def test_installs_the_whole_file_literally_and_uninstall_deletes_it(tmp_path):
    ctx = _ctx(tmp_path, sys.executable)
    operations.install("kirocli", ctx)
    py = sys.executable
    assert json.loads(_file(ctx).read_text()) == {
        "version": "v1",
        "hooks": [
            _entry(ctx, "guard", "PreToolUse", "guard.py", py),
            _entry(ctx, "audit", "PostToolUse", "hook.py", py),
        ],
    }
    head = '{\n  "version": "v1",\n  "hooks": [\n    {\n      "name": "elydora-guard"'
    assert _file(ctx).read_text().startswith(head)
    assert _file(ctx).stat().st_mode & 0o777 == 0o600
    assert operations.status("kirocli", ctx).healthy
    operations.uninstall("kirocli", ctx)
    assert not _file(ctx).exists()


def test_a_reinstall_from_another_interpreter_replaces_our_file(tmp_path):
    operations.install("kirocli", _ctx(tmp_path, "/usr/bin/python3.11"))
    ctx = _ctx(tmp_path)
    operations.install("kirocli", ctx)
    hooks = json.loads(_file(ctx).read_text())["hooks"]
    assert hooks == [_entry(ctx, "guard", "PreToolUse", "guard.py"), _entry(ctx, "audit", "PostToolUse", "hook.py")]


def test_the_users_other_hook_files_are_never_touched(tmp_path):
    ctx = _ctx(tmp_path)
    team = ctx.home / ".kiro" / "hooks" / "team.json"
    data = _write(team, '{"version": "v1", "hooks": [{"name": "lint", "trigger": "PostFileSave",'
                        ' "action": {"type": "command", "command": "make lint"}}]}\n')  # fmt: skip
    operations.install("kirocli", ctx)
    operations.uninstall("kirocli", ctx)
    assert team.read_bytes() == data
    assert not _file(ctx).exists()


FOREIGN = [
    '{"version": "v1", "hooks": [{"name": "mine", "trigger": "PreToolUse",'
    ' "action": {"type": "command", "command": "x"}}]}\n',
    '{"version": "v1", "hooks": []}\n',
    '{"notes": "kept here by hand"}\n',
]  # fmt: skip


@pytest.mark.parametrize("text", FOREIGN)
def test_a_file_of_that_name_holding_anything_else_is_refused(tmp_path, capsys, text):
    ctx = _ctx(tmp_path)
    data = _write(_file(ctx), text)
    before = files_under(ctx.home)
    with pytest.raises(MalformedConfigError, match="holds content Elydora did not write"):
        operations.install("kirocli", ctx)
    assert files_under(ctx.home) == before
    code = main(["install", "kirocli", "--root", str(ctx.home), "--repo-root", str(ctx.repo_root)])
    err = capsys.readouterr().err
    assert code == 1
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"Error: {_file(ctx)}: holds content Elydora did not write")
    assert _file(ctx).read_bytes() == data


@pytest.mark.parametrize(
    ("text", "problem"), [("[1, 2]\n", "the top level must be a JSON object"), ('{"version": \n', "")]
)
def test_malformed_files_are_refused_with_one_error_line(tmp_path, capsys, text, problem):
    ctx = _ctx(tmp_path)
    data = _write(_file(ctx), text)
    code = main(["install", "kirocli", "--root", str(ctx.home), "--repo-root", str(ctx.repo_root)])
    err = capsys.readouterr().err
    assert code == 1
    assert len(err.splitlines()) == 1 and err.startswith(f"Error: {_file(ctx)}") and problem in err
    assert _file(ctx).read_bytes() == data
    assert not (ctx.home / ".elydora" / "kirocli").exists()


def test_a_file_the_user_edited_is_theirs_status_says_so_and_uninstall_keeps_it(tmp_path):
    ctx = make_context(tmp_path)
    operations.install("kirocli", ctx)
    value = json.loads(_file(ctx).read_text())
    value["hooks"][0]["matcher"] = "execute_bash"
    data = _write(_file(ctx), json.dumps(value, indent=2) + "\n")
    status = operations.status("kirocli", ctx)
    assert not status.healthy
    assert [f.render() for f in status.findings if f.severity == "error"] == [
        f"{_file(ctx)}: holds content Elydora did not write; move your own hooks to another file of hooks/ "
        "(the agent loads every *.json there) and run the command again"
    ]
    operations.uninstall("kirocli", ctx)
    assert _file(ctx).read_bytes() == data


def test_a_timeout_other_than_the_flag_is_reported(tmp_path):
    ctx = make_context(tmp_path)
    operations.install("kirocli", ctx)
    findings = operations.status("kirocli", ctx.with_options(timeout_seconds=20)).findings
    assert [f.render() for f in findings] == [
        f"{_file(ctx)}: PreToolUse: installed with a timeout of 10 s, expected 20 s; "
        "pass --hook-timeout-seconds 10 or reinstall"
    ]


def test_the_kiro_ide_file_beside_ours_is_a_note_and_a_snapshot_precondition(tmp_path, monkeypatch):
    ctx = make_context(tmp_path)
    operations.install("kirocli", ctx)
    assert operations.status("kirocli", ctx).findings == []
    operations.install("kiroide", ctx)
    status = operations.status("kirocli", ctx)
    neighbour = ctx.home / ".kiro" / "hooks" / kiroide.HOOKS.name
    assert status.healthy
    assert [(f.render(), f.severity) for f in status.findings] == [(f"{neighbour}: {SHARED_FOLDER}", "note")]
    operations.uninstall("kiroide", ctx)
    before = files_under(ctx.home)
    change_before_commit(monkeypatch, neighbour, b'{"version": "v1", "hooks": []}\n')
    with pytest.raises(ConcurrentModificationError):
        operations.install("kirocli", ctx.with_options(timeout_seconds=20))
    after = files_under(ctx.home)
    assert after.pop(str(neighbour)) == b'{"version": "v1", "hooks": []}\n'
    assert after == before


def test_the_two_kiro_modules_name_each_others_file():
    assert (kirocli.HOOKS.name, kirocli.HOOKS.neighbour) == (kiroide.HOOKS.neighbour, kiroide.HOOKS.name)
    assert kirocli.FACTS.config.default_path == f"~/.kiro/hooks/{kirocli.HOOKS.name}"
    assert kiroide.FACTS.config.default_path == f"~/.kiro/hooks/{kiroide.HOOKS.name}"


def test_hook_command_entries_run_the_supervisor_and_are_ours_again(tmp_path):
    ctx = _ctx(tmp_path).with_options(hook_command="/opt/sup hook", provider="kirocli")
    operations.install("kirocli", ctx)
    commands = [h["action"]["command"] for h in json.loads(_file(ctx).read_text())["hooks"]]
    assert commands == ["'/opt/sup' 'hook' '--provider' 'kirocli'"] * 2
    operations.install("kirocli", ctx)
    plain = _ctx(tmp_path)  # no flag: the recorded supervisor still makes the file ours
    assert operations.status("kirocli", plain).installed
    operations.uninstall("kirocli", plain)
    assert not _file(ctx).exists()


def test_an_empty_object_of_that_name_is_the_users_and_refused(tmp_path):
    ctx = _ctx(tmp_path)
    data = _write(_file(ctx), "{}\n")
    with pytest.raises(MalformedConfigError, match="holds content Elydora did not write"):
        operations.install("kirocli", ctx)
    assert _file(ctx).read_bytes() == data


def test_dry_run_prints_the_file_and_writes_nothing(tmp_path, capsys):
    ctx = _ctx(tmp_path)
    code = main(["install", "kirocli", "--dry-run", "--root", str(ctx.home), "--repo-root", str(ctx.repo_root)])
    out = capsys.readouterr().out
    assert code == 0
    assert '+  "version": "v1",' in out and "+      \"trigger\": \"PreToolUse\"," in out
    assert not _file(ctx).exists() and not (ctx.home / ".elydora" / "kirocli").exists()


def test_the_guard_blocks_with_exit_2_and_the_reason_on_stderr(tmp_path):
    ctx = make_context(tmp_path)
    operations.install("kirocli", ctx)
    guard = next(e for e in operations.installed_entries("kirocli", ctx) if e.role == "guard")
    assert guard.argv[:2] == ["/bin/sh", "-c"]
    assert run_as_agent(guard.argv, payload("kirocli", "PreToolUse")).returncode == 0
    set_status(ctx, "kirocli", "frozen")
    denied = run_as_agent(guard.argv, payload("kirocli", "PreToolUse"))
    assert denied.returncode == 2 and denied.stdout == b""
    assert denied.stderr.decode().startswith('[Elydora guard] Agent "kirocli" is frozen in Elydora.')


def test_present_when_the_kiro_folder_or_kiro_cli_exists(tmp_path):
    ctx = make_context(tmp_path, {"PATH": str(tmp_path / "bin")})
    assert presence.absence("kirocli", ctx) is not None
    (ctx.home / ".kiro").mkdir()
    assert presence.absence("kirocli", ctx) is None


def test_a_concurrent_writer_of_our_file_aborts_the_install(tmp_path, monkeypatch):
    ctx = make_context(tmp_path)
    before = files_under(ctx.home)
    change_before_commit(monkeypatch, _file(ctx), b'{"version": "v1", "hooks": []}\n')
    with pytest.raises(ConcurrentModificationError):
        operations.install("kirocli", ctx)
    after = files_under(ctx.home)
    assert after.pop(str(_file(ctx))) == b'{"version": "v1", "hooks": []}\n'
    assert after == before
