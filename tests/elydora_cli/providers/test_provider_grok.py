"""Grok Build: handler shape, GROK_HOME, the group rules, older entries, the decision JSON."""

from __future__ import annotations

import base64
import json
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from elydora_testkit.provider_cases import files_under, make_context, payload, run_as_agent, set_status, shell_argv

from elydora_cli.installer import operations
from elydora_cli.plug.common import RefusedError
from elydora_cli.plug.context import Context
from elydora_cli.plug.ownership import Ref
from elydora_cli.providers import grok
from elydora_config.errors import MalformedConfigError


def _ctx(tmp_path: Path, env: dict[str, str] | None = None, python: str = sys.executable) -> Context:
    return make_context(tmp_path, env).with_options(python=python)


def _file(ctx: Context) -> Path:
    return ctx.home / ".grok" / "hooks" / "elydora-audit.json"


def _write(path: Path, value: object) -> bytes:
    path.parent.mkdir(parents=True, exist_ok=True)
    data = (json.dumps(value, indent=2) + "\n").encode()
    path.write_bytes(data)
    return data


def _script(ctx: Context, name: str) -> str:
    return f"{ctx.elydora_dir}/grok/{name}"


def test_installs_groups_without_matcher(tmp_path):
    ctx = _ctx(tmp_path, python="/opt/py/bin/python3")
    operations.install("grok", ctx)
    state = f"{ctx.home}/.elydora/grok"

    def group(script: str) -> dict[str, object]:
        command = f"'/opt/py/bin/python3' '-I' '-S' '{state}/{script}'"
        return {"hooks": [{"type": "command", "command": command, "timeout": 10}]}

    assert json.loads(_file(ctx).read_text()) == {
        "hooks": {
            "PreToolUse": [group("guard.py")],
            "PostToolUse": [group("hook.py")],
            "PostToolUseFailure": [group("hook.py")],
        }
    }
    assert _file(ctx).read_text().startswith('{\n  "hooks": {\n    "PreToolUse": [\n')
    operations.uninstall("grok", ctx)
    assert not _file(ctx).exists()


def test_windows_uses_encoded_powershell(tmp_path):
    ctx = _ctx(tmp_path).with_options(windows=True, env={"SystemRoot": "D:\\Win"})
    handler = grok.make_handler(Ref("grok", "guard", "C:\\Py\\python.exe", 10), ctx)
    call = f"& 'C:\\Py\\python.exe' '-I' '-S' '{ctx.home}/.elydora/grok/guard.py'; exit $LASTEXITCODE"
    encoded = base64.b64encode(call.encode("utf-16-le")).decode()
    exe = '"D:\\Win\\System32\\WindowsPowerShell\\v1.0\\powershell.exe"'
    assert handler == {
        "type": "command",
        "command": f"{exe} -NoLogo -NoProfile -NonInteractive -EncodedCommand {encoded}",
        "timeout": 10,
    }


@pytest.mark.parametrize(
    ("value", "where"),
    [
        (None, ".grok/hooks/elydora-audit.json"),
        ("/srv/grok", "srv/grok/hooks/elydora-audit.json"),  # absolute: below --root
        ("g", "../work/g/hooks/elydora-audit.json"),  # relative: to the project (cwd)
    ],
)
def test_grok_home(tmp_path, value, where):
    ctx = _ctx(tmp_path, {} if value is None else {"GROK_HOME": value})
    assert [t.path.resolve() for t in grok.sources(ctx).targets] == [(ctx.home / where).resolve()]


def test_an_empty_grok_home_is_refused_and_nothing_is_written(tmp_path):
    ctx = _ctx(tmp_path, {"GROK_HOME": ""})
    for operation in (operations.install, operations.uninstall):
        with pytest.raises(RefusedError) as refused:
            operation("grok", ctx)
        assert "GROK_HOME is set but empty" in str(refused.value)
    with pytest.raises(RefusedError):
        operations.status("grok", ctx)
    assert files_under(ctx.home) == {}


def _cmd(command: str, timeout: object = 5) -> dict[str, object]:
    return {"type": "command", "command": command, "timeout": timeout}


@pytest.mark.parametrize(
    ("hooks", "message"),
    [
        ({"SessionStart": [{"matcher": "x", "hooks": []}]}, "SessionStart[0].matcher must be absent"),
        ({"Stop": [{"matcher": "", "hooks": []}]}, "Stop[0].matcher must be absent"),
        ({"PreToolUse": [{"matcher": 1, "hooks": []}]}, "matcher must be a string"),
        ({"PreToolUse": [{"hooks": [_cmd("x", 1.5)]}]}, "timeout must be a non-negative integer"),
        ({"PreToolUse": [{"hooks": [_cmd("x", -1)]}]}, "timeout must be a non-negative integer"),
        ({"PreToolUse": [{"hooks": [_cmd("")]}]}, "command must be a non-empty string"),
        ({"PreToolUse": [{"hooks": [{"command": "x"}]}]}, "type must be one of 'command', 'http'"),
        ({"PreToolUse": [{"hooks": [{"type": "http"}]}]}, "missing the required key 'url'"),
        ({"PreToolUse": [{"hooks": [{**_cmd("x"), "env": ["A=1"]}]}]}, "env must be null or a map of strings"),
        ({"PreToolUse": [{"hooks": {}}]}, "hooks must be an array"),
    ],
)
def test_schema_refusals_leave_the_file_untouched(tmp_path, hooks, message):
    ctx = _ctx(tmp_path)
    _write(_file(ctx), {"hooks": hooks})
    before = files_under(ctx.home)
    with pytest.raises(MalformedConfigError) as caught:
        operations.install("grok", ctx)
    assert message in str(caught.value)
    assert files_under(ctx.home) == before


