"""``elydora repair`` and its opt-in timer, in a test home (``--root``): a removed entry comes back, the run is
logged and shown by ``status``; the timer's files are what systemd, launchd and Task Scheduler read, and the
command they name restores a removed entry when it is run as they would run it."""

from __future__ import annotations

import json
import plistlib
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from elydora_testkit.systemd_units import exec_start

from elydora_cli import repairtimer
from elydora_cli.main import main
from elydora_cli.plug import layers
from elydora_cli.plug.context import Context


def cli(root: Path, capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    capsys.readouterr()
    code = main([*argv, "--root", str(root / "home")])
    return code, capsys.readouterr().out


def settings(root: Path) -> Path:
    return root / "home" / ".claude" / "settings.json"


def remove_guard(root: Path) -> None:
    """What an agent rewriting its settings, or a user, does: our PreToolUse entry is gone."""
    value = json.loads(settings(root).read_text())
    del value["hooks"]["PreToolUse"]
    settings(root).write_text(json.dumps(value, indent=2) + "\n")


def guarded(root: Path) -> bool:
    return "PreToolUse" in json.loads(settings(root).read_text()).get("hooks", {})


def log_lines(root: Path) -> list[dict[str, object]]:
    path = root / "home" / ".elydora" / "repair.log"
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_repair_restores_a_removed_entry_and_logs_it(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli(root, capsys, "install", "claude", "gemini")[0] == 0
    code, out = cli(root, capsys, "repair")
    assert code == 0 and out.startswith("nothing to restore (checked: claudecode, gemini)")
    remove_guard(root)
    assert cli(root, capsys, "status", "claude")[0] == 1
    code, out = cli(root, capsys, "repair", "--dry-run")
    assert code == 0 and "+" in out and "guard.py" in out and not guarded(root)  # the diff; nothing written
    code, out = cli(root, capsys, "repair")
    assert code == 0 and out == f"restored claudecode: {settings(root)}\n" and guarded(root)
    assert cli(root, capsys, "status", "claude")[0] == 0
    runs = log_lines(root)
    assert [r["restored"] for r in runs] == [{}, {"claudecode": [str(settings(root))]}]
    assert runs[-1]["checked"] == ["claudecode", "gemini"] and runs[-1]["errors"] == {}
    code, out = cli(root, capsys, "status", "claude")
    assert "repair: timer off" in out and "restored 1 file(s) of claudecode" in out


def test_an_uninstalled_agent_is_not_brought_back(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli(root, capsys, "install", "claude")[0] == 0
    assert cli(root, capsys, "uninstall", "claude")[0] == 0
    code, out = cli(root, capsys, "repair")
    assert code == 0 and "checked: no installed agent" in out and not settings(root).exists()


def test_what_repair_cannot_restore_is_logged_and_fails(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli(root, capsys, "install", "claude")[0] == 0
    settings(root).write_text('{"disableAllHooks": true}\n')  # the user switched every hook off: theirs to undo
    code, out = cli(root, capsys, "repair", "--json")
    doc = json.loads(out)
    assert code == 1 and not doc["ok"] and "disableAllHooks" in doc["errors"]["claudecode"]
    assert settings(root).read_text() == '{"disableAllHooks": true}\n'
    code, out = cli(root, capsys, "status", "claude", "--json")
    assert json.loads(out)["repair"]["last"]["errors"] == doc["errors"]


def _run_as_the_timer(argv: list[str], root: Path) -> subprocess.CompletedProcess[str]:
    env = {"PATH": "/usr/bin:/bin", "HOME": str(root / "home")}
    return subprocess.run(argv, capture_output=True, text=True, env=env, timeout=120, cwd=root)


def test_systemd_user_timer_runs_the_repair(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli(root, capsys, "install", "claude")[0] == 0
    code, out = cli(root, capsys, "repair", "--timer", "on")
    folder = root / "home" / ".config" / "systemd" / "user"
    service, timer = folder / "elydora-repair.service", folder / "elydora-repair.timer"
    assert code == 0 and "not activated under --root" in out and "systemctl --user enable --now" in out
    unit = service.read_text()
    assert "[Service]\nType=oneshot\n" in unit
    assert "OnCalendar=hourly\nPersistent=true\n" in timer.read_text()
    assert "[Install]\nWantedBy=timers.target\n" in timer.read_text()
    argv = exec_start(unit)
    assert argv == [sys.executable, "-m", "elydora_cli", "repair", "--quiet", "--root", str(root / "home")]
    code, out = cli(root, capsys, "status", "claude", "--json")
    assert json.loads(out)["repair"]["timer"] == {"kind": "systemd", "files": [str(service), str(timer)],
                                                  "command": argv}
    remove_guard(root)
    done = _run_as_the_timer(argv, root)
    assert done.returncode == 0 and done.stdout == "" and guarded(root), done.stderr
    assert log_lines(root)[-1]["restored"] == {"claudecode": [str(settings(root))]}
    code, out = cli(root, capsys, "repair", "--timer", "off")
    assert not service.exists() and not timer.exists() and "repair timer removed" in out
    assert "repair: timer off" in cli(root, capsys, "status", "claude")[1]


def test_a_systemd_unit_for_a_home_with_a_newline_a_dollar_or_a_percent_stays_one_exec_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A newline in ``ExecStart=`` would end the line (systemd refuses the unit) and ``$X`` would be expanded."""
    home = tmp_path / "new\nline $HOME 100% \x1b"
    home.mkdir()
    assert main(["repair", "--timer", "on", "--root", str(home)]) == 0
    out = capsys.readouterr().out
    unit = (home / ".config" / "systemd" / "user" / "elydora-repair.service").read_text()
    exec_lines = [line for line in unit.splitlines() if line.startswith("ExecStart=")]
    assert len(exec_lines) == 1 and exec_lines[0].endswith(
        '"--root" "' + str(tmp_path) + '/new\\nline $$HOME 100%% \\x1b"'
    )
    assert exec_start(unit)[-2:] == ["--root", str(home)]
    assert f"{tmp_path}/new\\nline $HOME 100% \\x1b/.config/systemd/user/elydora-repair.service" in out


def test_launchd_agent_runs_the_repair(root: Path, capsys: pytest.CaptureFixture[str],
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(layers, "on_macos", lambda: True)
    assert cli(root, capsys, "install", "claude")[0] == 0
    assert cli(root, capsys, "repair", "--timer", "on")[0] == 0
    agent = plistlib.loads((root / "home" / "Library" / "LaunchAgents" / "dev.elydora.repair.plist").read_bytes())
    assert agent["Label"] == "dev.elydora.repair" and agent["StartInterval"] == 3600 and agent["RunAtLoad"] is True
    remove_guard(root)
    done = _run_as_the_timer(agent["ProgramArguments"], root)
    assert done.returncode == 0 and guarded(root), done.stderr


def test_windows_task_runs_the_repair_hourly(tmp_path: Path) -> None:
    ctx = Context(home=tmp_path, state_root=tmp_path, repo_root=tmp_path, windows=True, rooted=True)
    made = repairtimer.timer(ctx, "C:\\Program Files\\Python313\\python.exe")
    (path, data), = made.files.items()
    assert path == tmp_path / ".elydora" / "repair-task.xml" and data.startswith(b"\xff\xfe")
    task = ET.fromstring(data.decode("utf-16").split("?>", 1)[1])
    ns = {"t": "http://schemas.microsoft.com/windows/2004/02/mit/task"}
    assert task.findtext("t:Triggers/t:LogonTrigger/t:Repetition/t:Interval", namespaces=ns) == "PT1H"
    assert task.findtext("t:Principals/t:Principal/t:RunLevel", namespaces=ns) == "LeastPrivilege"
    assert task.findtext("t:Actions/t:Exec/t:Command", namespaces=ns) == "C:\\Program Files\\Python313\\python.exe"
    arguments = task.findtext("t:Actions/t:Exec/t:Arguments", namespaces=ns)
    assert arguments == f"-m elydora_cli repair --quiet --root {tmp_path}"
    assert made.activate == [["schtasks", "/Create", "/TN", "Elydora repair", "/XML", str(path), "/F"]]


def test_the_timer_is_user_level_only(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["repair", "--timer", "on", "--scope", "system", "--root", str(root / "home")]) == 2
    assert "--timer is a user-level timer" in capsys.readouterr().err


def _timer_files(root: Path) -> tuple[Path, Path]:
    folder = root / "home" / ".config" / "systemd" / "user"
    return folder / "elydora-repair.service", folder / "elydora-repair.timer"


def _timer_status(root: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, list[str]]:
    code, out = cli(root, capsys, "status", "claude", "--json")
    return code, json.loads(out)["repair"]["problems"]


def test_a_timer_changed_outside_elydora_makes_status_unhealthy(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The timer runs as the user, so an agent could rewrite it to run anything (``elydora agent unfreeze`` after
    a freeze) under our name: status accepts only the bytes ``--timer on`` writes, and a record naming any other
    command; files with no record are named too."""
    assert cli(root, capsys, "install", "claude")[0] == 0
    assert cli(root, capsys, "repair", "--timer", "on")[0] == 0
    assert _timer_status(root, capsys) == (0, [])
    service, _ = _timer_files(root)
    original = service.read_text()
    service.write_text(original.replace('"repair" "--quiet"', '"agent" "unfreeze" "--provider" "claude"'))
    code, problems = _timer_status(root, capsys)
    assert code == 1 and problems == [
        f"the repair timer was changed outside elydora ({service}): it may run something other than elydora "
        "repair; run elydora repair --timer on (or --timer off)"]
    assert "the repair timer was changed outside elydora" in cli(root, capsys, "status", "claude")[1]
    record = root / "home" / ".elydora" / "repair-timer.json"
    doc = json.loads(record.read_text())
    doc["command"][3:5] = ["agent", "unfreeze"]  # the record made to agree with the edited unit
    record.write_text(json.dumps(doc))
    code, problems = _timer_status(root, capsys)
    assert code == 1 and len(problems) == 1 and "names a command elydora does not write" in problems[0]
    assert cli(root, capsys, "repair", "--timer", "on")[0] == 0  # written again, byte for byte
    assert service.read_text() == original and _timer_status(root, capsys) == (0, [])
    record.unlink()  # the record gone, the files left: status cannot say what they run
    code, problems = _timer_status(root, capsys)
    assert code == 1 and len(problems) == 1 and "elydora has no record of them" in problems[0]
    assert str(service) in problems[0]


EVENT = {"hook_event_name": "PreToolUse", "transcript_path": "/t.jsonl", "tool_name": "Bash", "session_id": "s"}


def _guard_exit(root: Path) -> int:
    guard = root / "home" / ".elydora" / "claudecode" / "guard.py"
    return subprocess.run([str(guard)], input=json.dumps(EVENT).encode(), capture_output=True, timeout=30).returncode


def test_repair_never_lifts_a_freeze(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """What the timer runs restores entries, never the agent's state: a frozen agent whose status.json is gone
    comes back frozen (from its signed history), and one whose status.json was rewritten to active stays
    reported as tampered (elydora agent freeze repairs that, not repair)."""
    assert cli(root, capsys, "install", "claude", "--python", sys.executable)[0] == 0
    assert cli(root, capsys, "agent", "freeze", "--provider", "claude")[0] == 0
    state = root / "home" / ".elydora" / "claudecode" / "status.json"
    remove_guard(root)
    state.unlink()
    assert cli(root, capsys, "repair")[0] == 0 and guarded(root)
    assert _guard_exit(root) == 2  # blocked: still frozen
    code, out = cli(root, capsys, "status", "claude", "--json")
    assert code == 1 and json.loads(out)["providers"][0]["state"] == "frozen"
    remove_guard(root)
    state.write_text(state.read_text().replace('"frozen"', '"active"'))
    assert cli(root, capsys, "repair")[0] == 0 and guarded(root)
    code, out = cli(root, capsys, "status", "claude", "--json")
    assert code == 1 and json.loads(out)["providers"][0]["state"] == "tampered"
