"""Crush: guard and intent audit on the one PreToolUse event (handlers pinned literally, POSIX on Windows too),
the intent note in status, Crush's own load-time refusals, a concurrent writer, ``verify`` through Crush's protocol."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from elydora_testkit.provider_cases import change_before_commit, files_under, make_context, payload, run_as_agent

from elydora_cli.installer import operations
from elydora_cli.main import main
from elydora_cli.plug.context import Context
from elydora_cli.plug.ownership import Ref
from elydora_cli.providers import crush
from elydora_config.errors import ConcurrentModificationError, MalformedConfigError

GUARD_NAME = "Elydora guard"
AUDIT_NAME = "Elydora audit (records the call before it runs)"


def _file(ctx: Context) -> Path:
    return ctx.home / ".config" / "crush" / "crush.json"


def _write(path: Path, value: object) -> bytes:
    path.parent.mkdir(parents=True, exist_ok=True)
    data = (json.dumps(value, indent=2) + "\n").encode()
    path.write_bytes(data)
    return data


def test_guard_then_audit_on_pre_tool_use(tmp_path: Path) -> None:
    ctx = make_context(tmp_path).with_options(python="/opt/py/bin/python3")
    operations.install("crush", ctx)
    state = f"{ctx.home}/.elydora/crush"
    assert json.loads(_file(ctx).read_text()) == {
        "hooks": {
            "PreToolUse": [
                {"name": GUARD_NAME, "command": f"'/opt/py/bin/python3' '-I' '-S' '{state}/guard.py'", "timeout": 10},
                {"name": AUDIT_NAME, "command": f"'/opt/py/bin/python3' '-I' '-S' '{state}/hook.py'", "timeout": 10},
            ]
        }
    }


def test_windows_entries_keep_the_posix_form_for_the_embedded_shell(tmp_path: Path) -> None:
    ctx = make_context(tmp_path).with_options(python="C:\\Python\\python.exe", windows=True)
    handler = crush.make_handler(Ref("crush", "audit", "C:\\Python\\python.exe", 10), ctx)
    assert handler == {
        "name": AUDIT_NAME,
        "command": f"'C:\\Python\\python.exe' '-I' '-S' '{ctx.home}/.elydora/crush/hook.py'",
        "timeout": 10,
    }


def test_the_file_moves_with_crush_global_config_and_xdg_config_home(tmp_path: Path) -> None:
    ctx = make_context(tmp_path, {"CRUSH_GLOBAL_CONFIG": "/opt/crush", "XDG_CONFIG_HOME": "/xdg"})
    assert crush.sources(ctx).targets[0].path == ctx.home / "opt" / "crush" / "crush.json"
    ctx = make_context(tmp_path, {"XDG_CONFIG_HOME": "/xdg"})
    assert crush.sources(ctx).targets[0].path == ctx.home / "xdg" / "crush" / "crush.json"


def test_on_windows_the_file_is_in_local_app_data(tmp_path: Path) -> None:
    """Crush's Windows default is ``%LOCALAPPDATA%\\crush\\crush.json`` (``XDG_CONFIG_HOME`` still wins)."""
    ctx = make_context(tmp_path, {"LOCALAPPDATA": "/Users/u/AppData/Local"}).with_options(windows=True)
    assert crush.sources(ctx).targets[0].path == ctx.home / "Users/u/AppData/Local/crush/crush.json"
    ctx = make_context(tmp_path).with_options(windows=True)
    assert crush.sources(ctx).targets[0].path == ctx.home / "AppData" / "Local" / "crush" / "crush.json"
    ctx = make_context(tmp_path, {"XDG_CONFIG_HOME": "/xdg"}).with_options(windows=True)
    assert crush.sources(ctx).targets[0].path == ctx.home / "xdg" / "crush" / "crush.json"


