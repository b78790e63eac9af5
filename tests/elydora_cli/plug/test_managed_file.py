"""Where each agent's managed layer is, per platform, below ``--root``."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from elydora_cli.managed import ScopeError
from elydora_cli.plug.context import Context
from elydora_cli.plug.layers import managed_file


def _ctx(**changes: object) -> Context:
    return Context(home=Path("/sandbox"), state_root=Path("/sandbox"), repo_root=Path("/w"), rooted=True,
                   system=True).with_options(**changes)


def test_managed_files_are_placed_below_the_root() -> None:
    if sys.platform == "darwin":
        pytest.skip("the Linux paths")
    assert managed_file(_ctx(), "claudecode") == Path("/sandbox/etc/claude-code/managed-settings.json")
    assert managed_file(_ctx(), "codex") == Path("/sandbox/etc/codex/requirements.toml")


def test_windows_locations_known_or_refused() -> None:
    windows = _ctx(windows=True, env={"ProgramFiles": "C:\\Program Files"}, rooted=False)
    assert str(managed_file(windows, "claudecode")).endswith("ClaudeCode\\managed-settings.json")
    with pytest.raises(ScopeError, match="on Windows is not known"):
        managed_file(windows, "codex")
