"""Kimi Code specifics: the exact ``[[hooks]]`` tables, pinned literally, and what refuses an install."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from elydora_testkit.provider_cases import make_context

from elydora_cli.exitcodes import UsageError
from elydora_cli.installer import operations
from elydora_cli.plug.context import Context
from elydora_config.errors import MalformedConfigError


def _config(ctx: Context) -> Path:
    return ctx.home / ".kimi-code" / "config.toml"


def test_tables_are_pinned(tmp_path: Path) -> None:
    ctx = make_context(tmp_path)
    operations.install("kimi", ctx)
    scripts = ctx.home / ".elydora" / "kimi"

    def table(event: str, script: str) -> str:
        command = f"'{sys.executable}' '-I' '-S' '{scripts / script}'"
        return f'[[hooks]]\nevent = "{event}"\ncommand = "{command}"\ntimeout = 10\n'

    audit = table("PostToolUse", "hook.py") + table("PostToolUseFailure", "hook.py")
    assert _config(ctx).read_text() == table("PreToolUse", "guard.py") + audit
    assert operations.status("kimi", ctx).healthy


def test_a_timeout_kimi_refuses_is_a_usage_error(tmp_path: Path) -> None:
    ctx = make_context(tmp_path)
    with pytest.raises(UsageError, match="up to 600 s"):
        operations.install("kimi", ctx.with_options(timeout_seconds=601))
    assert not _config(ctx).exists() and not ctx.agent_dir("kimi").exists()


@pytest.mark.parametrize(
    "text", ['hooks = "x"\n', '[[hooks]]\nevent = "PreToolUse"\ncommand = "c"\nshell = "bash"\n']
)
def test_malformed_hooks_are_refused(tmp_path: Path, text: str) -> None:
    ctx = make_context(tmp_path)
    _config(ctx).parent.mkdir(parents=True)
    _config(ctx).write_text(text)
    with pytest.raises(MalformedConfigError) as malformed:
        operations.install("kimi", ctx)
    assert malformed.value.path == str(_config(ctx)) and "hooks" in malformed.value.reason
    assert _config(ctx).read_text() == text