def test_on_windows_the_embedded_shell_spawns_the_word_list(tmp_path: Path) -> None:
    """No ``/bin/sh`` there: what Crush's own POSIX shell spawns for our single-quoted words is their argv."""
    ctx = make_context(tmp_path).with_options(windows=True)
    handler = {"command": "'C:\\Py thon\\python.exe' '-I' '-S' 'C:\\h\\it'\"'\"'s\\hook.py'"}
    assert crush.agent_argv(handler, ctx) == ["C:\\Py thon\\python.exe", "-I", "-S", "C:\\h\\it's\\hook.py"]
    assert crush.agent_argv(handler, ctx.with_options(windows=False))[:2] == ["/bin/sh", "-c"]


def test_status_notes_that_the_audit_records_intent(tmp_path: Path) -> None:
    ctx = make_context(tmp_path)
    operations.install("crush", ctx)
    status = operations.status("crush", ctx)
    assert status.healthy
    assert [(f.severity, f.path) for f in status.findings] == [("note", _file(ctx))]
    assert "records each tool call before it runs (its intent), not its result" in status.findings[0].message


def test_status_finds_a_missing_audit(tmp_path: Path) -> None:
    ctx = make_context(tmp_path)
    operations.install("crush", ctx)
    value = json.loads(_file(ctx).read_text())
    value["hooks"]["PreToolUse"].pop()
    _write(_file(ctx), value)
    errors = [f.message for f in operations.status("crush", ctx).findings if f.severity == "error"]
    assert errors == ["no Elydora audit handler for PreToolUse (expected exactly one)"]


def test_uninstall_keeps_the_users_settings_and_hooks_byte_for_byte(tmp_path: Path) -> None:
    ctx = make_context(tmp_path)
    theirs = {"name": "fmt", "matcher": "^edit$", "command": "gofmt -l .", "timeout": 5}
    before = _write(_file(ctx), {"options": {"debug": True}, "hooks": {"PreToolUse": [theirs]}})
    operations.install("crush", ctx)
    operations.install("crush", ctx)
    assert [h["name"] for h in json.loads(_file(ctx).read_text())["hooks"]["PreToolUse"]] == [
        "fmt", GUARD_NAME, AUDIT_NAME
    ]
    operations.uninstall("crush", ctx)
    assert _file(ctx).read_bytes() == before


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ({"hooks": []}, "hooks must be an object"),
        ({"hooks": {"PreToolUse": [{"name": "x"}]}}, "missing the required key 'command'"),
        ({"hooks": {"PreToolUse": [{"command": ""}]}}, "command must be a non-empty string"),
        ({"hooks": {"PreToolUse": [{"command": "x", "timeout": 2.5}]}}, "timeout must be an integer"),
        ({"hooks": {"PreToolUse": [{"command": "x", "matcher": "("}]}}, "matcher is not a valid regex"),
        ({"hooks": {"PreToolUse": [{"command": "x", "matcher": "^(?!bash)"}]}}, "lookaround or backreference"),
    ],
)
def test_what_crush_rejects_at_load_is_refused_untouched(tmp_path: Path, value: object, message: str) -> None:
    ctx = make_context(tmp_path)
    _write(_file(ctx), value)
    before = files_under(ctx.home)
    with pytest.raises(MalformedConfigError) as caught:
        operations.install("crush", ctx)
    assert message in str(caught.value)
    assert files_under(ctx.home) == before


def test_a_concurrent_writer_aborts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ctx = make_context(tmp_path)
    _write(_file(ctx), {"options": {}})
    change_before_commit(monkeypatch, _file(ctx), b'{"options": {"debug": true}}\n')
    with pytest.raises(ConcurrentModificationError):
        operations.install("crush", ctx)
    assert _file(ctx).read_bytes() == b'{"options": {"debug": true}}\n'


def test_the_cli_prints_one_error_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ctx = make_context(tmp_path)
    _file(ctx).parent.mkdir(parents=True)
    _file(ctx).write_text('{"hooks": {"PreToolUse": [{"command": "x"},]}}\n')
    code = main(["install", "crush", "--root", str(ctx.home)])
    err = capsys.readouterr().err.splitlines()
    assert code == 1
    reason = "a trailing comma is not allowed: the file is read as strict JSON; remove it"
    assert err == [f"Error: {_file(ctx)}:1:43: {reason}"]


