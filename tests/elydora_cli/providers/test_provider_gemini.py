"""Gemini CLI specifics: the exact handler, pinned literally, and the switches that refuse an install."""

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
    return ctx.home / ".gemini" / "settings.json"


def test_handler_shape_is_pinned(tmp_path: Path) -> None:
    ctx = make_context(tmp_path)
    operations.install("gemini", ctx)
    text = _settings(ctx).read_text()
    assert text.startswith("// Managed by Elydora\n")
    value = json.loads(text.split("\n", 1)[1])
    scripts = ctx.home / ".elydora" / "gemini"
    assert value == {
        "hooks": {
            "BeforeTool": [{"hooks": [{
                "type": "command", "name": "elydora-guard",
                "command": f"'{sys.executable}' '-I' '-S' '{scripts / 'guard.py'}'", "timeout": 10000,
            }]}],
            "AfterTool": [{"hooks": [{
                "type": "command", "name": "elydora-audit",
                "command": f"'{sys.executable}' '-I' '-S' '{scripts / 'hook.py'}'", "timeout": 10000,
            }]}],
        }
    }  # fmt: skip
    assert operations.status("gemini", ctx).healthy


@pytest.mark.parametrize(
    ("hooks_config", "reason"),
    [
        ({"enabled": False}, "hooksConfig.enabled is false"),
        ({"disabled": ["elydora-guard"]}, "'elydora-guard' in hooksConfig.disabled"),
    ],
)
def test_disabled_hooks_refuse_the_install(tmp_path: Path, hooks_config: dict[str, object], reason: str) -> None:
    ctx = make_context(tmp_path)
    _settings(ctx).parent.mkdir(parents=True)
    _settings(ctx).write_text(json.dumps({"hooksConfig": hooks_config}))
    before = _settings(ctx).read_bytes()
    with pytest.raises(RefusedError) as refused:
        operations.install("gemini", ctx)
    assert reason in refused.value.reason and refused.value.path == str(_settings(ctx))
    assert _settings(ctx).read_bytes() == before and not ctx.agent_dir("gemini").exists()


def test_a_malformed_hooks_config_is_refused(tmp_path: Path) -> None:
    ctx = make_context(tmp_path)
    _settings(ctx).parent.mkdir(parents=True)
    _settings(ctx).write_text('{"hooksConfig": {"enabled": "no"}}')
    with pytest.raises(MalformedConfigError) as malformed:
        operations.install("gemini", ctx)
    assert malformed.value.path == str(_settings(ctx)) and "hooksConfig" in malformed.value.reason


@pytest.mark.parametrize(
    ("security", "noted"),
    [({"folderTrust": {"enabled": True}}, True), ({}, True), ({"folderTrust": {"enabled": False}}, False)],
)
def test_status_notes_folder_trust_unless_the_user_turned_it_off(
    tmp_path: Path, security: dict[str, object], noted: bool
) -> None:
    from elydora_cli.providers import gemini

    ctx = make_context(tmp_path)
    _settings(ctx).parent.mkdir(parents=True)
    _settings(ctx).write_text(json.dumps({"security": security}))
    operations.install("gemini", ctx)
    status = operations.status("gemini", ctx)
    assert status.healthy  # a note, not a problem: trusted folders run our hooks
    assert [f.message for f in status.findings] == ([gemini.FOLDER_TRUST_NOTE] if noted else [])
