"""Qoder CLI: the exec-form handler pinned literally, disableAllHooks across the three layers, refusals,
concurrent writers of the target and of the read-only project layers, the CLI's one ``Error:`` line."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from elydora_testkit.provider_cases import change_before_commit, expect_switch, files_under, make_context

from elydora_cli.installer import operations
from elydora_cli.main import main
from elydora_cli.plug.common import RefusedError
from elydora_cli.plug.context import Context
from elydora_cli.plug.ownership import Ref
from elydora_cli.providers import qoder
from elydora_config.errors import ConcurrentModificationError, MalformedConfigError


def _ctx(tmp_path: Path, **env: str) -> Context:
    return make_context(tmp_path, env).with_options(python="/opt/py/bin/python3")


def _user(ctx: Context) -> Path:
    return ctx.home / ".qoder" / "settings.json"


def _write(path: Path, value: object) -> bytes:
    path.parent.mkdir(parents=True, exist_ok=True)
    data = (json.dumps(value, indent=2) + "\n").encode()
    path.write_bytes(data)
    return data


def test_installs_exec_form_handlers_in_seconds(tmp_path: Path) -> None:
    ctx = _ctx(tmp_path)
    operations.install("qoder", ctx)
    state = f"{ctx.home}/.elydora/qoder"
    py = "/opt/py/bin/python3"
    guard = {"type": "command", "command": py, "args": ["-I", "-S", f"{state}/guard.py"], "timeout": 10}
    audit = {"type": "command", "command": py, "args": ["-I", "-S", f"{state}/hook.py"], "timeout": 10}
    assert json.loads(_user(ctx).read_text()) == {
        "hooks": {
            "PreToolUse": [{"hooks": [guard]}],
            "PostToolUse": [{"hooks": [audit]}],
            "PostToolUseFailure": [{"hooks": [audit]}],
        }
    }


def test_the_exec_form_needs_no_shell_on_windows_either(tmp_path: Path) -> None:
    ctx = make_context(tmp_path).with_options(python="C:\\Python\\python.exe", windows=True)
    handler = qoder.make_handler(Ref("qoder", "audit", "C:\\Python\\python.exe", 10), ctx)
    assert handler == {
        "type": "command",
        "command": "C:\\Python\\python.exe",
        "args": ["-I", "-S", f"{ctx.home}/.elydora/qoder/hook.py"],
        "timeout": 10,
    }


def test_qoder_config_dir_moves_the_user_file(tmp_path: Path) -> None:
    ctx = make_context(tmp_path, {"QODER_CONFIG_DIR": "/etc/qoder-profile"})
    operations.install("qoder", ctx)
    assert (ctx.home / "etc" / "qoder-profile" / "settings.json").is_file()
    assert not _user(ctx).exists()


def test_an_empty_qoder_config_dir_is_refused(tmp_path: Path) -> None:
    ctx = make_context(tmp_path, {"QODER_CONFIG_DIR": ""})
    with pytest.raises(RefusedError, match="QODER_CONFIG_DIR is set but empty"):
        operations.install("qoder", ctx)


@pytest.mark.parametrize(
    ("user", "project", "local", "refused_by"),
    [
        (None, None, None, None),
        (True, None, None, "user"),
        (None, True, None, "project"),
        (None, None, True, "local"),
        (True, False, None, None),  # the project layer overrides the user's switch
        (None, True, False, None),  # and the project-local layer overrides both
        (False, False, True, "local"),
    ],
)
def test_disable_all_hooks_last_layer_decides(tmp_path: Path, user, project, local, refused_by) -> None:
    ctx = make_context(tmp_path)
    paths = {
        "user": _user(ctx),
        "project": ctx.repo_root / ".qoder" / "settings.json",
        "local": ctx.repo_root / ".qoder" / "settings.local.json",
    }
    for name, value in (("user", user), ("project", project), ("local", local)):
        if value is not None:
            _write(paths[name], {"disableAllHooks": value})
    expect_switch("qoder", ctx, paths[refused_by] if refused_by else None, ctx.home, ctx.repo_root)


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ({"hooks": []}, "hooks must be an object"),
        ({"hooks": {"PreToolUse": {}}}, "hooks.PreToolUse must be an array"),
        ({"hooks": {"PreToolUse": [{"hooks": [{"type": "command"}]}]}}, "missing the required key 'command'"),
        ({"hooks": {"PreToolUse": [{"hooks": [{"type": "exec", "command": "x"}]}]}}, "type must be one of"),
        ({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "x", "timeout": "5"}]}]}}, "timeout must be"),
        ({"hooks": {"PreToolUse": [{"matcher": 1, "hooks": []}]}}, "matcher must be a string"),
        ({"disableAllHooks": "yes"}, "disableAllHooks must be true or false"),
    ],
)
def test_malformed_settings_are_refused_untouched(tmp_path: Path, value: object, message: str) -> None:
    ctx = _ctx(tmp_path)
    _write(_user(ctx), value)
    before = files_under(ctx.home, ctx.repo_root)
    with pytest.raises(MalformedConfigError) as caught:
        operations.install("qoder", ctx)
    assert message in str(caught.value)
    assert files_under(ctx.home, ctx.repo_root) == before


def test_a_malformed_project_layer_is_refused(tmp_path: Path) -> None:
    ctx = _ctx(tmp_path)
    (ctx.repo_root / ".qoder").mkdir()
    (ctx.repo_root / ".qoder" / "settings.local.json").write_text('{"disableAllHooks": tru}\n')
    before = files_under(ctx.home, ctx.repo_root)
    with pytest.raises(MalformedConfigError):
        operations.install("qoder", ctx)
    assert files_under(ctx.home, ctx.repo_root) == before


@pytest.mark.parametrize("which", ["user", "project-local"])
def test_a_concurrent_writer_aborts_the_install(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, which: str) -> None:
    ctx = _ctx(tmp_path)
    user_bytes = _write(_user(ctx), {"theme": "dark"})
    target = _user(ctx) if which == "user" else ctx.repo_root / ".qoder" / "settings.local.json"
    change_before_commit(monkeypatch, target, b'{"theme": "light"}\n')
    with pytest.raises(ConcurrentModificationError):
        operations.install("qoder", ctx)
    if which != "user":
        assert _user(ctx).read_bytes() == user_bytes
    assert not (ctx.elydora_dir / "qoder").exists()


def test_the_cli_prints_one_error_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ctx = make_context(tmp_path)
    _user(ctx).parent.mkdir(parents=True)
    _user(ctx).write_text('{"hooks": {"PreToolUse": [1]}}\n')
    code = main(["install", "qoder", "--root", str(ctx.home), "--repo-root", str(ctx.repo_root)])
    err = capsys.readouterr().err.splitlines()
    assert code == 1
    assert err == [f"Error: {_user(ctx)}: hooks.PreToolUse[0] must be an object"]


def test_status_names_the_layer_that_disabled_hooks(tmp_path: Path) -> None:
    ctx = make_context(tmp_path).with_options(python=sys.executable)
    operations.install("qoder", ctx)
    _write(ctx.repo_root / ".qoder" / "settings.json", {"disableAllHooks": True})
    status = operations.status("qoder", ctx)
    assert not status.healthy
    project = ctx.repo_root / ".qoder" / "settings.json"
    assert [f.render() for f in status.findings] == [
        f"{project}: Qoder CLI runs none of our hooks: disableAllHooks is true here; remove it"
    ]


def test_the_folder_name_variable_moves_the_user_and_project_files(tmp_path: Path) -> None:
    """Qoder 1.1.52 with ``QODER_CONFIG_DIR_NAME=.qalt`` runs the hooks of ``~/.qalt/settings.json`` (checked with
    the real CLI, docs/e2e.md): a hook installed into ``~/.qoder`` would never run while status said healthy."""
    ctx = _ctx(tmp_path, QODER_CONFIG_DIR_NAME=".qalt")
    _write(ctx.repo_root / ".qalt" / "settings.json", {"disableAllHooks": True})
    with pytest.raises(RefusedError, match="disableAllHooks"):
        operations.install("qoder", ctx)
    _write(ctx.repo_root / ".qalt" / "settings.json", {})
    operations.install("qoder", ctx)
    settings = json.loads((ctx.home / ".qalt" / "settings.json").read_text())
    assert set(settings["hooks"]) == {"PreToolUse", "PostToolUse", "PostToolUseFailure"}
    assert not _user(ctx).exists()


def test_qoder_cli_home_holds_the_named_folder_and_yields_to_qoder_config_dir(tmp_path: Path) -> None:
    ctx = _ctx(tmp_path, QODER_CLI_HOME="/srv/qoder-home", QODER_CONFIG_DIR_NAME="profile")
    assert qoder.config_dir(ctx) == ctx.home / "srv" / "qoder-home" / "profile"
    default_name = _ctx(tmp_path, QODER_CLI_HOME="/srv/qoder-home")
    assert qoder.config_dir(default_name) == ctx.home / "srv" / "qoder-home" / ".qoder"
    both = _ctx(tmp_path, QODER_CLI_HOME="/srv/qoder-home", QODER_CONFIG_DIR="/etc/qoder-profile")
    assert qoder.config_dir(both) == ctx.home / "etc" / "qoder-profile"
    assert qoder.config_dir(_ctx(tmp_path, QODER_CONFIG_DIR_NAME="")) == _user(ctx).parent


@pytest.mark.parametrize("name", ["a/b", "abc.", " abc", ".git", "Node_Modules", "x" * 65])
def test_a_folder_name_qoder_refuses_is_refused(tmp_path: Path, name: str) -> None:
    ctx = _ctx(tmp_path, QODER_CONFIG_DIR_NAME=name)
    with pytest.raises(RefusedError, match="QODER_CONFIG_DIR_NAME"):
        operations.install("qoder", ctx)
    assert not (ctx.home / ".qoder").exists()
