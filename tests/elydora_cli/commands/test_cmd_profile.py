"""``elydora profile``: the device-manager artifacts hold exactly what ``install --scope system`` writes.

Each artifact is parsed back (``plistlib`` for the profile, the registry file's own syntax for ``.reg``) and
compared with the managed file a system install wrote with the same options; the real Claude Code reading the
same settings from its file form: tests/e2e/test_managed.py.
"""

from __future__ import annotations

import base64
import json
import plistlib
import sys
from pathlib import Path

import pytest
from elydora_testkit import system_root
from elydora_testkit.platforms import posix_only

from elydora_cli import mdm
from elydora_cli.main import main
from elydora_cli.plug import layers

pytestmark = posix_only("system scope is refused on Windows for now")


@pytest.fixture()
def sysroot(root: Path) -> Path:
    return root / "home"


def profile(sysroot: Path, tmp_path: Path, agent: str, *extra: str) -> bytes:
    out = tmp_path / f"{agent}-{len(extra)}.out"
    argv = ["profile", agent, "--python", sys.executable, "--root", str(sysroot), "--output", str(out), *extra]
    assert main(argv) == 0
    return out.read_bytes()


def payload(data: bytes) -> dict[str, object]:
    doc = plistlib.loads(data)
    assert doc["PayloadType"] == "Configuration" and doc["PayloadScope"] == "System"
    (content,) = doc["PayloadContent"]
    return {k: v for k, v in content.items() if not k.startswith("Payload")} | {"_type": content["PayloadType"]}


def test_claude_profile_holds_the_settings_a_system_install_writes(sysroot: Path, tmp_path: Path) -> None:
    data = profile(sysroot, tmp_path, "claude", "--lock-down")
    assert system_root.system(sysroot, "install", "claude", "--lock-down", "--python", sys.executable) == 0
    installed = json.loads(system_root.layer(sysroot, "claudecode").read_text())
    settings = payload(data)
    assert settings.pop("_type") == "com.anthropic.claudecode"
    assert settings == installed and installed["allowManagedHooksOnly"] is True
    assert profile(sysroot, tmp_path, "claude", "--lock-down") == data  # the same bytes, identifiers included


def test_codex_profile_carries_requirements_toml_in_base64(sysroot: Path, tmp_path: Path) -> None:
    data = profile(sysroot, tmp_path, "codex")
    assert system_root.system(sysroot, "install", "codex", "--python", sys.executable) == 0
    settings = payload(data)
    assert settings["_type"] == "com.openai.codex" and set(settings) == {"_type", "requirements_toml_base64"}
    text = base64.b64decode(str(settings["requirements_toml_base64"])).decode()
    assert text == system_root.layer(sysroot, "codex").read_text() and "[features]\nhooks = true\n" in text
    assert profile(sysroot, tmp_path, "codex", "--format", "file") == text.encode()


def test_claude_registry_file_sets_the_policy_value(sysroot: Path, tmp_path: Path) -> None:
    data = profile(sysroot, tmp_path, "claude", "--format", "reg")
    assert data.startswith(b"\xff\xfe") and "\r\n" in data.decode("utf-16")
    keys = mdm.read_registry_file(data)
    value = keys["HKEY_LOCAL_MACHINE\\SOFTWARE\\Policies\\ClaudeCode"]["Settings"]
    assert system_root.system(sysroot, "install", "claude", "--python", sys.executable) == 0
    assert json.loads(value) == json.loads(system_root.layer(sysroot, "claudecode").read_text())


def test_agents_without_such_a_source_are_refused(sysroot: Path, tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["profile", "kimi", "--output", str(tmp_path / "x")]) == 2
    assert "kimi: no device-manager profile" in capsys.readouterr().err
    assert main(["profile", "codex", "--format", "reg", "--output", str(tmp_path / "x")]) == 2
    assert "codex: no registry form" in capsys.readouterr().err and not (tmp_path / "x").exists()


def test_status_sees_our_hooks_delivered_by_the_profile(
    sysroot: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """On macOS the profile outranks the files: status names it as the source used, holding our hooks."""
    monkeypatch.setattr(layers, "on_macos", lambda: True)
    data = profile(sysroot, tmp_path, "claude")
    assert system_root.system(sysroot, "install", "claude", "--python", sys.executable) == 0
    settings = payload(data)
    settings.pop("_type")
    managed_preferences = sysroot / "Library" / "Managed Preferences"
    managed_preferences.mkdir(parents=True)
    (managed_preferences / "com.anthropic.claudecode.plist").write_bytes(plistlib.dumps(settings))
    capsys.readouterr()
    assert system_root.system(sysroot, "status", "claude", "--json") == 0
    row = json.loads(capsys.readouterr().out)["providers"][0]
    assert row["managed_source"]["used"] | {"where": ""} == {
        "source": "plist", "name": "the managed preferences profile (com.anthropic.claudecode)", "where": "",
        "user": None, "holds_ours": True}
    assert any("which holds our hooks" in note for note in row["notes"])
