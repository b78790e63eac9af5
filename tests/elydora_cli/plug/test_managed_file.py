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
from elydora_cli.providers import droid, hermes


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


MACOS = {
    "claudecode": "Library/Application Support/ClaudeCode/managed-settings.d/elydora.json",  # claude.exe 2.1.332
    "gemini": "Library/Application Support/GeminiCli/settings.json",  # Gemini CLI 0.61.0's bundle
    "qwen": "Library/Application Support/QwenCode/settings.json",  # Qwen Code 0.24.4's bundle
    "cursor": "Library/Application Support/Cursor/hooks.json",  # Cursor's documentation (no package here)
    "codex": "etc/codex/requirements.toml",  # Codex 0.171.0: /etc/codex on every Unix
    "augment": "etc/augment/settings.json",  # Auggie 0.36.0: /etc/augment everywhere but Windows
}
"""Each managed layer on macOS, as the packaged loader (or, for Cursor, the documentation) names it, relative to
``/`` (docs/providers.md, "macOS")."""


@pytest.mark.parametrize("provider", sorted(MACOS))
def test_macos_locations_are_the_loaders(provider: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "platform", "darwin")
    assert managed_file(_ctx(), provider) == Path("/sandbox") / MACOS[provider]


def test_droid_and_hermes_macos_managed_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    """Droid 0.225.2's binary: ``/Library/Application Support/Factory`` on darwin (``/etc/factory`` on Linux);
    Hermes 0.19.0: ``/etc/hermes`` on every POSIX system (its other-platform locations are "a v2 item")."""
    monkeypatch.setattr(sys, "platform", "darwin")
    user = _ctx(system=False)
    assert droid.managed_settings(user) == Path("/sandbox/Library/Application Support/Factory/settings.json")
    assert hermes.managed_config(user) == Path("/sandbox/etc/hermes/config.yaml")
