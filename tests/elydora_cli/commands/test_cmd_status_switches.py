"""Issue 27: ``status`` reads every layer and variable the agent reads that switches our hooks off.

Each case installs the agent at user scope (``--root``: managed files lie below it), then sets one switch the
real agent honours (a project or local settings file in the working directory, a managed setting, a user
switch, a variable exported in the shell status runs in) and expects the state ``switched off`` with the file or
variable named and a fix; ``verify`` fails too. Each of these said ``healthy`` before (real files, CLI in process).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from elydora_testkit import system_root

from elydora_cli.main import main

Setup = Callable[[Path, pytest.MonkeyPatch], str]
"""Sets one switch under ``<tmp>`` (``home``, ``work``) and returns what status must name (a path or a variable)."""


def _write(path: Path, text: str) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return str(path)


def _json(path: Path, value: object) -> str:
    return _write(path, json.dumps(value) + "\n")


def _env(name: str, value: str) -> Setup:
    def setup(root: Path, monkeypatch: pytest.MonkeyPatch) -> str:
        monkeypatch.setenv(name, value)
        return name

    return setup


def _file(where: str, value: object | str) -> Setup:
    def setup(root: Path, monkeypatch: pytest.MonkeyPatch) -> str:
        path = root / where
        return _write(path, value) if isinstance(value, str) else _json(path, value)

    return setup


def _append(where: str, text: str) -> Setup:
    def setup(root: Path, monkeypatch: pytest.MonkeyPatch) -> str:
        path = root / where
        return _write(path, path.read_text() + text)

    return setup


CASES: dict[str, tuple[str, Setup]] = {
    "claude project settings": ("claudecode", _file("work/.claude/settings.json", {"disableAllHooks": True})),
    "claude project local settings": (
        "claudecode",
        _file("work/.claude/settings.local.json", {"disableAllHooks": True}),
    ),
    "claude managed hooks only": (
        "claudecode",
        _file("home/etc/claude-code/managed-settings.json", {"allowManagedHooksOnly": True}),
    ),
    "claude managed plugin-only hooks": (
        "claudecode",
        _file("home/etc/claude-code/managed-settings.json", {"strictPluginOnlyCustomization": ["hooks"]}),
    ),
    "claude safe mode": ("claudecode", _env("CLAUDE_CODE_SAFE_MODE", "1")),
    "gemini project enabled false": (
        "gemini",
        _file("work/.gemini/settings.json", {"hooksConfig": {"enabled": False}}),
    ),
    "gemini project disabled list": (
        "gemini",
        _file("work/.gemini/settings.json", {"hooksConfig": {"disabled": ["elydora-guard"]}}),
    ),
    "gemini system defaults": (
        "gemini",
        _file("home/etc/gemini-cli/system-defaults.json", {"hooksConfig": {"disabled": ["elydora-audit"]}}),
    ),
    "gemini untrusted by variable": ("gemini", _env("GEMINI_CLI_TRUST_WORKSPACE", "false")),
    "gemini restricted mode": ("gemini", _env("GEMINI_RESTRICTED_MODE", "true")),
    "qwen safe mode": ("qwen", _env("QWEN_CODE_SAFE_MODE", "1")),
    "qwen bare mode": ("qwen", _env("QWEN_CODE_SIMPLE", "TRUE ")),
    "qwen execution sandbox": (
        "qwen",
        _file(
            "work/.qwen/settings.json",
            {"tools": {"executionSandbox": {"filesystem": "read-only", "network": "open"}}},
        ),
    ),
    "codex user feature off": ("codex", _append("home/.codex/config.toml", "[features]\nhooks = false\n")),
    "codex legacy feature name off": ("codex", _append("home/.codex/config.toml", "[features]\ncodex_hooks = false\n")),
    "codex project feature off": ("codex", _file("work/.codex/config.toml", "[features]\nhooks = false\n")),
    "codex system config": ("codex", _file("home/etc/codex/config.toml", "[features]\nhooks = false\n")),
    "codex managed hooks only": (
        "codex",
        _file("home/etc/codex/requirements.toml", "allow_managed_hooks_only = true\n"),
    ),
}


def cli(capsys: pytest.CaptureFixture[str], root: Path, *argv: str) -> tuple[int, str]:
    code = main([*argv, "--root", str(root / "home")])
    return code, capsys.readouterr().out


def _installed(capsys: pytest.CaptureFixture[str], root: Path, agent: str, monkeypatch: pytest.MonkeyPatch) -> None:
    (root / "bin").mkdir()
    monkeypatch.setenv("PATH", str(root / "bin"))  # no agent executable to ask: the file-level check decides
    assert main(["install", agent, "--python", sys.executable, "--root", str(root / "home")]) == 0
    capsys.readouterr()
    if agent == "codex":  # without Codex to hash them, record trust as Codex would, so status alone is healthy
        _trust_codex(root)
    code, out = cli(capsys, root, "status", agent, "--json")
    assert code == 0, out


def _trust_codex(root: Path) -> None:
    hooks = root / "home" / ".codex" / "hooks.json"
    lines = [f'[hooks.state."{hooks}:{event}:0:0"]\ntrusted_hash = "sha256:x"\n' for event in ("pre_tool_use",
                                                                                                 "post_tool_use")]
    (root / "home" / ".codex" / "config.toml").write_text("\n".join(lines))


@pytest.mark.parametrize("case", list(CASES))
def test_a_switch_the_agent_reads_is_reported_with_its_file_or_variable(
    root: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, case: str
) -> None:
    agent, setup = CASES[case]
    _installed(capsys, root, agent, monkeypatch)
    named = setup(root, monkeypatch)
    code, out = cli(capsys, root, "status", agent, "--json")
    doc = json.loads(out)
    row = doc["providers"][0]
    assert code == 1 and row["state"] == "switched off" and row["healthy"] is False
    assert any(named in p and "runs none of our hooks" in p for p in row["problems"]), row["problems"]
    assert any(named in f["message"] or f["file"] == named for f in doc["failures"])
    code, out = cli(capsys, root, "verify", agent)
    assert code == 1 and named in out


def test_a_later_layer_that_switches_hooks_back_on_wins(
    root: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Claude Code merges the layers, the later one winning: a local false clears a project true."""
    _installed(capsys, root, "claudecode", monkeypatch)
    _json(root / "work" / ".claude" / "settings.json", {"disableAllHooks": True})
    _json(root / "work" / ".claude" / "settings.local.json", {"disableAllHooks": False})
    assert cli(capsys, root, "status", "claudecode")[0] == 0
    monkeypatch.setenv("CLAUDE_CODE_SAFE_MODE", "0")  # not a truthy value: Claude Code ignores it
    monkeypatch.setenv("GEMINI_CLI_TRUST_WORKSPACE", "true")
    assert cli(capsys, root, "status", "claudecode")[0] == 0


