"""Claude Code installed with ``--hook-command``, its entries run by other agents (Grok Build, Copilot CLI).

Those agents drop ``args`` or run ``command`` as a shell string, so the entries name the argument-free
launcher ``supervisor.py``: it does the runtime's host check, then becomes the supervisor with its words. The
supervisor here is the ``elydora`` CLI itself, which honours verify's scratch state, so every run really answers.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest
from elydora_testkit.crossload import CLAUDE_ENV, COPILOT_PAYLOAD, GROK_ENV, installed_frozen, run_entry
from elydora_testkit.provider_cases import installed_commands, make_context, payload, run_as_agent
from locations import CAPTURED_PAYLOADS

from elydora_cli.installer import operations
from elydora_cli.neutral.hookcommand import quote_word
from elydora_cli.plug.context import Context
from elydora_cli.runtime import stubs

COPILOT_CLAUDE_PAYLOAD = (CAPTURED_PAYLOADS / "copilot-claude-PreToolUse.json").read_bytes()


def _supervisor(tmp_path: Path) -> str:
    script = tmp_path / "bin" / "elydora-supervisor"
    script.parent.mkdir(exist_ok=True)
    script.write_text(f'#!/bin/sh\nexec {quote_word(sys.executable)} -m elydora_cli "$@"\n')
    script.chmod(0o755)
    return f"env SUP_MARK=1 {quote_word(str(script))} hook --state-root {quote_word(str(tmp_path / 'home'))}"


def _installed(tmp_path: Path) -> tuple[Context, dict[str, list[str]], Path]:
    """claudecode installed with a supervisor, frozen in a verify scratch directory (the supervisor spools there)."""
    return installed_frozen(tmp_path, hook_command=_supervisor(tmp_path))


def _spooled(scratch: Path) -> list[bytes]:
    spool = scratch / "spool.jsonl"
    return [line for line in spool.read_bytes().splitlines() if line] if spool.exists() else []


def test_the_entries_name_the_launcher_alone(tmp_path: Path) -> None:
    ctx, argvs, _ = _installed(tmp_path)
    launcher = ctx.agent_dir("claudecode") / "supervisor.py"
    assert argvs == {"guard": [str(launcher)], "audit": [str(launcher)]}  # nothing an agent can drop
    settings = json.loads((ctx.home / ".claude" / "settings.json").read_text())
    assert {h["hooks"][0]["command"] for groups in settings["hooks"].values() for h in groups} == {str(launcher)}
    assert launcher.read_bytes().startswith(f"#!{sys.executable} -IS\n".encode())
    assert launcher.stat().st_mode & 0o777 == 0o700


def test_claude_code_itself_is_guarded_and_audited_by_the_supervisor(tmp_path: Path) -> None:
    _, argvs, scratch = _installed(tmp_path)
    code, out, err = run_entry(argvs["guard"], payload("claudecode", "PreToolUse"), scratch, CLAUDE_ENV)
    assert (code, out) == (2, b"") and b'Agent "claudecode" is frozen' in err  # the supervisor's native answer
    before = len(_spooled(scratch))  # `elydora hook` records the refused event too
    code, _, _ = run_entry(argvs["audit"], payload("claudecode", "PostToolUse"), scratch, CLAUDE_ENV)
    assert code == 0 and len(_spooled(scratch)) == before + 1
    assert b'"hook_event_name": "PostToolUse"' in _spooled(scratch)[-1]


@pytest.mark.parametrize("shell", ["/bin/sh", "bash"])
@pytest.mark.parametrize(
    ("data", "env"),
    [
        (payload("grok", "PreToolUse"), GROK_ENV),  # Grok: camelCase envelope, GROK_HOOK_EVENT for every hook
        (COPILOT_PAYLOAD, {"COPILOT_PROJECT_DIR": "/tmp"}),  # Copilot: camelCase payload with true/null inside
        (COPILOT_CLAUDE_PAYLOAD, {"COPILOT_PROJECT_DIR": "/tmp"}),  # what Copilot 1.0.102 sends Claude entries
    ],
    ids=["grok", "copilot", "copilot-claude-shaped"],
)
def test_another_agent_running_the_entry_without_args_changes_nothing(
    tmp_path: Path, shell: str, data: bytes, env: dict[str, str]
) -> None:
    """Before the launcher, the bare supervisor exited 2 here: every Grok tool call was denied."""
    if shutil.which(shell) is None:
        pytest.skip(f"{shell} is not installed")
    _, argvs, scratch = _installed(tmp_path)
    for role in ("guard", "audit"):
        assert run_entry([shell, "-c", argvs[role][0]], data, scratch, env) == (0, b"", b""), role
    assert _spooled(scratch) == []


@pytest.mark.parametrize("env", [GROK_ENV, {"COPILOT_PROJECT_DIR": "/tmp"}])
def test_claude_codes_own_event_reaches_the_supervisor_whatever_the_environment_says(
    tmp_path: Path, env: dict[str, str]
) -> None:
    """Issue 27: a variable of another agent in Claude Code's settings `env` block made the launcher skip
    Claude Code's own events (a frozen agent ran every tool, nothing recorded)."""
    _, argvs, scratch = _installed(tmp_path)
    code, _, err = run_entry(argvs["guard"], payload("claudecode", "PreToolUse"), scratch, {**CLAUDE_ENV, **env})
    assert code == 2 and b'Agent "claudecode" is frozen' in err
    assert len(_spooled(scratch)) == 1  # `elydora hook` records the refused event


