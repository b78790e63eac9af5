"""Cursor: handler shape, the version key and version-less migration, older entries, fail-closed runtime."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from elydora_testkit.provider_cases import files_under, make_context, payload, run_as_agent, set_status, shell_argv

from elydora_cli.installer import operations
from elydora_cli.plug.context import Context
from elydora_cli.plug.ownership import Ref
from elydora_cli.providers import cursor
from elydora_config.errors import MalformedConfigError


def _ctx(tmp_path: Path, python: str = sys.executable) -> Context:
    return make_context(tmp_path).with_options(python=python)


def _file(ctx: Context) -> Path:
    return ctx.home / ".cursor" / "hooks.json"


def _write(path: Path, value: object) -> bytes:
    path.parent.mkdir(parents=True, exist_ok=True)
    data = (json.dumps(value, indent=2) + "\n").encode()
    path.write_bytes(data)
    return data


def _script(ctx: Context, name: str) -> str:
    return f"{ctx.elydora_dir}/cursor/{name}"


def test_installs_fail_closed_handlers_in_seconds(tmp_path):
    ctx = _ctx(tmp_path, python="/opt/py/bin/python3")
    operations.install("cursor", ctx)
    state = f"{ctx.home}/.elydora/cursor"
    guard = {"command": f"'/opt/py/bin/python3' '-I' '-S' '{state}/guard.py'", "timeout": 10, "failClosed": True}
    audit = {"command": f"'/opt/py/bin/python3' '-I' '-S' '{state}/hook.py'", "timeout": 10, "failClosed": True}
    assert json.loads(_file(ctx).read_text()) == {
        "version": 1,
        "hooks": {"preToolUse": [guard], "postToolUse": [audit], "postToolUseFailure": [audit]},
    }


def test_windows_uses_the_powershell_call_operator(tmp_path):
    ctx = _ctx(tmp_path, python="C:\\Python\\python.exe").with_options(windows=True)
    handler = cursor.make_handler(Ref("cursor", "guard", "C:\\Python\\python.exe", 10), ctx)
    assert handler == {
        "command": f"& 'C:\\Python\\python.exe' '-I' '-S' '{ctx.home}/.elydora/cursor/guard.py'; exit $LASTEXITCODE",
        "timeout": 10,
        "failClosed": True,
    }


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ({"hooks": {"preToolUse": [{"command": "user"}]}}, 'has no "version": 1'),
        ({"version": "1", "hooks": {}}, 'version must be 1, not "1"'),
        ({"version": 1.0, "hooks": {}}, "version must be 1, not 1.0"),
        ({"version": 1, "hooks": []}, "hooks must be an object"),
        ({"version": 1, "hooks": {"preToolUse": ["echo"]}}, "hooks.preToolUse[0] must be an object"),
    ],
)
def test_refusals_leave_the_file_untouched(tmp_path, value, message):
    ctx = _ctx(tmp_path)
    _write(_file(ctx), value)
    before = files_under(ctx.home)
    with pytest.raises(MalformedConfigError) as caught:
        operations.install("cursor", ctx)
    assert message in str(caught.value)
    assert files_under(ctx.home) == before


def test_unknown_events_and_handler_fields_are_kept(tmp_path):
    ctx = _ctx(tmp_path)
    user = {"version": 1, "hooks": {"afterFileEdit": [{"command": "fmt", "anything": [1]}]}}
    _write(_file(ctx), user)
    operations.install("cursor", ctx)
    assert json.loads(_file(ctx).read_text())["hooks"]["afterFileEdit"] == user["hooks"]["afterFileEdit"]


def test_a_version_less_elydora_file_is_migrated_and_deleted_on_uninstall(tmp_path):
    ctx = _ctx(tmp_path)
    _write(_file(ctx), {"hooks": {"preToolUse": [{"command": _script(ctx, "guard.py")}]}})
    operations.install("cursor", ctx)
    assert list(json.loads(_file(ctx).read_text())) == ["hooks", "version"]
    operations.uninstall("cursor", ctx)
    assert not _file(ctx).exists()


def test_uninstall_stamps_the_version_on_a_version_less_file_it_keeps(tmp_path):
    ctx = _ctx(tmp_path)
    old = {"command": f'"/usr/bin/python3" {_script(ctx, "hook.py")}'}
    _write(_file(ctx), {"hooks": {"postToolUse": [old, {"command": "user"}]}})
    operations.uninstall("cursor", ctx)
    assert json.loads(_file(ctx).read_text()) == {"hooks": {"postToolUse": [{"command": "user"}]}, "version": 1}


OLDER = [
    {"command": '"/usr/bin/python3" {guard}'},
    {"command": "{guard}"},
    {"command": "'/usr/bin/python3.12' '{guard}'", "timeout": 10, "failClosed": True},
    {"command": "& '/usr/bin/python3' '{guard}'; exit $LASTEXITCODE", "timeout": 10, "failClosed": True},
]
LOOK_ALIKES = [
    {"command": '"/usr/bin/node" {guard}'},
    {"command": '"/usr/bin/python3" {guard} --fast'},
    {"command": "'/usr/bin/python3' '{guard}'", "timeout": 10},
    {"command": "'/usr/bin/python3' '{guard}'", "timeout": 10, "failClosed": False},
    {"command": "'/usr/bin/python3' '{guard}'", "timeout": 10.5, "failClosed": True},
    {"command": "{guard}", "type": "command"},
]


def _filled(ctx: Context, handler: dict[str, object]) -> dict[str, object]:
    return {k: v.format(guard=_script(ctx, "guard.py")) if isinstance(v, str) else v for k, v in handler.items()}


@pytest.mark.parametrize("handler", OLDER)
def test_older_entries_are_replaced(tmp_path, handler):
    ctx = _ctx(tmp_path)
    old = _filled(ctx, handler)
    _write(_file(ctx), {"version": 1, "hooks": {"preToolUse": [old]}})
    operations.install("cursor", ctx)
    assert old not in json.loads(_file(ctx).read_text())["hooks"]["preToolUse"]
    assert operations.status("cursor", ctx).healthy


@pytest.mark.parametrize("handler", LOOK_ALIKES)
def test_look_alikes_are_the_users(tmp_path, handler):
    ctx = _ctx(tmp_path)
    old = _filled(ctx, handler)
    _write(_file(ctx), {"version": 1, "hooks": {"preToolUse": [old]}})
    operations.install("cursor", ctx)
    operations.uninstall("cursor", ctx)
    assert json.loads(_file(ctx).read_text()) == {"version": 1, "hooks": {"preToolUse": [old]}}


def test_a_version_less_file_with_only_look_alikes_is_refused(tmp_path):
    ctx = _ctx(tmp_path)
    _write(_file(ctx), {"hooks": {"preToolUse": [_filled(ctx, LOOK_ALIKES[0])]}})
    with pytest.raises(MalformedConfigError):
        operations.install("cursor", ctx)


def test_status_names_a_handler_that_lost_fail_closed(tmp_path):
    ctx = _ctx(tmp_path)
    operations.install("cursor", ctx)
    value = json.loads(_file(ctx).read_text())
    value["hooks"]["postToolUse"][0]["failClosed"] = False
    _write(_file(ctx), value)
    assert [f.render() for f in operations.status("cursor", ctx).findings] == [
        f"{_file(ctx)}: no Elydora audit handler for postToolUse (expected exactly one)"
    ]


def test_the_runtime_answers_in_permission_json_and_fails_closed(tmp_path):
    ctx = _ctx(tmp_path)
    operations.install("cursor", ctx)
    hooks = json.loads(_file(ctx).read_text())["hooks"]
    guard, audit = shell_argv(hooks["preToolUse"][0]["command"]), shell_argv(hooks["postToolUse"][0]["command"])
    allowed = run_as_agent(guard, payload("cursor", "preToolUse"))
    assert (allowed.returncode, allowed.stdout) == (0, b'{"permission":"allow"}\n')
    for argv in (guard, audit):
        failed = run_as_agent(argv, b"[not an object")
        assert (failed.returncode, failed.stdout) == (1, b"")
    set_status(ctx, "cursor", "revoked")
    denied = run_as_agent(guard, payload("cursor", "preToolUse"))
    assert denied.returncode == 2
    assert json.loads(denied.stdout) == {
        "permission": "deny",
        "userMessage": 'Agent "cursor" is revoked in Elydora.',
        "agentMessage": 'Agent "cursor" is revoked in Elydora. Tool execution is blocked.',
    }