def test_the_text_output_names_the_file_and_the_fix(
    root: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _installed(capsys, root, "qwen", monkeypatch)
    monkeypatch.setenv("QWEN_CODE_SAFE_MODE", "yes")
    code, out = cli(capsys, root, "status", "qwen")
    assert code == 1
    assert out.splitlines() == [
        "qwen         switched off",
        "  - Qwen Code runs none of our hooks in safe mode, which QWEN_CODE_SAFE_MODE='yes' in this environment "
        "turns on: unset QWEN_CODE_SAFE_MODE before starting Qwen Code",
    ]


def test_a_project_disabled_list_defeats_a_system_install_and_the_probe_says_so(
    root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Gemini CLI unites every layer's hooksConfig.disabled: the system file's pin cannot win over it."""
    sysroot = root / "home"
    assert system_root.system(sysroot, "install", "gemini", "--python", sys.executable) == 0
    capsys.readouterr()
    project = _json(root / "work" / ".gemini" / "settings.json", {"hooksConfig": {"disabled": ["elydora-guard"]}})
    assert system_root.system(sysroot, "status", "gemini", "--json") == 1
    row = json.loads(capsys.readouterr().out)["providers"][0]
    assert row["state"] != "healthy" and not row["covered"]
    assert any(project in p and "runs none of our hooks" in p for p in row["problems"]), row["problems"]


def test_under_system_scope_claude_safe_mode_keeps_managed_hooks(
    root: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Claude Code's safe mode and a project's disableAllHooks run managed hooks still: no finding there."""
    sysroot = root / "home"
    assert system_root.system(sysroot, "install", "claudecode", "--python", sys.executable) == 0
    _json(root / "work" / ".claude" / "settings.json", {"disableAllHooks": True})
    monkeypatch.setenv("CLAUDE_CODE_SAFE_MODE", "1")
    capsys.readouterr()
    assert system_root.system(sysroot, "status", "claudecode", "--json") == 0
    assert json.loads(capsys.readouterr().out)["providers"][0]["state"] == "healthy"


def test_a_codex_system_install_pins_the_hooks_feature_on_and_the_probe_checks_it(
    root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A user's [features] hooks = false switches Codex's managed hooks off too, unless requirements.toml
    requires the feature on: the system install writes that pin, status reports it gone, uninstall removes it."""
    sysroot = root / "home"
    requirements = system_root.layer(sysroot, "codex")
    assert system_root.system(sysroot, "install", "codex", "--python", sys.executable) == 0
    assert "[features]\nhooks = true\n" in requirements.read_text()
    capsys.readouterr()
    requirements.write_text(requirements.read_text().replace("[features]\nhooks = true\n", ""))
    assert system_root.system(sysroot, "status", "codex", "--json") == 1
    row = json.loads(capsys.readouterr().out)["providers"][0]
    assert row["problems"] == [f"{requirements}: features.hooks is not true: a user's settings can switch every hook "
                               "off, ours included; reinstall with --scope system"]
    assert system_root.system(sysroot, "install", "codex", "--python", sys.executable) == 0
    assert system_root.system(sysroot, "uninstall", "codex") == 0
    assert not requirements.exists()
