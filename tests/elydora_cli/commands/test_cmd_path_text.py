"""Paths a Linux user can produce that are awkward as text: bytes that are not UTF-8 in an agent's variable or the
working directory, control characters (a newline, a tab) in the home, and a home near PATH_MAX.

A variable the agent would read as something else is refused for that agent in one ``Error:`` line showing its
bytes, no file changed; the other agents go on. A home with a newline works (the agents run the hooks under it),
and what is printed about it stays one line per fact, its advice a command a shell reads back.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from elydora_testkit.system_root import runtime, system

from elydora_cli.main import main

NOT_UTF8 = (
    "is not valid UTF-8: the agents read paths as UTF-8 text and would neither find their settings nor run a hook "
    "under it (rename it, or choose a path that is UTF-8)"
)


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def files_below(root: Path) -> dict[str, bytes]:
    return {str(p): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def odd_dir(root: Path, name: bytes) -> str:
    """A folder below ``root`` whose name is ``name`` (bytes), as Python hands it over."""
    path = os.fsdecode(os.fsencode(root) + b"/" + name)
    os.makedirs(path)
    return path


@pytest.mark.parametrize(
    ("variable", "provider", "below"),
    [
        ("CLAUDE_CONFIG_DIR", "claudecode", b".claude"),
        ("CODEX_HOME", "codex", b".codex"),
        ("XDG_CONFIG_HOME", "opencode", b""),
    ],
)
def test_an_agent_variable_that_is_not_utf8_is_refused_naming_it(
    root: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, variable: str, provider: str,
    below: bytes,
) -> None:
    home = root / "home"
    folder = odd_dir(root, b"caf\xe9/" + below if below else b"caf\xe9")
    monkeypatch.setenv(variable, folder)  # no --root: the value is used as it stands
    monkeypatch.setenv("HOME", str(home))
    before = files_below(root)
    code, out, err = cli(capsys, "install", provider)
    assert (code, out) == (1, "")
    shown = os.fsencode(folder).decode("utf-8", "backslashreplace")
    assert err == f"Error: {shown}: {NOT_UTF8}\n"
    assert files_below(root) == before and not (home / ".elydora").exists()


def test_status_reports_such_an_agent_as_an_error_and_checks_the_others(
    root: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    home = root / "home"
    (home / ".claude").mkdir()
    assert cli(capsys, "install", "claudecode", "--root", str(home))[0] == 0
    monkeypatch.setenv("XDG_CONFIG_HOME", odd_dir(root, b"caf\xe9"))
    code, out, err = cli(capsys, "status", "-v", "--root", str(home))
    assert (code, err) == (1, "")
    lines = out.splitlines()
    assert lines[0] == "claudecode   healthy"
    for provider in ("crush", "opencode", "kilo"):  # the agents that read XDG_CONFIG_HOME
        at = lines.index(f"{provider:<12} error")
        assert lines[at + 1] == f"  - {root}/caf\\xe9: {NOT_UTF8}"  # the value as set
    out.encode("utf-8")  # printable on a strict UTF-8 terminal
    code, out, _ = cli(capsys, "status", "opencode", "--json", "--root", str(home))
    failures = json.loads(out)["failures"]
    assert code == 1 and failures[0]["file"] == f"{root}/caf\\xe9"
    json.dumps(json.loads(out), ensure_ascii=False).encode("utf-8")  # no lone surrogate: valid for strict readers


def test_verify_from_a_working_directory_that_is_not_utf8_sends_what_the_agent_sends(
    root: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Node decodes the bytes it cannot read as U+FFFD: the probe's payload says the same, and every check runs."""
    home = root / "home"
    (home / ".claude").mkdir()
    monkeypatch.chdir(odd_dir(root, b"proj\xe9"))
    assert cli(capsys, "install", "claudecode", "--root", str(home))[0] == 0
    code, out, err = cli(capsys, "verify", "claudecode", "--root", str(home))
    assert (code, err) == (0, ""), out
    assert out.splitlines()[-1] == "all 4 checks passed"
    code, out, _ = cli(capsys, "hooks", "sample", "claudecode", "PreToolUse")
    assert code == 0 and json.loads(out)["cwd"] == f"{root}/proj\ufffd"


