"""``elydora demo``: every step holds for every agent; a broken step, or a foreign directory, is exit 1."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from elydora_testkit.platforms import split_command_line

from elydora_cli.demo import sandbox, tour
from elydora_cli.installer import verify
from elydora_cli.main import main
from elydora_cli.providers import implemented_ids

ROW = re.compile(r"^(\w+) +\| (\S+) +\| (\S+) +\| (\S+) +\| (\S+)$")


def table(out: str) -> dict[str, tuple[str, ...]]:
    return {m.group(1): m.groups()[1:] for line in out.splitlines() if (m := ROW.match(line)) and m.group(1) != "agent"}


def test_every_agent_allows_records_blocks_and_uninstalls_identically(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["demo", str(tmp_path / "demo")])
    out, err = capsys.readouterr()
    assert code == 0, out + err
    assert "agent" in out and "| allow | record | block | uninstall identical" in out
    assert table(out) == {pid: ("ok", "ok", "ok", "ok") for pid in implemented_ids()}
    assert len(implemented_ids()) == 22
    assert out.rstrip().splitlines()[-2] == "every step held"
    home = tmp_path / "demo" / "home"
    assert sandbox.snapshot(home) == {
        rel: (data, sandbox.MODES.get(rel, sandbox.DEFAULT_MODE)) for rel, data in sandbox.seeds().items()
    }
    assert re.search(r'claudecode +PreToolUse +exit 2 \[Elydora guard\] Agent "claudecode" is frozen', out)
    assert re.search(r"claudecode +audit verify: \d+ signed entries, chain OK; newest: #\d+ ", out)


def test_a_step_that_does_not_hold_is_exit_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    real = verify.judge

    def no_block(probe: verify.Probe, *rest: object) -> str | None:
        return "the guard let the call through" if probe.kind == "block" else real(probe, *rest)  # type: ignore[arg-type]

    monkeypatch.setattr(verify, "judge", no_block)
    code = main(["demo", str(tmp_path / "demo"), "claude", "gemini"])
    out, _ = capsys.readouterr()
    assert code == 1
    assert table(out) == {"claudecode": ("ok", "ok", "FAIL", "ok"), "gemini": ("ok", "ok", "FAIL", "ok")}
    assert "claudecode: block: PreToolUse: the guard let the call through" in out
    assert "some steps did not hold" in out


def test_an_earlier_demo_is_replaced_and_a_foreign_directory_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first = sandbox.prepare(str(tmp_path / "demo"))
    (first.home / "stray").write_text("from the last run")
    again = sandbox.prepare(str(tmp_path / "demo"))
    assert not (again.home / "stray").exists() and (again.home / ".claude" / "settings.json").is_file()
    foreign = tmp_path / "mine"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("keep me")
    code = main(["demo", str(foreign)])
    _, err = capsys.readouterr()
    refusal = "is not empty and holds no earlier demo; give an empty or new directory"
    assert code == 1 and err == f"Error: {foreign}: {refusal}\n"
    assert sorted(p.name for p in foreign.iterdir()) == ["notes.txt"]


def test_a_directory_that_is_not_utf8_is_refused_before_anything_is_made(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The agents could not run a hook under it: one ``Error:`` line showing its bytes, nothing created."""
    folder = os.fsdecode(os.fsencode(tmp_path) + b"/d\xe9mo")
    code = main(["demo", folder, "claude"])
    out, err = capsys.readouterr()
    assert (code, out) == (1, "")
    assert err.startswith(f"Error: {tmp_path}/d\\xe9mo: is not valid UTF-8: the agents read paths as UTF-8 text")
    assert os.listdir(tmp_path) == []


def test_the_sandbox_environment_is_restored(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", "/elsewhere")
    with tour.sandbox_environment("/sandbox/home"):
        import os

        assert os.environ["HOME"] == "/sandbox/home" and "CLAUDE_CONFIG_DIR" not in os.environ
    import os

    assert os.environ["CLAUDE_CONFIG_DIR"] == "/elsewhere"


def test_an_agent_whose_runner_is_missing_is_not_applicable(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    empty = tmp_path / "bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))  # no node: Cline's hook files and the plugin modules cannot run
    code = main(["demo", str(tmp_path / "demo"), "cline", "claude", "opencode", "kilo"])
    out, _ = capsys.readouterr()
    assert code == 0
    assert table(out) == {
        "cline": ("n/a", "n/a", "n/a", "ok"),
        "claudecode": ("ok", "ok", "ok", "ok"),
        "opencode": ("n/a", "n/a", "n/a", "ok"),
        "kilo": ("n/a", "n/a", "n/a", "ok"),
    }
    assert "hooks executed here for 1 agents; n/a for 3:" in out
    assert re.search(r"^  cline, opencode, kilo: cannot run node \(", out, re.MULTILINE)
    assert out.rstrip().splitlines()[-2] == "every step that could run held"


def test_the_demo_ends_saying_where_its_sandbox_is_kept(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import json
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    code = main(["demo", "claude"])
    out, _ = capsys.readouterr()
    (root,) = tmp_path.iterdir()
    assert code == 0 and root.name.startswith("elydora-demo-") and (root / "home" / ".claude").is_dir()
    assert out.rstrip().splitlines()[-1] == (
        f"the sandbox is kept in {root} (its home: {root / 'home'}): look around, then delete that folder, "
        f"or run `elydora demo {root}` to build it again there"
    )
    code = main(["demo", str(root), "claude", "--json"])
    report = json.loads(capsys.readouterr().out)
    assert code == 0 and (report["sandbox"], report["home"], report["kept"]) == (str(root), str(root / "home"), True)


def test_the_commands_the_demo_shows_are_quoted_for_a_shell(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "my sandbox 'x'"
    assert main(["demo", str(root), "claude"]) == 0
    out = capsys.readouterr().out
    install = re.search(r"^\$ (elydora install .*)   -> exit 0$", out, re.MULTILINE)
    assert install is not None
    assert split_command_line(install[1]) == ["elydora", "install", "--every", "--root", str(root / "home")]
    shown = re.search(r"or run `([^`]+)` to build it again there$", out.rstrip())
    assert shown is not None and split_command_line(shown[1]) == ["elydora", "demo", str(root)]


def test_a_directory_whose_path_holds_a_backslash_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Four agents could not load their module below it: every row would fail, for a reason the table hides."""
    folder = tmp_path / "back\\slash"
    code = main(["demo", str(folder), "claude"])
    out, err = capsys.readouterr()
    assert (code, out) == (1, "")
    assert err == (f"Error: {folder}: holds a backslash: the demo installs every agent, and Cline, OpenCode, Kilo "
                   "and Pi could not load their module below it (docs/providers.md); choose another folder\n")
    assert os.listdir(tmp_path) == []


def test_a_sandbox_path_with_a_newline_is_shown_on_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = tmp_path / "new\nline"
    assert main(["demo", str(root), "claude"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith(f"sandbox: {tmp_path}/new\\nline  (home {tmp_path}/new\\nline/home, ")
    assert lines[-1].endswith(f"or run `elydora demo $'{tmp_path}/new\\nline'` to build it again there")


def test_powershell_that_cannot_run_a_script_is_named_as_the_reason() -> None:
    """No ``powershell.exe`` here: the demo's PowerShell rows would be ``n/a`` with this reason."""
    reason = tour.powershell_missing({"SystemRoot": "C:\\Windows"})
    assert reason is not None
    assert reason.startswith("PowerShell is not executed here: C:\\Windows\\System32\\WindowsPowerShell\\v1.0\\")
