"""Issue 15: ``install codex --trust`` records Codex's own trust of our entries, ``status`` asks Codex, a
reinstall trusts again what we trusted, uninstall leaves ``config.toml`` byte for byte (fake ``codex`` on PATH)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from elydora_testkit.fake_codex import install_fake

from elydora_cli.main import main

USER_CONFIG = (
    'model = "o4"\n\n# mine\n[hooks.state."/elsewhere/hooks.json:pre_tool_use:0:0"]\ntrusted_hash = "sha256:user"\n'
)


@pytest.fixture
def codex_root(root: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    install_fake(root / "bin")
    monkeypatch.setenv("PATH", f"{root / 'bin'}:/usr/bin:/bin")
    (root / "home" / ".codex").mkdir()
    (root / "home" / ".codex" / "config.toml").write_text(USER_CONFIG)
    return root


def cli(capsys: pytest.CaptureFixture[str], root: Path, *argv: str) -> tuple[int, str]:
    code = main([*argv, "--root", str(root / "home")])
    out, _ = capsys.readouterr()
    return code, out


def status(capsys: pytest.CaptureFixture[str], root: Path) -> tuple[int, dict[str, object]]:
    code, out = cli(capsys, root, "status", "codex", "--json")
    row = json.loads(out)["providers"][0]
    assert isinstance(row, dict)
    return code, row


def config(root: Path) -> str:
    return (root / "home" / ".codex" / "config.toml").read_text()


def manifest(root: Path) -> dict[str, object]:
    data = json.loads((root / "home" / ".elydora" / "codex" / "install-manifest.json").read_text())
    assert isinstance(data, dict)
    return data


def test_install_without_trust_awaits_it_and_names_the_fix(codex_root: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    assert cli(capsys, codex_root, "install", "codex")[0] == 0
    assert config(codex_root) == USER_CONFIG
    code, row = status(capsys, codex_root)
    assert (code, row["state"], row["check"]) == (1, "awaiting approval", "agent")
    assert any(f"elydora install codex --trust --root {codex_root / 'home'}" in p for p in row["problems"])


def test_trust_is_written_confirmed_and_removed_byte_for_byte(codex_root: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    code, out = cli(capsys, codex_root, "install", "codex", "--trust")
    assert code == 0 and "confirmed by codex app-server" in out, out
    text = config(codex_root)
    assert text.startswith(USER_CONFIG) and text.count("trusted_hash") == 3
    assert manifest(codex_root)["trusted"] is True
    code, row = status(capsys, codex_root)
    assert (code, row["state"], row["check"]) == (0, "healthy", "agent")
    assert cli(capsys, codex_root, "uninstall", "codex")[0] == 0
    assert config(codex_root) == USER_CONFIG


def test_a_reinstall_that_changes_our_entries_trusts_them_again(codex_root: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    assert cli(capsys, codex_root, "install", "codex", "--trust")[0] == 0
    before = config(codex_root)
    assert cli(capsys, codex_root, "install", "codex", "--hook-timeout-seconds", "12")[0] == 0
    assert config(codex_root) != before
    assert status(capsys, codex_root)[1]["state"] == "healthy"


def test_a_change_codex_did_not_hash_is_modified_until_trusted(codex_root: Path, monkeypatch: pytest.MonkeyPatch,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    assert cli(capsys, codex_root, "install", "codex", "--trust")[0] == 0
    monkeypatch.setenv("PATH", "/usr/bin:/bin")  # Codex not at hand: the reinstall cannot trust again
    code, out = cli(capsys, codex_root, "install", "codex", "--hook-timeout-seconds", "12")
    assert code == 0 and "warning: not trusted: Codex not found" in out, out
    code, row = status(capsys, codex_root)
    assert (row["state"], row["check"]) == ("healthy", "file-level")
    assert str(row["check_note"]).startswith("file-level check only: Codex not found")
    monkeypatch.setenv("PATH", f"{codex_root / 'bin'}:/usr/bin:/bin")
    code, row = status(capsys, codex_root)
    assert (code, row["state"]) == (1, "unhealthy")
    assert any("changed since it was trusted" in p and "install codex --trust" in p for p in row["problems"])
    assert cli(capsys, codex_root, "install", "codex", "--trust")[0] == 0
    assert status(capsys, codex_root)[1]["state"] == "healthy"
    assert cli(capsys, codex_root, "uninstall", "codex")[0] == 0
    assert config(codex_root) == USER_CONFIG


@pytest.mark.parametrize(("mode", "words"), [("disabled", "disabled"), ("hide", "does not load")])
def test_what_codex_does_not_load_or_enable_is_unhealthy(codex_root: Path, mode: str, words: str,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    assert cli(capsys, codex_root, "install", "codex", "--trust")[0] == 0
    install_fake(codex_root / "bin", mode)
    code, row = status(capsys, codex_root)
    assert (code, row["state"]) == (1, "unhealthy")
    assert any(words in p for p in row["problems"]), row["problems"]


def test_text_status_says_how_it_checked(codex_root: Path, monkeypatch: pytest.MonkeyPatch,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    assert cli(capsys, codex_root, "install", "codex", "--trust")[0] == 0
    assert "note: checked with codex app-server" in cli(capsys, codex_root, "status", "codex")[1]
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    assert "note: file-level check only" in cli(capsys, codex_root, "status", "codex")[1]


def verify_agent_checks(capsys: pytest.CaptureFixture[str],
                        root: Path) -> tuple[int, list[dict[str, object]], list[str]]:
    code, out = cli(capsys, root, "verify", "codex", "--json")
    doc = json.loads(out)
    return code, [c for c in doc["checks"] if c["probe"] == "agent"], doc["notes"]


def test_verify_asks_codex_and_fails_on_what_it_skips(codex_root: Path, monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    assert cli(capsys, codex_root, "install", "codex", "--trust")[0] == 0
    code, agent, notes = verify_agent_checks(capsys, codex_root)
    assert (code, [c["ok"] for c in agent], notes) == (0, [True], [])
    install_fake(codex_root / "bin", "disabled")
    code, agent, _ = verify_agent_checks(capsys, codex_root)
    assert code == 1 and [c["ok"] for c in agent] == [False, False] and "disabled" in str(agent[0]["reason"])
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    code, agent, notes = verify_agent_checks(capsys, codex_root)
    assert (code, agent) == (0, []) and notes[0].startswith("codex: file-level check only: Codex not found")


@pytest.mark.parametrize(("answer", "trusted"), [("y\n", True), ("\n", False)])
def test_on_a_terminal_install_asks_before_trusting(codex_root: Path, monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture[str], answer: str,
                                                    trusted: bool) -> None:
    import io
    import sys

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.setattr(sys, "stdin", Terminal(answer))
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    code, out = cli(capsys, codex_root, "install", "codex")
    assert code == 0 and "trust Elydora's hooks in codex now" in out
    assert config(codex_root).count("trusted_hash") == (3 if trusted else 1)  # ours, besides the user's own
    assert manifest(codex_root).get("trusted", False) is trusted
