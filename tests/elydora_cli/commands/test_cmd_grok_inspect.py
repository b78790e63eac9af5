"""Issue 15: ``status`` and ``verify`` ask Grok which hooks it loads (``grok inspect --json``, fake ``grok``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from elydora_testkit.fake_grok import install_fake

from elydora_cli.main import main


@pytest.fixture
def grok_root(root: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Path:
    monkeypatch.delenv("GROK_HOME", raising=False)
    monkeypatch.setenv("HOME", str(root / "home"))
    install_fake(root / "bin")
    monkeypatch.setenv("PATH", f"{root / 'bin'}:/usr/bin:/bin")
    assert main(["install", "grok", "--root", str(root / "home")]) == 0
    capsys.readouterr()
    return root


def status(capsys: pytest.CaptureFixture[str], root: Path) -> tuple[int, dict[str, object]]:
    code = main(["status", "grok", "--json", "--root", str(root / "home")])
    row = json.loads(capsys.readouterr().out)["providers"][0]
    assert isinstance(row, dict)
    return code, row


def test_status_asks_grok_and_is_healthy_when_it_lists_our_hooks(grok_root: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    code, row = status(capsys, grok_root)
    assert (code, row["state"], row["check"], row["check_note"]) == (0, "healthy", "agent", "checked with grok inspect")


@pytest.mark.parametrize("mode", ["hide", "disabled"])
def test_hooks_grok_does_not_load_are_unhealthy_in_status_and_verify(grok_root: Path, mode: str,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    install_fake(grok_root / "bin", mode)  # not listed, or listed with "disabled": true
    code, row = status(capsys, grok_root)
    assert (code, row["state"]) == (1, "unhealthy")
    assert any("grok inspect does not list our PreToolUse hook" in str(p) for p in row["problems"]), row
    code = main(["verify", "grok", "--json", "--root", str(grok_root / "home")])
    checks = json.loads(capsys.readouterr().out)["checks"]
    assert code == 1 and [c["ok"] for c in checks if c["probe"] == "agent"] == [False, False, False]


def test_without_grok_the_check_is_file_level(grok_root: Path, monkeypatch: pytest.MonkeyPatch,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    for path in ("/usr/bin:/bin", None):
        if path is None:
            install_fake(grok_root / "bin", "exit")
            path = f"{grok_root / 'bin'}:/usr/bin:/bin"
        monkeypatch.setenv("PATH", path)
        code, row = status(capsys, grok_root)
        assert (code, row["state"], row["check"]) == (0, "healthy", "file-level")
        assert str(row["check_note"]).startswith("file-level check only: Grok")


def test_install_asks_no_trust_question_for_grok(grok_root: Path, monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    import sys

    monkeypatch.setattr(sys.stdin, "isatty", lambda: True, raising=False)
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    monkeypatch.setattr("builtins.input", lambda *_: pytest.fail("asked a trust question"))
    assert main(["install", "grok", "--root", str(grok_root / "home"), "--hook-timeout-seconds", "9"]) == 0
    assert "trusted" not in json.loads((grok_root / "home" / ".elydora" / "grok" / "install-manifest.json").read_text())


def test_claude_code_hooks_grok_lists_beside_ours_change_nothing(grok_root: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    """Grok also lists the Claude Code hooks it cross-loads (``vendor: "claude"``): claudecode's entries are not
    grok's, and grok's status stays the same with them present."""
    assert main(["install", "claudecode", "--root", str(grok_root / "home")]) == 0
    capsys.readouterr()
    code, row = status(capsys, grok_root)
    assert (code, row["state"], row["check"]) == (0, "healthy", "agent")
