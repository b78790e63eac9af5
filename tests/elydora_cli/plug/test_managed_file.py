"""Where each agent's managed layer is, per platform, below ``--root``."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from elydora_cli import managed
from elydora_cli.managed import ScopeError
from elydora_cli.plug import layers
from elydora_cli.plug.context import Context
from elydora_cli.plug.layers import managed_file


def _ctx(**changes: object) -> Context:
    return Context(home=Path("/sandbox"), state_root=Path("/sandbox"), repo_root=Path("/w"), rooted=True,
                   system=True).with_options(**changes)


def test_managed_files_are_placed_below_the_root() -> None:
    if sys.platform == "darwin":
        pytest.skip("the Linux paths")
    assert managed_file(_ctx(), "claudecode") == Path("/sandbox/etc/claude-code/managed-settings.d/elydora.json")
    assert managed_file(_ctx(), "codex") == Path("/sandbox/etc/codex/requirements.toml")
    assert managed_file(_ctx(), "copilot") == Path("/sandbox/etc/github-copilot/policy.d/elydora.json")


def test_macos_locations(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(layers, "on_macos", lambda: True)
    claude = "/sandbox/Library/Application Support/ClaudeCode/managed-settings.d/elydora.json"
    assert managed_file(_ctx(), "claudecode") == Path(claude)
    assert managed_file(_ctx(), "codex") == Path("/sandbox/etc/codex/requirements.toml")
    assert managed_file(_ctx(), "copilot") == Path("/sandbox/etc/github-copilot/policy.d/elydora.json")


def test_windows_locations_known_or_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    env = {"ProgramFiles": "C:\\Program Files", "ProgramData": "D:\\Data"}
    windows = _ctx(windows=True, env=env, rooted=False)
    assert str(managed_file(windows, "claudecode")).endswith("ClaudeCode\\managed-settings.d\\elydora.json")
    assert str(managed_file(windows, "codex")).endswith("D:\\Data\\OpenAI\\Codex\\requirements.toml")
    assert str(managed_file(windows, "copilot")).endswith("D:\\Data\\GitHub\\Copilot\\policy.d\\elydora.json")
    monkeypatch.setitem(managed.LAYERS, "kimi", managed.ManagedLayer("kimi", "/etc/k.json", "/k.json", None, "x"))
    with pytest.raises(ScopeError, match="on Windows is not known"):
        managed_file(windows, "kimi")
