"""``--hook-command``: entries that run a supervisor instead of the Elydora runtime.

The supervisor in these tests is the ``elydora`` CLI itself (``<script> hook --state-root <home>``), so the
installed entries really answer: install, status, verify and uninstall round trips for Claude Code (its
supervisor launcher, exec form), Factory Droid and Cursor (shell strings) and Kimi (TOML), with the users' own
bytes restored.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from elydora_cli.main import main
from elydora_cli.neutral.hookcommand import quote_word
from elydora_cli.plug.cmdforms import posix_command

BEFORE = {
    "claudecode": (
        ".claude/settings.json",
        b'{\n  "model": "opus",\n  "hooks": {\n    "Stop": [\n      {"hooks": [{"type": "command", '
        b'"command": "/usr/bin/true"}]}\n    ]\n  }\n}\n',
    ),
    "droid": (
        ".factory/hooks.json",
        b'// my hooks\n{\n  "PreToolUse": [\n    {"matcher": "Execute", "hooks": '
        b'[{"type": "command", "command": "echo mine", "timeout": 5}]}, // keep\n  ],\n}\n',
    ),
    "cursor": (
        ".cursor/hooks.json",
        b'{\n  "version": 1,\n  "hooks": {\n    "stop": [\n      {"command": "echo bye"}\n    ]\n  }\n}\n',
    ),
    "kimi": (
        ".kimi-code/config.toml",
        b'# my Kimi settings\nmodel = "kimi-k2"\n\n[[hooks]]\nevent = "Stop"\ncommand = "echo done"\n',
    ),
}


@pytest.fixture
def supervisor(root: Path) -> str:
    """A hook command whose executable is the elydora CLI (``elydora hook`` honours verify's scratch state)."""
    script = root / "bin" / "elydora-supervisor"
    script.parent.mkdir()
    script.write_text(f'#!/bin/sh\nexec {quote_word(sys.executable)} -m elydora_cli "$@"\n')
    script.chmod(0o755)
    return f"{quote_word(str(script))} hook --state-root {quote_word(str(root / 'home'))}"


def cli(capsys: pytest.CaptureFixture[str], root: Path, *argv: str) -> tuple[int, str, str]:
    code = main([*argv, "--root", str(root / "home"), "--repo-root", str(root / "work")])
    out, err = capsys.readouterr()
    return code, out, err


def words(root: Path, provider: str, agent_id: str | None = None) -> list[str]:
    extra = ["--agent-id", agent_id] if agent_id else []
    script = str(root / "bin" / "elydora-supervisor")
    return [script, "hook", "--state-root", str(root / "home"), "--provider", provider, *extra]


def place(root: Path, provider: str) -> tuple[Path, bytes]:
    relative, data = BEFORE[provider]
    path = root / "home" / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path, data


@pytest.mark.parametrize("provider", sorted(BEFORE))
def test_install_status_verify_uninstall_round_trip(
    root: Path, supervisor: str, capsys: pytest.CaptureFixture[str], provider: str
) -> None:
    path, before = place(root, provider)
    assert cli(capsys, root, "install", provider, "--hook-command", supervisor)[0] == 0
    agent = root / "home" / ".elydora" / provider
    launcher = ["supervisor.py"] if provider == "claudecode" else []  # other agents run Claude's entries
    assert {p.name for p in agent.iterdir()} == {"config.json", "private.key", "status.json", "install-manifest.json",
                                                 *launcher}
    manifest = json.loads((agent / "install-manifest.json").read_text())
    assert manifest["hook_command"] == supervisor and manifest["runtime"] == launcher
    text = path.read_text()
    entry = json.dumps(str(agent / "supervisor.py")) if launcher else posix_command(words(root, provider))
    assert text.count(entry) == (2 if provider == "droid" else 3)
    code, out, _ = cli(capsys, root, "status", provider, "--hook-command", supervisor)
    assert (code, out.split()) == (0, [provider, "healthy"])
    code, out, _ = cli(capsys, root, "verify", provider, "--hook-command", supervisor)
    assert code == 0, out
    assert cli(capsys, root, "uninstall", provider, "--hook-command", supervisor)[0] == 0
    assert path.read_bytes() == before


def test_the_entries_are_the_supervisor_in_each_agents_form(
    root: Path, supervisor: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli(capsys, root, "install", "claudecode", "kimi", "copilot", "--hook-command", supervisor)[0] == 0
    claude = json.loads((root / "home" / ".claude" / "settings.json").read_text())
    launcher = root / "home" / ".elydora" / "claudecode" / "supervisor.py"  # it holds the supervisor's words
    assert f"ARGV = {tuple(words(root, 'claudecode'))!r}\n" in launcher.read_text()
    assert claude["hooks"]["PreToolUse"] == [
        {
            "hooks": [
                {
                    "type": "command",
                    "command": str(launcher),
                    "args": [],
                    "timeout": 10,
                    "statusMessage": "Checking Elydora agent state",
                }
            ]
        }
    ]
    kimi = (root / "home" / ".kimi-code" / "config.toml").read_text()
    assert f'event = "PreToolUse"\ncommand = "{posix_command(words(root, "kimi"))}"\ntimeout = 10\n' in kimi
    copilot = json.loads((root / "home" / ".copilot" / "hooks" / "elydora-audit.json").read_text())
    quoted = " ".join("'" + w + "'" for w in words(root, "copilot"))
    assert copilot["hooks"]["postToolUse"] == [
        {"type": "command", "bash": quoted, "powershell": f"& {quoted}; exit $LASTEXITCODE", "timeoutSec": 10}
    ]


def test_another_agent_id_is_passed_to_the_supervisor(
    root: Path, supervisor: str, capsys: pytest.CaptureFixture[str]
) -> None:
    flags = ("--hook-command", supervisor, "--agent-id", "team-a")
    assert cli(capsys, root, "install", "droid", *flags)[0] == 0
    hooks = (root / "home" / ".factory" / "hooks.json").read_text()
    assert posix_command(words(root, "droid", "team-a")) in hooks
    assert cli(capsys, root, "verify", "droid", *flags)[0] == 0
    assert cli(capsys, root, "status", "droid", *flags)[0] == 0
    cli(capsys, root, "uninstall", "droid", *flags)
    assert not (root / "home" / ".factory" / "hooks.json").exists()


def test_status_and_verify_keep_the_remembered_hook_command_and_refuse_another(
    root: Path, supervisor: str, capsys: pytest.CaptureFixture[str]
) -> None:
    cli(capsys, root, "install", "cursor", "--hook-command", supervisor)
    assert cli(capsys, root, "status", "cursor")[0] == 0  # the manifest remembers the supervisor
    assert cli(capsys, root, "verify", "cursor")[0] == 0
    code, out, _ = cli(capsys, root, "status", "cursor", "--no-hook-command")
    assert code == 1
    assert f"installed with --hook-command {supervisor!r}; pass the same --hook-command" in out
    code, out, _ = cli(capsys, root, "status", "cursor", "--hook-command", "/opt/other hook")
    assert code == 1 and f"installed with --hook-command {supervisor!r}, not '/opt/other hook'" in out
    code, out, _ = cli(capsys, root, "verify", "cursor", "--no-hook-command")
    assert code == 1 and "FAIL installed with --hook-command" in out
    cli(capsys, root, "install", "gemini")
    code, out, _ = cli(capsys, root, "status", "gemini", "--hook-command", supervisor)
    assert code == 1 and "installed without --hook-command" in out


def test_switching_between_runtime_and_supervisor_leaves_one_set(
    root: Path, supervisor: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path, before = place(root, "claudecode")
    agent = root / "home" / ".elydora" / "claudecode"
    cli(capsys, root, "install", "claudecode")
    assert (agent / "guard.py").exists()
    cli(capsys, root, "install", "claudecode", "--hook-command", supervisor)
    settings = json.loads(path.read_text())
    assert len(settings["hooks"]["PreToolUse"]) == 1 and not (agent / "guard.py").exists()
    assert not (agent / "_elydora_guard.py").exists()
    assert cli(capsys, root, "install", "claudecode", "--no-hook-command")[0] == 0  # supervisor entries replaced
    settings = json.loads(path.read_text())
    assert [g["hooks"][0]["command"] for g in settings["hooks"]["PreToolUse"]] == [str(agent / "guard.py")]
    assert cli(capsys, root, "status", "claudecode")[0] == 0
    assert cli(capsys, root, "uninstall", "claudecode")[0] == 0
    assert path.read_bytes() == before


def test_uninstall_leaves_look_alike_user_entries(
    root: Path, supervisor: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = root / "home" / ".claude" / "settings.json"
    path.parent.mkdir(parents=True)
    argv = words(root, "claudecode")
    mine = [
        {"type": "command", "command": argv[0], "args": [*argv[1:], "--verbose"], "timeout": 10},
        {"type": "command", "command": argv[0], "args": [*argv[1:4], "--provider", "codex"], "timeout": 10},
        {"type": "command", "command": argv[0], "args": argv[1:], "timeout": 10, "statusMessage": "mine"},
    ]
    before = json.dumps({"hooks": {"PreToolUse": [{"hooks": mine}]}}, indent=2).encode() + b"\n"
    path.write_bytes(before)
    cli(capsys, root, "install", "claudecode", "--hook-command", supervisor)
    assert json.loads(path.read_text())["hooks"]["PreToolUse"][0] == {"hooks": mine}
    cli(capsys, root, "uninstall", "claudecode", "--hook-command", supervisor)
    assert path.read_bytes() == before


def test_a_missing_supervisor_is_reported(root: Path, supervisor: str, capsys: pytest.CaptureFixture[str]) -> None:
    cli(capsys, root, "install", "letta", "--hook-command", supervisor)
    (root / "bin" / "elydora-supervisor").unlink()
    code, out, _ = cli(capsys, root, "status", "letta", "--hook-command", supervisor)
    assert code == 1 and f"the supervisor {root / 'bin' / 'elydora-supervisor'} does not exist" in out
    code, out, _ = cli(capsys, root, "verify", "letta", "--hook-command", supervisor)
    assert code == 1 and "allow  FAIL exit 127" in out


REFUSED = {
    "relative": ("nyar hook", "a relative executable ('nyar'); use an absolute path"),
    "operator": ("/opt/nyar hook; /bin/true", "more than one command (';')"),
    "substitution": ("env NYAR_HOME=$(pwd) /opt/nyar hook", "command substitution ('$(')"),
    "bare assignment": ("NYAR_HOME=/tmp /opt/nyar hook", "a bare assignment (NYAR_HOME=...)"),
    "sub-command": ("/opt/nyar run", "the sub-command must be `hook`, not 'run'"),
    "redirect": ("/opt/nyar hook > /tmp/log", "redirect"),
}


@pytest.mark.parametrize("verb", ["install", "uninstall", "status", "verify"])
@pytest.mark.parametrize("case", sorted(REFUSED))
def test_refused_commands_are_usage_errors(
    root: Path, capsys: pytest.CaptureFixture[str], verb: str, case: str
) -> None:
    command, reason = REFUSED[case]
    code, out, err = cli(capsys, root, verb, "codex", "--hook-command", command)
    assert code == 2 and out == ""
    assert err.startswith("Error: --hook-command: unsupported hook command: ") and reason in err
    assert list((root / "home").iterdir()) == []


def test_a_blank_command_is_required_text(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = cli(capsys, root, "install", "codex", "--hook-command", "  ")
    assert (code, err) == (2, "Error: --hook-command: hook command is required\n")


def test_cline_takes_no_hook_command(root: Path, supervisor: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = cli(capsys, root, "install", "cline", "--hook-command", supervisor)
    assert code == 2 and "cline: --hook-command does not apply" in err
    assert not (root / "home" / ".cline").exists()
    code, out, err = cli(capsys, root, "install", "--every", "--hook-command", supervisor)
    assert code == 0 and "cline: skipped, --hook-command does not apply" in out
    assert "cline: installed" not in out and not (root / "home" / ".cline").exists()
    code, out, _ = cli(capsys, root, "verify", "--every", "--hook-command", supervisor)
    lines = out.splitlines()
    assert code == 1 and [line for line in lines if " FAIL " in line] == [
        "cline       -                   -      FAIL not installed (run: elydora install cline)",
        "opencode    -                   -      FAIL not installed (run: elydora install opencode)",
        "kilo        -                   -      FAIL not installed (run: elydora install kilo)",
        "pi          -                   -      FAIL not installed (run: elydora install pi)",
    ]