def test_a_home_with_a_newline_works_and_prints_one_line_per_fact(
    root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    home = root / "new\nline"
    (home / ".codex").mkdir(parents=True)
    code, out, err = cli(capsys, "install", "codex", "--root", str(home))
    assert (code, err) == (0, "")
    escaped = f"{root}/new\\nline"
    assert out.splitlines()[0].startswith(f"codex: installed for agent codex (changed: {escaped}/.codex/hooks.json")
    assert cli(capsys, "verify", "codex", "--root", str(home))[0] == 0  # the agent runs the hooks under it
    code, out, _ = cli(capsys, "status", "codex", "--root", str(home))
    lines = out.splitlines()
    assert lines[0] == "codex        awaiting approval"
    advice = lines[1]
    assert advice.startswith(f"  - {escaped}/.codex/config.toml: awaiting trust")
    command = advice.split("`")[1]
    assert command == f"elydora install codex --trust --root $'{root}/new\\nline'"
    words = command.split(" ", 4)[4]  # what follows `elydora install codex --trust`, as a shell reads it
    argv = subprocess.run(["bash", "-c", f'printf "%s\\0" {words}'], capture_output=True, check=True).stdout
    assert argv.split(b"\0")[:2] == [b"--root", os.fsencode(home)]  # the shell reads the path back
    code, out, _ = cli(capsys, "agent", "freeze", "--provider", "codex", "--root", str(home))
    assert (code, out) == (0, f"agent 'codex' is now frozen (changed: {escaped}/.elydora/codex/status.json)\n")


def test_a_home_so_deep_that_its_state_files_pass_path_max_is_reported_agent_by_agent(
    root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Near PATH_MAX (4096 bytes) the state files cannot be named: each agent's row says so, none aborts the run."""
    home = root
    while len(str(home)) < 3800:
        home /= "d" * 200
    home /= "e" * (4070 - len(str(home)) - 1)
    (home / ".claude").mkdir(parents=True)
    code, out, err = cli(capsys, "status", "--root", str(home))
    assert (code, err) == (1, "")
    lines = out.splitlines()
    assert len([line for line in lines if line[:1] != " "]) == 23  # 22 agents and the repair line
    assert "File name too long" in lines[lines.index("claudecode   error") + 1]
    assert lines[-1].startswith("  - the repair timer was not checked: ")
    assert lines[-1].endswith("/.config/systemd/user/elydora-repair.service: File name too long")
    assert os.listdir(home) == [".claude"]


def test_a_system_freeze_under_a_root_with_a_newline_prints_one_line(
    root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sysroot = root / "sys\nroot"
    sysroot.mkdir()
    assert system(sysroot, "install", "claude", "--python", sys.executable) == 0
    capsys.readouterr()
    assert system(sysroot, "agent", "freeze", "--provider", "claude") == 0
    out = capsys.readouterr().out
    policy = str(runtime(sysroot, "claudecode")).replace("\n", "\\n")
    assert out.count("\n") == 1
    assert out.startswith(f"agent 'claudecode' for every user is now frozen (changed: {policy}/")


def test_an_interpreter_whose_path_is_not_utf8_is_refused_before_anything_is_written(
    root: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--python``, or the Python running elydora (the default, and what the hooks' flusher runs)."""
    home = root / "home"
    (home / ".claude").mkdir()
    python = os.path.join(odd_dir(root, b"py\xe9"), "python3")
    os.symlink(sys.executable, python)
    shown = f"{root}/py\\xe9/python3"
    code, out, err = cli(capsys, "install", "claudecode", "--root", str(home), "--python", python)
    assert (code, out, err) == (2, "", f"Error: --python {shown}: {NOT_UTF8}\n")
    monkeypatch.setattr(sys, "executable", python)
    code, out, err = cli(capsys, "install", "claudecode", "--root", str(home))
    assert (code, out) == (2, "")
    assert err == f"Error: {shown}: {NOT_UTF8} (the Python running elydora: the hooks would start it)\n"
    assert os.listdir(home) == [".claude"] and os.listdir(home / ".claude") == []


NODE_LOADED = {  # the agents that load our generated module in Node: the file each one would load
    "cline": ".cline/hooks/PreToolUse.mjs",
    "opencode": ".config/opencode/plugins/elydora-audit.js",
    "kilo": ".config/kilo/plugins/elydora-audit.js",
    "pi": ".pi/agent/extensions/elydora-audit.js",
}
UNLOADABLE = "holds a backslash: the agent loads this file as a JavaScript module, which Node refuses"


def test_a_module_the_agent_could_not_load_from_a_path_with_a_backslash_is_refused(
    root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Real Cline 3.0.65 then ran the tool without our guard, and Pi 0.73.1 failed to load the extension, while
    status said healthy. Install refuses those agents, naming the file; the others install."""
    home = root / "back\\slash"
    home.mkdir()
    code, _, err = cli(capsys, "install", "--every", "--root", str(home))
    assert code == 1
    errors = [line for line in err.splitlines() if line.startswith("Error: ")]
    assert len(errors) == len(NODE_LOADED)
    for pid, rel in NODE_LOADED.items():
        assert any(line.startswith(f"Error: {pid}: {home}/{rel}: {UNLOADABLE}") for line in errors), pid
    for pid, rel in NODE_LOADED.items():
        assert not (home / rel).exists() and not (home / ".elydora" / pid).exists()
    assert (home / ".claude" / "settings.json").is_file()


def test_status_says_an_agent_that_cannot_load_our_module_there_is_unhealthy(
    root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plain, state = root / "plain", root / "state"
    plain.mkdir()
    state.mkdir()
    assert cli(capsys, "install", *NODE_LOADED, "--root", str(plain), "--state-root", str(state))[0] == 0
    home = plain.rename(root / "back\\slash")  # the same files, now below a folder whose name holds a backslash
    code, out, _ = cli(capsys, "status", *NODE_LOADED, "--root", str(home), "--state-root", str(state))
    assert code == 1
    lines = out.splitlines()
    for pid, rel in NODE_LOADED.items():
        at = lines.index(f"{pid:<12} unhealthy")
        assert lines[at + 1].startswith(f"  - {home}/{rel}: {UNLOADABLE}")
