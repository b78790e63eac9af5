"""The ``codex app-server`` client against a fake ``codex`` speaking its JSON-RPC: answers, and clean failures."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from elydora_testkit.fake_codex import fake_hash, install_fake

from elydora_cli.introspect import codex, probe_for
from elydora_cli.plug.agentprobe import AGENT, FILE_LEVEL, ProbeError
from elydora_cli.plug.context import Context

HANDLER = {"type": "command", "command": "/bin/true", "timeout": 10}
HOOKS = {"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [HANDLER]}]}}


def context(tmp_path: Path, mode: str | None = "ok") -> Context:
    bin_dir = tmp_path / "bin"
    if mode is not None:
        install_fake(bin_dir, mode)
    home = tmp_path / "home"
    (home / ".codex").mkdir(parents=True, exist_ok=True)
    return Context(home=home, state_root=home, repo_root=tmp_path, env={"PATH": str(bin_dir)}, rooted=True)


def test_listed_reports_key_hash_and_trust(tmp_path: Path) -> None:
    ctx = context(tmp_path)
    hooks_json = ctx.home / ".codex" / "hooks.json"
    hooks_json.write_text(json.dumps(HOOKS))
    probe = codex.CodexProbe(ctx)
    [hook] = probe.listed()
    assert hook.key == f"{hooks_json}:pre_tool_use:0:0"
    assert hook.current_hash == fake_hash("PreToolUse", "*", HANDLER)
    assert (hook.trust, hook.enabled) == ("untrusted", True)
    assert probe.report.check == AGENT


def test_hashes_for_a_file_not_yet_written_come_from_the_agent(tmp_path: Path) -> None:
    ctx = context(tmp_path)
    probe = codex.CodexProbe(ctx)
    assert probe.hashes_for(json.dumps(HOOKS)) == {"pre_tool_use:0:0": fake_hash("PreToolUse", "*", HANDLER)}
    assert not (ctx.home / ".codex" / "hooks.json").exists()


@pytest.mark.parametrize(("mode", "words"), [
    (None, "Codex not found"),
    ("exit", "did not answer"),
    ("garbage", "not JSON-RPC"),
    ("hang", "did not answer in time"),
])
def test_every_failure_is_one_probe_error_and_a_file_level_report(tmp_path: Path, mode: str | None,
                                                                   words: str) -> None:
    probe = codex.CodexProbe(context(tmp_path, mode), timeout=2.0)
    started = time.monotonic()
    with pytest.raises(ProbeError, match=words):
        probe.listed()
    assert time.monotonic() - started < 10
    assert probe.report.check == FILE_LEVEL
    assert probe.report.note is not None and probe.report.note.startswith("file-level check only: ")


def test_a_failed_hash_request_says_the_hooks_stay_untrusted(tmp_path: Path) -> None:
    probe = codex.CodexProbe(context(tmp_path, None))
    with pytest.raises(ProbeError):
        probe.hashes_for("{}")
    assert probe.report.note is not None and probe.report.note.startswith("not trusted: Codex not found")


def test_only_codex_has_a_probe(tmp_path: Path) -> None:
    ctx = context(tmp_path)
    assert isinstance(probe_for("codex", ctx), codex.CodexProbe)
    assert probe_for("claudecode", ctx) is None
    assert probe_for("codex", ctx) is not None and codex.CodexProbe(ctx).available()
    assert not codex.CodexProbe(context(tmp_path / "other", None)).available()