def test_installed_entries_run_through_a_posix_shell_allow_record_and_block(tmp_path: Path) -> None:
    ctx = make_context(tmp_path).with_options(python=sys.executable)
    operations.install("crush", ctx)
    entries = operations.installed_entries("crush", ctx)
    assert [(e.event, e.role, e.argv[:2]) for e in entries] == [
        ("PreToolUse", "guard", ["/bin/sh", "-c"]),
        ("PreToolUse", "audit", ["/bin/sh", "-c"]),
    ]
    for entry in entries:
        result = run_as_agent(entry.argv, payload("crush", "PreToolUse"))
        assert (result.returncode, result.stdout) == (0, b"")  # no {"decision": "allow"}: Crush's prompt stays
    assert main(["agent", "freeze", "--provider", "crush", "--root", str(ctx.home)]) == 0
    guard = run_as_agent(entries[0].argv, payload("crush", "PreToolUse"))
    assert guard.returncode == 2 and guard.stdout == b""
    assert guard.stderr == b'[Elydora guard] Agent "crush" is frozen in Elydora. Tool execution blocked.\n'


def test_verify_probes_both_entries_of_the_one_event(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = ["--root", str(tmp_path / "home"), "--repo-root", str(tmp_path)]
    (tmp_path / "home").mkdir()
    assert main(["install", "crush", *root]) == 0
    capsys.readouterr()
    assert main(["verify", "crush", "--json", *root]) == 0
    report = json.loads(capsys.readouterr().out)
    assert [(c["event"], c["probe"], c["ok"]) for c in report["checks"]] == [
        ("PreToolUse", "allow", True),
        ("PreToolUse", "block", True),
        ("PreToolUse", "audit", True),
    ]


def test_a_supervisor_gets_one_entry_that_gates_and_records(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Crush runs two entries of one command line once, and the supervisor spools every event it gates."""
    home = tmp_path / "home"
    home.mkdir()
    script = tmp_path / "bin" / "supervisor"
    script.parent.mkdir()
    script.write_text(f'#!/bin/sh\nexec {sys.executable} -m elydora_cli "$@"\n')
    script.chmod(0o755)
    command = f"{script} hook --state-root {home}"
    root = ["--root", str(home), "--repo-root", str(tmp_path)]
    assert main(["install", "crush", "--hook-command", command, *root]) == 0
    handlers = json.loads((home / ".config" / "crush" / "crush.json").read_text())["hooks"]["PreToolUse"]
    words = f"'{script}' 'hook' '--state-root' '{home}' '--provider' 'crush'"
    assert handlers == [{"name": GUARD_NAME, "command": words, "timeout": 10}]
    capsys.readouterr()
    assert main(["verify", "crush", "--json", *root]) == 0
    report = json.loads(capsys.readouterr().out)
    assert [(c["event"], c["probe"], c["ok"]) for c in report["checks"]] == [
        ("PreToolUse", "allow", True),
        ("PreToolUse", "block", True),
    ]
    assert main(["uninstall", "crush", *root]) == 0
    assert not (home / ".config" / "crush" / "crush.json").exists()


def test_install_all_finds_crush_by_its_own_folder_not_by_dot_config(tmp_path: Path) -> None:
    from elydora_cli import presence

    ctx = make_context(tmp_path, {"PATH": str(tmp_path / "no-bin")})
    (ctx.home / ".config" / "other-tool").mkdir(parents=True)
    assert presence.absence("crush", ctx) == (
        f"not found: no {ctx.home / '.config' / 'crush'} and no `crush` on PATH"
        " (name it, or use --every, to install anyway)"
    )
    (ctx.home / ".config" / "crush").mkdir()
    assert presence.absence("crush", ctx) is None
