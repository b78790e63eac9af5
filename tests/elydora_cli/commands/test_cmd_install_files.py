"""What ``elydora install`` does with settings files a user arranged on purpose: symlinked dotfiles (stow,
chezmoi, home-manager, a symlinked home) are refused with the opt-in named and edited through the link with
``--follow-symlinks`` or ``ELYDORA_FOLLOW_SYMLINKS=1``; read-only files are refused without
``--allow-read-only``; root does not write into another user's home."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from elydora_cli.main import main
from elydora_config.nesting import MAX_NESTING

ORIGINAL = b'{\n  "model": "sonnet"\n}\n'


def _stowed(tmp_path: Path) -> tuple[Path, Path, Path]:
    """``home/.claude/settings.json`` -> ``dotfiles/claude/settings.json`` (0640)."""
    home, real = tmp_path / "home", tmp_path / "dotfiles" / "claude" / "settings.json"
    real.parent.mkdir(parents=True)
    real.write_bytes(ORIGINAL)
    os.chmod(real, 0o640)
    (home / ".claude").mkdir(parents=True)
    link = home / ".claude" / "settings.json"
    link.symlink_to(os.path.relpath(real, link.parent))
    return home, link, real


def test_symlinked_dotfile_is_refused_naming_the_option(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    home, link, real = _stowed(tmp_path)
    assert main(["install", "claudecode", "--root", str(home)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"Error: {link}: is a symbolic link") and "--follow-symlinks" in err
    assert "ELYDORA_FOLLOW_SYMLINKS=1" in err and real.read_bytes() == ORIGINAL and link.is_symlink()


@pytest.mark.parametrize("how", ["flag", "setting"])
def test_follow_symlinks_edits_the_real_file_with_its_mode(
    tmp_path: Path, how: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    home, link, real = _stowed(tmp_path)
    argv = ["install", "claudecode", "--root", str(home)]
    if how == "flag":
        argv.append("--follow-symlinks")
    else:
        monkeypatch.setenv("ELYDORA_FOLLOW_SYMLINKS", "1")
    assert main(argv) == 0
    assert link.is_symlink() and os.readlink(link) == os.path.relpath(real, link.parent)
    assert b"PreToolUse" in real.read_bytes() and stat.S_IMODE(os.stat(real).st_mode) == 0o640
    assert main(["status", "claudecode", "--root", str(home), "--follow-symlinks"]) == 0
    assert main(["uninstall", "claudecode", "--root", str(home), "--follow-symlinks"]) == 0
    assert real.read_bytes() == ORIGINAL and link.is_symlink()


def test_symlinked_home_needs_follow_symlinks(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    real_home = tmp_path / "data" / "home"
    (real_home / ".claude").mkdir(parents=True)
    (real_home / ".claude" / "settings.json").write_bytes(ORIGINAL)
    home = tmp_path / "home"
    home.symlink_to(real_home)
    assert main(["install", "claudecode", "--root", str(home)]) == 1
    assert "--follow-symlinks" in capsys.readouterr().err
    assert (real_home / ".claude" / "settings.json").read_bytes() == ORIGINAL
    assert main(["install", "claudecode", "--root", str(home), "--follow-symlinks"]) == 0
    assert b"PreToolUse" in (real_home / ".claude" / "settings.json").read_bytes() and home.is_symlink()


def test_read_only_settings_file_is_refused_unless_allowed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    settings = tmp_path / "home" / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_bytes(ORIGINAL)
    os.chmod(settings, 0o444)
    assert main(["install", "claudecode", "--root", str(tmp_path / "home")]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"Error: {settings}: is read-only (mode 0444); make it writable")
    assert "--allow-read-only" in err and settings.read_bytes() == ORIGINAL
    assert main(["install", "claudecode", "--root", str(tmp_path / "home"), "--allow-read-only"]) == 0
    assert b"PreToolUse" in settings.read_bytes() and stat.S_IMODE(os.stat(settings).st_mode) == 0o444


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs root")
def test_sudo_install_into_another_users_home_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    home = tmp_path / "alice"
    settings = home / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_bytes(ORIGINAL)
    for path in (home, settings.parent, settings):
        os.chown(path, 1000, 1000)
    assert main(["install", "claudecode", "--root", str(home)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("Error: ") and "runs as root" in err and "run it as that user" in err
    assert settings.read_bytes() == ORIGINAL and os.stat(settings).st_uid == 1000
    assert not (home / ".elydora").exists()


@pytest.mark.parametrize("depth", [1_000, 100_000])
@pytest.mark.parametrize("provider", ["claudecode", "codex"])
def test_deeply_nested_settings_end_in_one_error_line(
    tmp_path: Path, provider: str, depth: int, capsys: pytest.CaptureFixture[str]
) -> None:
    home = tmp_path / "home"
    if provider == "claudecode":
        settings, text = home / ".claude" / "settings.json", '{"x":\n' + "[" * depth + "]" * depth + "}\n"
    else:
        settings, text = home / ".codex" / "config.toml", 'model = "o3"\nx = ' + "[" * depth + "]" * depth + "\n"
    settings.parent.mkdir(parents=True)
    settings.write_text(text)
    assert main(["install", provider, "--root", str(home)]) == 1
    err = capsys.readouterr().err
    assert err == f"Error: {settings}: nesting deeper than {MAX_NESTING} at line 2\n"
    assert settings.read_text() == text


def test_deeply_nested_install_manifest_ends_in_one_error_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    (home / ".claude" / "settings.json").write_bytes(ORIGINAL)
    assert main(["install", "claudecode", "--root", str(home)]) == 0
    manifest = home / ".elydora" / "claudecode" / "install-manifest.json"
    manifest.write_text('{"a": ' + "[" * 100_000 + "]" * 100_000 + "}")
    capsys.readouterr()
    assert main(["uninstall", "claudecode", "--root", str(home)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"Error: {manifest}: install manifest is unreadable") and err.count("\n") == 1


def test_uninstalling_what_was_never_installed_leaves_the_home_as_it_was(
    root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Nothing to remove: no state directory, no lock, so that a read-only home is no error either."""
    home = root / "home"
    (home / ".claude").mkdir()
    (home / ".claude" / "settings.json").write_bytes(ORIGINAL)
    assert main(["uninstall", "--all", "--root", str(home)]) == 0
    out = capsys.readouterr().out
    assert "claudecode: not installed (nothing to remove)" in out
    assert sorted(p.name for p in home.rglob("*")) == [".claude", "settings.json"]
    assert (home / ".claude" / "settings.json").read_bytes() == ORIGINAL