def test_accepted_user_entries_are_kept(tmp_path):
    ctx = _ctx(tmp_path)
    hooks = {
        "SessionStart": [{"hooks": [{"type": "http", "url": "https://x.test", "timeout": 0}], "label": "kept"}],
        "CustomEvent": [{"matcher": "", "hooks": [{**_cmd("x"), "env": None, "note": "unknown keys are kept"}]}],
        "PreToolUse": [{"matcher": "Bash", "hooks": [{**_cmd("y"), "env": {"A": "1"}}]}],
    }
    _write(_file(ctx), {"schemaVersion": 1, "hooks": hooks})
    operations.install("grok", ctx)
    value = json.loads(_file(ctx).read_text())
    assert value["hooks"]["SessionStart"] == hooks["SessionStart"]
    assert value["hooks"]["CustomEvent"] == hooks["CustomEvent"]
    assert value["hooks"]["PreToolUse"][0] == hooks["PreToolUse"][0]


def test_groups_of_another_shape_are_never_touched(tmp_path):
    ctx = _ctx(tmp_path)
    operations.install("grok", ctx)
    ours = json.loads(_file(ctx).read_text())["hooks"]["PreToolUse"][0]["hooks"][0]
    theirs = [{"matcher": "Bash", "hooks": [ours]}, {"hooks": [ours], "label": "moved by the user"}]
    _write(_file(ctx), {"hooks": {"PreToolUse": theirs}})
    operations.install("grok", ctx)
    assert json.loads(_file(ctx).read_text())["hooks"]["PreToolUse"] == [*theirs, {"hooks": [ours]}]
    assert operations.status("grok", ctx).healthy
    operations.uninstall("grok", ctx)
    assert json.loads(_file(ctx).read_text()) == {"hooks": {"PreToolUse": theirs}}


def _older(ctx: Context, render: str) -> str:
    pair = ["/usr/bin/python3", _script(ctx, "guard.py")]
    call = f"& '{pair[0]}' '{pair[1]}'; exit $LASTEXITCODE"
    encoded = base64.b64encode(call.encode("utf-16-le")).decode()
    ps = '"C:\\Windows\\System32\\WindowsPowerShell\\v1.0\\powershell.exe"'
    return {
        "posix": f"'{pair[0]}' '{pair[1]}'",
        "joined": shlex.join(pair),
        "msvc": subprocess.list2cmdline(pair),
        "encoded": f"{ps} -NoLogo -NoProfile -NonInteractive -EncodedCommand {encoded}",
        "extra-argument": f"'{pair[0]}' '-u' '{pair[1]}'",
        "node": f"'/usr/bin/node' '{pair[1]}'",
        "bare": pair[1],
    }[render]


@pytest.mark.parametrize(
    ("render", "timeout", "ours"),
    [
        ("posix", 10, True),
        ("joined", 10, True),
        ("msvc", 30, True),
        ("encoded", 10, True),
        ("extra-argument", 10, False),
        ("node", 10, False),
        ("bare", 10, False),
    ],
)
def test_older_entries_are_migrated_and_look_alikes_kept(tmp_path, render, timeout, ours):
    ctx = _ctx(tmp_path)
    old = {"hooks": [_cmd(_older(ctx, render), timeout)]}
    _write(_file(ctx), {"hooks": {"PreToolUse": [old]}})
    operations.install("grok", ctx)
    assert (old not in json.loads(_file(ctx).read_text())["hooks"]["PreToolUse"]) is ours
    operations.uninstall("grok", ctx)
    assert _file(ctx).exists() is not ours


def test_an_older_entry_with_an_extra_key_is_the_users(tmp_path):
    ctx = _ctx(tmp_path)
    old = {"hooks": [{**_cmd(_older(ctx, "posix"), 10), "statusMessage": "mine"}]}
    data = _write(_file(ctx), {"hooks": {"PreToolUse": [old]}})
    operations.install("grok", ctx)
    operations.uninstall("grok", ctx)
    assert _file(ctx).read_bytes() == data


def test_status_finds_a_changed_timeout(tmp_path):
    ctx = _ctx(tmp_path)
    operations.install("grok", ctx)
    value = json.loads(_file(ctx).read_text())
    value["hooks"]["PostToolUseFailure"][0]["hooks"][0]["timeout"] = 3
    _write(_file(ctx), value)
    assert [f.render() for f in operations.status("grok", ctx).findings] == [
        f"{_file(ctx)}: PostToolUseFailure: installed with a timeout of 3 s, expected 10 s; "
        "pass --hook-timeout-seconds 3 or reinstall"
    ]


def test_the_guard_denies_with_a_decision_and_fails_open(tmp_path):
    ctx = _ctx(tmp_path)
    operations.install("grok", ctx)
    guard = shell_argv(json.loads(_file(ctx).read_text())["hooks"]["PreToolUse"][0]["hooks"][0]["command"])
    assert run_as_agent(guard, b"garbage").returncode == 0
    set_status(ctx, "grok", "revoked")
    denied = run_as_agent(guard, payload("grok", "PreToolUse"))
    assert denied.returncode == 2
    assert denied.stdout == b'{"decision":"deny","reason":"Agent \\"grok\\" is revoked in Elydora."}\n'
