"""Issue 13: uninstall keeps running sessions working, and the hooks' interpreter is chosen and checked."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from elydora_testkit.platforms import NO_LINKS, posix_only, split_command_line

from elydora_cli.main import main
from elydora_cli.runtime import stubs

EVENT = json.dumps({"hook_event_name": "PreToolUse", "tool_name": "Bash", "session_id": "s"}).encode()


def cli(capsys: pytest.CaptureFixture[str], root: Path, *argv: str) -> tuple[int, str, str]:
    code = main([*argv, "--root", str(root / "home")])
    out, err = capsys.readouterr()
    return code, out, err


def test_uninstall_blocks_running_sessions(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli(capsys, root, "install", "claudecode")[0] == 0
    settings = json.loads((root / "home" / ".claude" / "settings.json").read_text())
    argv = [
        settings["hooks"]["PreToolUse"][0]["hooks"][0]["command"],
        *settings["hooks"]["PreToolUse"][0]["hooks"][0]["args"],
    ]
    code, out, _ = cli(capsys, root, "uninstall", "claudecode")
    assert code == 0 and "inert stubs" in out
    for script in ("guard.py", "hook.py"):  # what a session started before the uninstall still runs
        path = root / "home" / ".elydora" / "claudecode" / script
        run = subprocess.run([argv[0], "-I", "-S", str(path)], input=EVENT, capture_output=True, timeout=30)
        assert run.returncode == 0
    assert not (root / "home" / ".elydora" / "claudecode" / "spool.jsonl").exists()  # recorded nothing
    assert main(["status", "claudecode", "--root", str(root / "home")]) == 0
    assert "not installed" in capsys.readouterr().out
    assert cli(capsys, root, "uninstall", "claudecode")[0] == 0  # within the grace period: kept
    guard = root / "home" / ".elydora" / "claudecode" / "guard.py"
    assert guard.exists()
    old = guard.read_bytes().replace(
        str(stubs.stub_time(guard)).encode(), str(int(time.time()) - stubs.GRACE_SECONDS - 1).encode()
    )
    guard.write_bytes(old)
    assert cli(capsys, root, "uninstall", "claudecode")[0] == 0 and not guard.exists()


@posix_only(NO_LINKS)  # and a POSIX venv layout and a `#!/bin/sh` interpreter
def test_hooks_tied_to_a_venv_warn_and_python_flag(
    root: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "pyvenv.cfg").write_text("home = /usr/bin\n")
    python = venv / "bin" / "python3"
    python.symlink_to(os.path.realpath(sys.executable))
    code, out, _ = cli(capsys, root, "install", "gemini", "--python", str(python))
    assert code == 0 and "warning: " in out and "virtual environment" in out and "--python" in out
    assert str(python) in (root / "home" / ".gemini" / "settings.json").read_text()
    code, _, err = cli(capsys, root, "install", "gemini", "--python", str(tmp_path / "missing"))
    assert code == 2 and err.startswith("Error: --python")
    broken = tmp_path / "broken"
    broken.write_text("#!/bin/sh\nexit 3\n")
    broken.chmod(0o755)
    code, _, err = cli(capsys, root, "install", "gemini", "--python", str(broken))
    assert code == 2 and "exited 3" in err


def test_uninstall_with_another_state_root_says_success(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    other = root / "the state"
    assert cli(capsys, root, "install", "claudecode", "--state-root", str(other))[0] == 0
    settings = root / "home" / ".claude" / "settings.json"
    before = settings.read_bytes()
    code, out, _ = cli(capsys, root, "status", "claudecode", "--json")
    row = json.loads(out)["providers"][0]
    assert code == 1 and row["state"] == "other state root" and row["elsewhere"] == {str(other): ["claudecode"]}
    code, _, err = cli(capsys, root, "uninstall", "claudecode")
    advice = re.search(r"pass (--state-root .*) to uninstall them", err)
    assert code == 1 and err.startswith("Error: ") and advice is not None
    assert split_command_line(advice[1]) == ["--state-root", str(other)]  # pasted into this system's shell
    assert settings.read_bytes() == before  # refused: nothing changed, nothing claimed
    assert cli(capsys, root, "uninstall", "claudecode", "--state-root", str(other))[0] == 0
    code, out, _ = cli(capsys, root, "status", "claudecode")
    assert code == 0 and "not installed" in out
