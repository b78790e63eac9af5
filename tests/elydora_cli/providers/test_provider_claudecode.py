"""Claude Code specifics: the exact exec-form handler, pinned literally, and the switch that refuses."""

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
    path = str(ctx.home / ".elydora" / "claudecode" / script)
    return {"type": "command", "command": sys.executable, "args": ["-I", "-S", path], "timeout": 10,
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
