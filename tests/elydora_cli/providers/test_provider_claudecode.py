"""Claude Code specifics: the exact exec-form handler, pinned literally, its migration, and the switch that
refuses."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from elydora_testkit.provider_cases import make_context

from elydora_cli.installer import operations
from elydora_cli.plug.common import RefusedError
from elydora_cli.plug.context import Context
from elydora_config.errors import MalformedConfigError


def _settings(ctx: Context) -> Path:
    return ctx.home / ".claude" / "settings.json"


def _handler(ctx: Context, script: str, message: str) -> dict[str, object]:
    """The launcher alone (it starts through its ``#!`` line), exec form with no arguments."""
    path = str(ctx.home / ".elydora" / "claudecode" / script)
    return {"type": "command", "command": path, "args": [], "timeout": 10, "statusMessage": message}


def _interpreter_handler(ctx: Context, python: str, script: str, message: str) -> dict[str, object]:
    path = str(ctx.home / ".elydora" / "claudecode" / script)
    return {"type": "command", "command": python, "args": ["-I", "-S", path], "timeout": 10,
            "statusMessage": message}  # fmt: skip


def test_handler_shape_is_pinned(tmp_path: Path) -> None:
    ctx = make_context(tmp_path)
    operations.install("claudecode", ctx)
    guard = _handler(ctx, "guard.py", "Checking Elydora agent state")
    audit = _handler(ctx, "hook.py", "Recording Elydora tool use")
    assert json.loads(_settings(ctx).read_text()) == {
        "hooks": {
            "PreToolUse": [{"hooks": [guard]}],
            "PostToolUse": [{"hooks": [audit]}],
            "PostToolUseFailure": [{"hooks": [audit]}],
        }
    }
    assert operations.status("claudecode", ctx).healthy


def test_disable_all_hooks_refuses_the_install(tmp_path: Path) -> None:
    ctx = make_context(tmp_path)
    _settings(ctx).parent.mkdir(parents=True)
    _settings(ctx).write_text('{"disableAllHooks": true}\n')
    with pytest.raises(RefusedError) as refused:
        operations.install("claudecode", ctx)
    assert "disableAllHooks: true" in refused.value.reason and refused.value.path == str(_settings(ctx))
    assert _settings(ctx).read_text() == '{"disableAllHooks": true}\n' and not ctx.agent_dir("claudecode").exists()


def test_a_mistyped_switch_is_refused(tmp_path: Path) -> None:
    ctx = make_context(tmp_path)
    _settings(ctx).parent.mkdir(parents=True)
    _settings(ctx).write_text('{"disableAllHooks": "yes"}\n')
    with pytest.raises(MalformedConfigError) as malformed:
        operations.install("claudecode", ctx)
    assert "disableAllHooks" in malformed.value.reason


def test_the_interpreter_exec_form_of_earlier_installs_is_migrated(tmp_path: Path) -> None:
    ctx = make_context(tmp_path)
    old_guard = _interpreter_handler(ctx, sys.executable, "guard.py", "Checking Elydora agent state")
    old_audit = _interpreter_handler(ctx, sys.executable, "hook.py", "Recording Elydora tool use")
    _settings(ctx).parent.mkdir(parents=True)
    old = {"PreToolUse": [{"hooks": [old_guard]}], "PostToolUse": [{"hooks": [old_audit]}]}
    _settings(ctx).write_text(json.dumps({"hooks": old}))
    operations.install("claudecode", ctx)
    hooks = json.loads(_settings(ctx).read_text())["hooks"]
    assert hooks["PreToolUse"] == [{"hooks": [_handler(ctx, "guard.py", "Checking Elydora agent state")]}]
    assert hooks["PostToolUse"] == [{"hooks": [_handler(ctx, "hook.py", "Recording Elydora tool use")]}]
    operations.uninstall("claudecode", ctx)
    assert ".elydora" not in _settings(ctx).read_text()


def test_an_interpreter_without_a_usable_shebang_keeps_the_interpreter_form(tmp_path: Path) -> None:
    python = str(tmp_path / "py thon" / "python3")  # whitespace: no #! line can name it
    Path(python).parent.mkdir()
    Path(python).symlink_to(sys.executable)
    ctx = make_context(tmp_path).with_options(python=python)
    operations.install("claudecode", ctx)
    hooks = json.loads(_settings(ctx).read_text())["hooks"]
    guard = _interpreter_handler(ctx, python, "guard.py", "Checking Elydora agent state")
    assert hooks["PreToolUse"] == [{"hooks": [guard]}]
    assert operations.status("claudecode", ctx).healthy


@pytest.mark.parametrize("name", ["st ate", "st$ate", "st'ate"])
def test_a_state_path_a_shell_would_interpret_keeps_the_interpreter_form(tmp_path: Path, name: str) -> None:
    ctx = make_context(tmp_path).with_options(state_root=tmp_path / name)
    operations.install("claudecode", ctx)
    [guard] = json.loads(_settings(ctx).read_text())["hooks"]["PreToolUse"][0]["hooks"]
    assert guard["command"] == sys.executable and guard["args"][:2] == ["-I", "-S"]


def test_a_non_ascii_state_path_still_gets_the_launcher_alone(tmp_path: Path) -> None:
    ctx = make_context(tmp_path).with_options(state_root=tmp_path / "josé")
    operations.install("claudecode", ctx)
    [guard] = json.loads(_settings(ctx).read_text())["hooks"]["PreToolUse"][0]["hooks"]
    assert guard["args"] == [] and guard["command"].endswith("/.elydora/claudecode/guard.py")


@pytest.mark.parametrize("blank", ["", "\n", "  \r\n\t\n"])
def test_a_blank_settings_file_is_read_as_claude_code_reads_it(tmp_path: Path, blank: str) -> None:
    # Claude Code's loader reads a settings file that holds only whitespace as no settings (not an error), so
    # install fills it, status sees our hooks, and uninstall leaves the user's file in place
    ctx = make_context(tmp_path)
    _settings(ctx).parent.mkdir(parents=True)
    _settings(ctx).write_bytes(blank.encode())
    project = ctx.repo_root / ".claude" / "settings.json"
    project.parent.mkdir(parents=True, exist_ok=True)
    project.write_bytes(blank.encode())  # a blank project file (read only) is no settings either
    operations.install("claudecode", ctx)
    assert set(json.loads(_settings(ctx).read_text())["hooks"]) == {"PreToolUse", "PostToolUse", "PostToolUseFailure"}
    assert operations.status("claudecode", ctx).healthy
    assert project.read_bytes() == blank.encode()


def test_a_comment_in_the_settings_names_the_dialect_and_the_remedy(tmp_path: Path) -> None:
    ctx = make_context(tmp_path)
    _settings(ctx).parent.mkdir(parents=True)
    _settings(ctx).write_text("// my settings\n{}\n")  # Claude Code's settings are strict JSON: it refuses this too
    with pytest.raises(MalformedConfigError) as caught:
        operations.install("claudecode", ctx)
    assert caught.value.message == "a comment is not allowed: the file is read as strict JSON; remove it"
    assert "STRICT_JSON" not in str(caught.value)
    assert _settings(ctx).read_text() == "// my settings\n{}\n"
