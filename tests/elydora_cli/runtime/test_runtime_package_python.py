"""``install --python`` with an interpreter that lacks the package (issue 27, item 6).

Install advises venv and pipx users to pass ``--python /usr/bin/python3``; that interpreter cannot import the
flusher, so before issue 27 every event stayed spooled, unsigned, while verify said audit OK and status said
healthy for about 60 s, then "unaudited" without naming the cause. The hooks now start the flusher and the
refresher with the interpreter that ran the install (``PACKAGE_PYTHON``); the flusher's boot code logs an
interpreter that cannot import it, and status names that at once; under system scope, where every user runs
the flusher with the hooks' own interpreter, install runs that interpreter and refuses it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from elydora_testkit import system_root
from elydora_testkit.runtime_helpers import make_agent, no_flusher_running, wait_until

from elydora_cli import health, identity
from elydora_cli.runtime.generate import generate, package_python

BARE = "/usr/bin/python3"
"""A system interpreter without the package (the one install's advice names)."""


def _bare() -> str:
    if not os.path.isfile(BARE):
        pytest.skip(f"{BARE} is not installed")
    if subprocess.run([BARE, "-I", "-c", "import elydora_cli"], capture_output=True, timeout=30).returncode == 0:
        pytest.skip(f"{BARE} has elydora_cli: it is not an interpreter without the package")
    return BARE


CLAUDE_POST = {"hook_event_name": "PostToolUse", "transcript_path": "/t", "session_id": "s", "tool_name": "Write"}


def test_hooks_run_by_a_bare_interpreter_still_get_their_events_signed(tmp_path: Path) -> None:
    """On main the bare interpreter itself ran `-m elydora_cli.runtime.flush`: nothing was ever signed."""
    python = _bare()
    directory = tmp_path / ".elydora" / "claudecode"
    agent = make_agent(tmp_path, "claudecode")  # identity, then the runtime generated for the bare interpreter
    for name, (data, mode) in generate("claudecode", directory, python).items():
        (directory / name).write_bytes(data)
        (directory / name).chmod(mode)
    hook = subprocess.run([python, "-I", "-S", str(directory / "hook.py")], input=json.dumps(CLAUDE_POST).encode(),
                          capture_output=True, timeout=30)  # fmt: skip
    assert hook.returncode == 0, hook.stderr
    ledger = agent.path(identity.LEDGER)
    assert wait_until(lambda: ledger.exists() and b'"Write"' in ledger.read_bytes() and no_flusher_running(agent))


def test_the_background_interpreter_is_the_installing_one_in_user_scope_and_the_hooks_one_in_system_scope() -> None:
    assert package_python("/usr/bin/python3", False) == os.path.abspath(sys.executable)
    assert package_python("/usr/bin/python3", True) == "/usr/bin/python3"


def test_status_names_a_flusher_that_cannot_start_at_once(tmp_path: Path) -> None:
    """On main an interpreter without the package failed silently: status stayed healthy for 60 s, then said
    "unaudited" without the cause."""
    python = _bare()
    agent = make_agent(tmp_path, "codex")
    namespace: dict[str, object] = {}
    source = agent.path("_elydora_audit.py").read_text()
    start = source.index("FLUSH_BOOT = (")
    exec(source[start : source.index("\n)\n", start) + 3], namespace)  # the generated boot code alone
    boot = str(namespace["FLUSH_BOOT"]).format(path=[])
    line = b'\n%d {"tool_name": "Bash"}\n' % (int(__import__("time").time() * 1000))
    agent.path(identity.SPOOL).write_bytes(line)
    agent.path(identity.SPOOL).chmod(0o600)
    done = subprocess.run([python, "-I", "-S", "-c", boot, str(agent.directory)], capture_output=True, timeout=30)
    assert done.returncode == 1
    found = health.check(str(agent.directory))
    assert not found.audited
    assert any("cannot start the flusher" in p and python in p for p in found.audit.problems)


def test_system_scope_refuses_an_interpreter_that_cannot_run_the_flusher(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Under system scope every user's flusher runs with the hooks' interpreter: install tries it and refuses."""
    python = _bare()
    assert system_root.system(tmp_path, "install", "claude", "--python", python) == 2
    err = capsys.readouterr().err
    assert f"--python {python}: cannot run the flusher" in err and "No module named" in err
    assert not system_root.layer(tmp_path, "claudecode").exists()
