"""Presence of the XDG agents (OpenCode, Kilo): their own folder below ``~/.config``, never ``~/.config`` itself."""

from __future__ import annotations

from pathlib import Path

from elydora_testkit.provider_cases import make_context

from elydora_cli import presence


def test_an_xdg_agent_is_its_own_folder(tmp_path: Path) -> None:
    ctx = make_context(tmp_path, dirs=(".config/nvim",)).with_options(env={"PATH": str(tmp_path / "no-bin")})
    assert presence.config_dir("opencode", ctx) == ctx.home / ".config" / "opencode"
    assert presence.absence("opencode", ctx) is not None  # ~/.config exists, OpenCode's folder does not
    (ctx.home / ".config" / "kilo").mkdir()
    assert presence.absence("kilo", ctx) is None


def test_xdg_config_home_moves_the_folder_and_kilo_config_dir_names_it(tmp_path: Path) -> None:
    ctx = make_context(tmp_path, {"XDG_CONFIG_HOME": "/xdg", "KILO_CONFIG_DIR": "/kilo-here"})
    assert presence.config_dir("opencode", ctx) == ctx.home / "xdg" / "opencode"
    assert presence.config_dir("kilo", ctx) == ctx.home / "kilo-here"


def test_on_windows_crush_and_hermes_are_their_folders_among_the_local_application_data(tmp_path: Path) -> None:
    ctx = make_context(tmp_path, {"PATH": str(tmp_path / "no-bin")}).with_options(windows=True)
    local = ctx.home / "AppData" / "Local"
    assert presence.config_dir("crush", ctx) == local / "crush"
    assert presence.config_dir("hermes", ctx) == local / "hermes"
    assert presence.config_dir("claudecode", ctx) == ctx.home / ".claude"
    assert presence.absence("hermes", ctx) is not None
    (local / "hermes").mkdir(parents=True)
    assert presence.absence("hermes", ctx) is None
    moved = make_context(tmp_path, {"CRUSH_GLOBAL_CONFIG": "/crush-here"}).with_options(windows=True)
    assert presence.config_dir("crush", moved) == moved.home / "crush-here"


def test_on_windows_a_variable_naming_no_usable_place_leaves_presence_to_the_catalog(tmp_path: Path) -> None:
    ctx = make_context(tmp_path, {"CODEX_HOME": "/nowhere", "CRUSH_GLOBAL_CONFIG": ""}).with_options(windows=True)
    assert presence.config_dir("codex", ctx) == ctx.home / "nowhere"
    assert presence.config_dir("crush", ctx) == ctx.home / ".config" / "crush"
