"""``install --all`` installs only present agents, ``--every`` all of them; ``--json`` lists failures; the
summary names the files changed (a repair too); options the install was given are remembered."""

from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path

import pytest
from elydora_testkit.platforms import NO_LINKS, WINDOWS, posix_only

from elydora_cli import catalog
from elydora_cli.main import main
from elydora_cli.providers import implemented_ids


def cli(capsys: pytest.CaptureFixture[str], root: Path, *argv: str) -> tuple[int, str, str]:
    code = main([*argv, "--root", str(root / "home"), "--repo-root", str(root / "work")])
    out, err = capsys.readouterr()
    return code, out, err


def installed(root: Path) -> set[str]:
    state = root / "home" / ".elydora"
    return {p.parent.name for p in state.glob("*/install-manifest.json")} if state.is_dir() else set()


@pytest.fixture
def bare_path(root: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``PATH`` holding only an empty folder of our own (no agent executable of the machine is found)."""
    folder = root / "bin"
    folder.mkdir()
    monkeypatch.setenv("PATH", str(folder))
    return folder


def test_all_installs_only_the_agents_present(root: Path, bare_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (root / "home" / ".claude").mkdir()  # a config directory
    gemini = bare_path / ("gemini.cmd" if WINDOWS else "gemini")  # an executable on PATH (as npm installs it)
    gemini.write_text("#!/bin/sh\n")
    gemini.chmod(0o755)
    code, out, _ = cli(capsys, root, "install", "--all")
    assert code == 0 and installed(root) == {"claudecode", "gemini"}
    skipped = [line for line in out.splitlines() if ": skipped, " in line]
    assert len(skipped) == len(implemented_ids()) - 2
    codex_home = root / "home" / ".codex"
    assert f"codex: skipped, not found: no {codex_home} and no `codex` on PATH" in out
    code, out, _ = cli(capsys, root, "install", "--all", "--json")
    data = json.loads(out)
    assert {row["provider"] for row in data["skipped"]} == set(implemented_ids()) - {"claudecode", "gemini"}
    on_request = {pid for pid in implemented_ids() if catalog.provider(pid).on_request}
    assert on_request == {"kiroagent"}  # the Kiro CLI v2 custom agent: installed only when named
    assert all(row["reason"].startswith("not found: ") for row in data["skipped"] if row["provider"] not in on_request)
    assert [row["reason"] for row in data["skipped"] if row["provider"] in on_request] == [
        "installed only on request: name it to install it"
    ]


def test_a_named_agent_is_installed_anyway_and_every_installs_all(
    root: Path, bare_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli(capsys, root, "install", "codex")[0] == 0
    assert installed(root) == {"codex"}
    assert cli(capsys, root, "install", "--every")[0] == 0
    assert installed(root) == set(implemented_ids())


def test_json_lists_each_failure_with_provider_file_and_message(
    root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    settings = root / "home" / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text('{"model": ')
    code, out, err = cli(capsys, root, "install", "claudecode", "gemini", "--json")
    data = json.loads(out)
    assert code == 1 and [r["provider"] for r in data["results"]] == ["gemini"]
    [failure] = data["failures"]
    assert failure["provider"] == "claudecode" and failure["file"] == str(settings) and failure["message"]
    assert err.startswith("Error: claudecode: ")
    code, out, _ = cli(capsys, root, "install", "claudecode", "--json")  # one agent: still JSON
    assert code == 1 and json.loads(out)["failures"][0]["file"] == str(settings)
    code, out, _ = cli(capsys, root, "status", "claudecode", "--json")
    assert code == 1 and json.loads(out)["failures"][0]["provider"] == "claudecode"
    code = main(["agent", "show", "--provider", "codex", "--json", "--root", str(root / "home")])
    out, _ = capsys.readouterr()
    [failure] = json.loads(out)["failures"]
    assert code == 1 and failure["provider"] == "codex" and failure["file"].endswith("config.json")


def test_the_summary_names_the_files_changed_and_a_repair_is_a_change(
    root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    settings = root / "home" / ".claude" / "settings.json"
    code, out, _ = cli(capsys, root, "install", "claudecode")
    assert code == 0 and f"changed: {settings}, " in out
    assert cli(capsys, root, "install", "claudecode")[1].startswith("claudecode: installed for agent claudecode "
                                                                    "(already up to date)")
    guard = root / "home" / ".elydora" / "claudecode" / "guard.py"
    guard.unlink()
    code, out, _ = cli(capsys, root, "install", "claudecode", "--json")
    assert code == 0 and json.loads(out)["results"][0]["changed"] == [str(guard)]
    assert guard.is_file()
    if not WINDOWS:  # Windows keeps no execute bit
        assert stat.S_IMODE(guard.stat().st_mode) & 0o100


def test_remembered_options_survive_a_plain_reinstall(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    settings = root / "home" / ".claude" / "settings.json"
    assert cli(capsys, root, "install", "claudecode", "--hook-timeout-seconds", "45")[0] == 0
    assert cli(capsys, root, "install", "claudecode")[0] == 0
    timeouts = {h["timeout"] for groups in json.loads(settings.read_text())["hooks"].values() for g in groups
                for h in g["hooks"]}
    assert timeouts == {45}
    assert cli(capsys, root, "status", "claudecode")[0] == 0
    assert cli(capsys, root, "verify", "claudecode")[0] == 0
    assert cli(capsys, root, "install", "claudecode", "--hook-timeout-seconds", "10")[0] == 0  # explicit wins
    timeouts = {h["timeout"] for groups in json.loads(settings.read_text())["hooks"].values() for g in groups
                for h in g["hooks"]}
    assert timeouts == {10}
    manifest = json.loads((root / "home" / ".elydora" / "claudecode" / "install-manifest.json").read_text())
    assert manifest["timeout_seconds"] == 10 and os.path.isfile(settings)


def test_verify_all_checks_the_installed_agents_and_every_checks_all(
    root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Two agents whose Windows runners start our program themselves: under Wine, PowerShell is a stub.
    code, _, err = cli(capsys, root, "verify", "--all")
    assert code == 1 and err == "Error: no agent is installed here (see elydora status); nothing to verify\n"
    assert cli(capsys, root, "install", "claude", "qoder")[0] == 0
    code, out, _ = cli(capsys, root, "verify", "--all", "--json")
    assert code == 0 and {c["provider"] for c in json.loads(out)["checks"]} == {"claudecode", "qoder"}
    code, out, _ = cli(capsys, root, "verify", "--every", "--json")
    failures = json.loads(out)["failures"]
    assert code == 1 and {f["provider"] for f in failures} == set(implemented_ids()) - {"claudecode", "qoder"}
    assert all(f["message"].startswith("not installed (run: elydora install ") for f in failures)


def _hook_interpreters(root: Path) -> set[str]:
    manifest = json.loads((root / "home" / ".elydora" / "claudecode" / "install-manifest.json").read_text())
    first = (root / "home" / ".elydora" / "claudecode" / "guard.py").read_text().splitlines()[0]
    return {manifest["python"], first.removeprefix("#!").split()[0]}


@posix_only(NO_LINKS)
def test_a_chosen_python_is_remembered_by_a_later_install_all(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    chosen = root / "interpreter" / "python3"
    chosen.parent.mkdir()
    chosen.symlink_to(sys.executable)
    assert cli(capsys, root, "install", "claudecode", "--python", str(chosen))[0] == 0
    assert _hook_interpreters(root) == {str(chosen)}
    code, out, _ = cli(capsys, root, "install", "--all")
    assert code == 0 and "claudecode: installed" in out and _hook_interpreters(root) == {str(chosen)}
    assert cli(capsys, root, "status", "claudecode")[0] == 0
    chosen.unlink()  # gone: the next install says so and runs this interpreter instead
    code, out, _ = cli(capsys, root, "install", "claudecode")
    assert code == 0 and f"the interpreter the earlier install chose, {chosen}, is gone" in out
    assert _hook_interpreters(root) == {os.path.abspath(sys.executable)}


@posix_only(NO_LINKS)
def test_follow_symlinks_is_remembered_by_status_install_and_uninstall(
    root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dotfile = root / "dotfiles" / "claude-settings.json"
    dotfile.parent.mkdir()
    dotfile.write_text('{"model": "sonnet"}\n')
    link = root / "home" / ".claude" / "settings.json"
    link.parent.mkdir()
    link.symlink_to(dotfile)
    assert cli(capsys, root, "install", "claudecode", "--follow-symlinks")[0] == 0
    assert cli(capsys, root, "status", "claudecode") == (0, "claudecode   healthy\n", "")
    code, out, _ = cli(capsys, root, "install", "--all")
    assert code == 0 and "claudecode: installed" in out
    assert cli(capsys, root, "verify", "claudecode")[0] == 0
    code, out, _ = cli(capsys, root, "status", "claudecode", "--no-follow-symlinks")
    assert code == 1 and f"{link}: is a symbolic link" in out
    code, out, _ = cli(capsys, root, "uninstall", "--all")
    assert code == 0 and "claudecode: uninstalled" in out
    assert link.is_symlink() and dotfile.read_text() == '{"model": "sonnet"}\n'


@pytest.mark.parametrize("agent", ["opencode", "pi", "cline", "claudecode"])
def test_uninstall_removes_the_folders_the_install_created_once_empty(
    root: Path, capsys: pytest.CaptureFixture[str], agent: str
) -> None:
    home = root / "home"
    assert cli(capsys, root, "install", agent)[0] == 0
    created = json.loads((home / ".elydora" / agent / "install-manifest.json").read_text())["created_dirs"]
    assert created and all(Path(d).is_dir() and Path(d).is_relative_to(home) for d in created)
    assert cli(capsys, root, "uninstall", agent)[0] == 0
    assert sorted(p.name for p in home.iterdir()) == [".elydora"]


def test_uninstall_keeps_a_created_folder_that_holds_other_files(
    root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plugins = root / "home" / ".config" / "opencode" / "plugins"
    assert cli(capsys, root, "install", "opencode")[0] == 0
    (plugins / "theirs.js").write_text("export default {}\n")
    assert cli(capsys, root, "uninstall", "opencode")[0] == 0
    assert [p.name for p in plugins.iterdir()] == ["theirs.js"]


def test_uninstall_of_an_agent_never_installed_says_not_installed(
    root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli(capsys, root, "install", "gemini")[0] == 0
    code, out, _ = cli(capsys, root, "uninstall", "--all")
    lines = out.splitlines()
    assert code == 0 and "codex: not installed (nothing to remove)" in lines
    assert any(line.startswith("gemini: uninstalled for all agents (changed: ") for line in lines)
    assert sum(line.endswith("not installed (nothing to remove)") for line in lines) == len(implemented_ids()) - 1
