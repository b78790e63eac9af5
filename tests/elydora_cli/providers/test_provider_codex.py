"""Codex specifics: the exact handler shape, CODEX_HOME rules, and hook trust.

Codex 0.171 silently skips hooks the user has not trusted (seen with the real agent, docs/e2e.md): status
must say so until ``config.toml`` holds a ``hooks.state`` entry for each of our entries.
"""

from __future__ import annotations

import json
import sys

import pytest
from elydora_testkit.provider_cases import make_context

from elydora_cli.installer import operations
from elydora_cli.plug import layers
from elydora_cli.providers import codex
from elydora_config.errors import ConcurrentModificationError, UnsafePathError


def _trust(home, hooks_json, events=("pre_tool_use", "post_tool_use")) -> None:
    config = home / ".codex" / "config.toml"
    lines = [f'[hooks.state."{hooks_json}:{event}:0:0"]\ntrusted_hash = "sha256:0"\n' for event in events]
    config.write_text("model = \"x\"\n" + "".join(lines))


def test_handler_shape_is_exact(tmp_path):
    ctx = make_context(tmp_path)
    operations.install("codex", ctx)
    value = json.loads((ctx.home / ".codex" / "hooks.json").read_text())
    script = ctx.home / ".elydora" / "codex" / "guard.py"
    handler = value["hooks"]["PreToolUse"][0]
    assert value["description"] == "Elydora audit and freeze enforcement"
    assert handler["matcher"] == "*" and len(handler["hooks"]) == 1
    entry = handler["hooks"][0]
    assert entry["command"] == f"'{sys.executable}' '-I' '-S' '{script}'"
    assert entry["commandWindows"].startswith(
        r'"C:\Windows\System32\WindowsPowerShell\v1.0\powershell.exe" -NoLogo -NoProfile -NonInteractive '
        "-EncodedCommand "
    )
    assert {k: entry[k] for k in ("type", "timeout", "statusMessage")} == {
        "type": "command", "timeout": 10, "statusMessage": "Checking Elydora agent state"}


def test_status_awaits_trust_until_codex_records_it(tmp_path):
    ctx = make_context(tmp_path)
    operations.install("codex", ctx)
    hooks_json = ctx.home / ".codex" / "hooks.json"
    before = operations.status("codex", ctx)
    assert before.awaiting_approval and not before.healthy
    assert any("trust" in f.render() and "PreToolUse" in f.render() for f in before.findings)
    _trust(ctx.home, hooks_json, events=("pre_tool_use",))
    partly = operations.status("codex", ctx)
    assert partly.awaiting_approval and "PostToolUse" in partly.findings[0].render()
    _trust(ctx.home, hooks_json)
    assert operations.status("codex", ctx).healthy


def test_trust_file_changing_during_install_aborts(tmp_path, monkeypatch):
    from elydora_testkit.provider_cases import change_before_commit

    ctx = make_context(tmp_path)
    config = ctx.home / ".codex" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text('model = "x"\n')
    change_before_commit(monkeypatch, config, b'model = "y"\n')
    with pytest.raises(ConcurrentModificationError) as info:
        operations.install("codex", ctx)
    assert "config.toml" in str(info.value)
    assert not (ctx.home / ".codex" / "hooks.json").exists()


def test_codex_home_must_exist(tmp_path):
    ctx = make_context(tmp_path, {"CODEX_HOME": "/nowhere"})
    with pytest.raises(UnsafePathError, match="CODEX_HOME"):
        operations.install("codex", ctx)


def test_windows_ignores_managed_config_in_codex_home_but_reads_the_program_data_config(tmp_path):
    """Codex 0.171.0 on Windows ignores ``managed_config.toml`` in CODEX_HOME (it warns that the file is no longer
    supported there), so a ``[features] hooks = false`` in it switches nothing off; the system layer there is
    ``%ProgramData%\\OpenAI\\Codex\\config.toml``, whose ``false`` does, and only the administrator can change."""
    ctx = make_context(tmp_path, windows=True)
    operations.install("codex", ctx)
    _trust(ctx.home, ctx.home / ".codex" / "hooks.json")
    assert not [f for f in operations.status("codex", ctx).findings if f.severity == "off"]
    (ctx.home / ".codex" / codex.LEGACY_WINDOWS_MANAGED_CONFIG).write_text("[features]\nhooks = false\n")
    assert not [f for f in operations.status("codex", ctx).findings if f.severity == "off"]
    system = layers.system_file(ctx, posix="/", macos="/", windows=codex.WINDOWS_SYSTEM_CONFIG)
    system.parent.mkdir(parents=True, exist_ok=True)
    system.write_text("[features]\nhooks = false\n")
    off = [f for f in operations.status("codex", ctx).findings if f.severity == "off"]
    assert len(off) == 1 and off[0].path == system and "only the administrator" in off[0].message