@pytest.mark.parametrize("planted", ["ELYDORA_VERIFY_STATE", "ELYDORA_VERIFY_PROBE"])
def test_a_planted_variable_never_lifts_a_freeze_of_the_supervisor(tmp_path: Path, planted: str) -> None:
    """Issue 27: the supervisor (`elydora hook` behind the launcher) honoured ELYDORA_VERIFY_STATE from the
    environment the agent gives its hooks: a directory with an "active" status.json lifted the freeze and took
    the record. A value that names no fresh probe of verify is ignored and logged."""
    ctx, argvs, _ = _installed(tmp_path)
    agent_dir = ctx.agent_dir("claudecode")
    (agent_dir / "status.json").write_bytes(b'{"status": "frozen"}\n')
    outside = tmp_path / "outside"
    outside.mkdir(mode=0o700)
    (outside / "status.json").write_bytes(b'{"status": "active"}\n')
    (outside / "status.json").chmod(0o600)
    value = str(outside) if planted == "ELYDORA_VERIFY_STATE" else "ab" * 16
    done = run_as_agent(argvs["guard"], payload("claudecode", "PreToolUse"), {**CLAUDE_ENV, planted: value})
    assert done.returncode == 2 and b'Agent "claudecode" is frozen' in done.stderr
    recorded = b"".join(p.read_bytes() for p in (agent_dir / "spool.jsonl", agent_dir / "ledger.jsonl") if p.exists())
    assert b"PreToolUse" in recorded and not (outside / "spool.jsonl").exists()  # spooled, or already signed


def test_a_large_event_reaches_the_supervisor_through_a_pipe_too(tmp_path: Path) -> None:
    """Without ``memfd_create`` the event goes through a pipe a child feeds: more than a pipe buffer holds."""
    _, argvs, scratch = _installed(tmp_path)
    event = json.loads(payload("claudecode", "PostToolUse"))
    event["tool_response"] = {"stdout": "x" * (300 << 10)}
    data = json.dumps(event).encode()
    script = f"import posix, runpy\ndel posix.memfd_create\nrunpy.run_path({argvs['audit'][0]!r}, run_name='__main__')"
    code, _, err = run_entry([sys.executable, "-I", "-S", "-c", script], data, scratch, CLAUDE_ENV)
    assert code == 0, err
    assert [len(line) > len(data) for line in _spooled(scratch)] == [True]  # the whole event, spooled once


def test_a_missing_supervisor_is_reported_and_fails_open(tmp_path: Path) -> None:
    _, argvs, scratch = _installed(tmp_path)
    (tmp_path / "bin" / "elydora-supervisor").unlink()
    code, out, err = run_entry(argvs["guard"], payload("claudecode", "PreToolUse"), scratch, CLAUDE_ENV)
    assert (code, out) == (0, b"") and b"[Elydora guard] cannot start the supervisor" in err


def test_status_uninstall_and_a_reinstall_without_the_supervisor(tmp_path: Path) -> None:
    ctx, _, _ = _installed(tmp_path)
    settings = ctx.home / ".claude" / "settings.json"
    launcher = ctx.agent_dir("claudecode") / "supervisor.py"
    assert operations.status("claudecode", ctx).findings == []
    launcher.write_text(launcher.read_text().replace("'hook'", "'hooks'"))  # the launcher is checked byte for byte
    assert any("supervisor.py" in f.render() for f in operations.status("claudecode", ctx).findings)
    plain = ctx.with_options(hook_command=None)
    operations.install("claudecode", plain)  # back to the runtime: its launchers, the supervisor's retired
    assert not launcher.exists() and "supervisor.py" not in settings.read_text()
    operations.install("claudecode", ctx)
    operations.uninstall("claudecode", plain)  # the manifest remembers the supervisor
    assert not settings.exists()
    # a session started before the uninstall still runs the launcher: it is now an inert stub (allow, no record)
    assert stubs.stub_time(launcher) is not None
    for data in (payload("claudecode", "PreToolUse"), COPILOT_CLAUDE_PAYLOAD):
        assert run_as_agent([str(launcher)], data).returncode == 0


def test_without_a_usable_shebang_the_entries_run_the_launcher_through_the_interpreter(tmp_path: Path) -> None:
    """An interpreter path with a space cannot be a ``#!`` line: the entries keep ``<python> -I -S <launcher>``
    (as the runtime's do), and are still recognised, checked and removed as ours."""
    spaced = tmp_path / "my python" / "python3"
    spaced.parent.mkdir()
    spaced.symlink_to(sys.executable)
    ctx = make_context(tmp_path, hook_command=_supervisor(tmp_path)).with_options(python=str(spaced))
    operations.install("claudecode", ctx)
    launcher = ctx.agent_dir("claudecode") / "supervisor.py"
    argvs = {tuple(argv) for _, _, argv in installed_commands("claudecode", ctx)}
    assert argvs == {(str(spaced), "-I", "-S", str(launcher))}
    assert operations.status("claudecode", ctx).findings == []
    operations.uninstall("claudecode", ctx)
    assert not (ctx.home / ".claude" / "settings.json").exists() and stubs.stub_time(launcher) is not None


def test_on_windows_the_entries_run_the_supervisor_itself(tmp_path: Path) -> None:
    """The launcher is POSIX-only, like the runtime: a Windows install keeps the supervisor's own words."""
    from elydora_cli.plug.ownership import AUDIT, Ref
    from elydora_cli.providers import claudecode

    ctx = make_context(tmp_path, hook_command=_supervisor(tmp_path), provider="claudecode", windows=True)
    handler = claudecode.make_handler(Ref("claudecode", AUDIT, ctx.python, 10), ctx)
    assert [handler["command"], *handler["args"]][:2] == ["env", "SUP_MARK=1"]
    assert handler["args"][-2:] == ["--provider", "claudecode"]
    assert claudecode.extra_runtime(ctx, "claudecode") == {}
