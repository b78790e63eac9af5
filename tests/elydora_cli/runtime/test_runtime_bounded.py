"""Issue 13, hangs and losses in the hook runtime: FIFOs, a stdin never closed, oversized events, a full disk."""

from __future__ import annotations

import errno
import os
import subprocess
import time
from pathlib import Path

import pytest
from elydora_testkit.platforms import NO_SPECIAL_FILES, posix_only
from elydora_testkit.runtime_helpers import PYTHON, make_agent, no_flusher_running, wait_until

from elydora_cli.runtime import dropmark, runtime_argv, spool
from elydora_cli.runtime.templates import guard as guard_template
from elydora_cli.runtime.templates import hook as hook_template
from elydora_cli.runtime.templates import hookinput
from elydora_cli.runtime.templates import supervisor as supervisor_template

EVENT = b'{"hook_event_name": "PreToolUse", "transcript_path": "/t", "tool_name": "Bash", "session_id": "s"}'


def _open_stdin(agent_dir: Path, script: str, data: bytes) -> tuple[int, float]:
    """Run ``script`` with ``data`` on a stdin that is never closed; (exit code, seconds taken)."""
    read_end, write_end = os.pipe()
    started = time.monotonic()
    process = subprocess.Popen(runtime_argv(PYTHON, agent_dir / script), stdin=read_end, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)  # fmt: skip
    os.close(read_end)
    os.write(write_end, data)
    try:
        code = process.wait(timeout=20)
    finally:
        os.close(write_end)
    return code, time.monotonic() - started


@posix_only(NO_SPECIAL_FILES)
@pytest.mark.parametrize("name", ["status.json", "config.json"])
def test_hangs_fifo_state_file_does_not_hang_the_guard(tmp_path: Path, name: str) -> None:
    agent = make_agent(tmp_path, "cursor")  # Cursor's guard is fail-closed: a hang blocks every tool
    agent.path(name).unlink()
    os.mkfifo(agent.path(name), 0o600)
    started = time.monotonic()
    result = agent.run("guard.py", EVENT, timeout=20)
    assert time.monotonic() - started < 10 and b"regular file" in result.stderr


def test_hangs_guard_has_a_stdin_deadline(tmp_path: Path) -> None:
    agent = make_agent(tmp_path, "claudecode")
    code, took = _open_stdin(agent.directory, "guard.py", EVENT)
    assert code == 0 and took < hookinput.STDIN_DEADLINE + 5  # decided without waiting for EOF
    agent.set_local_status("frozen")
    assert _open_stdin(agent.directory, "guard.py", EVENT)[0] == 2


def test_hangs_audit_hook_has_a_stdin_deadline(tmp_path: Path) -> None:
    agent = make_agent(tmp_path, "claudecode")
    code, took = _open_stdin(agent.directory, "hook.py", EVENT)
    assert code == 0 and took < hookinput.STDIN_DEADLINE + 5
    assert wait_until(lambda: no_flusher_running(agent))  # the flusher may already have signed and retired it
    recorded = b"".join(agent.path(name).read_bytes() for name in ("spool.jsonl", "ledger.jsonl")
                        if agent.path(name).exists())  # fmt: skip
    assert b'"PreToolUse"' in recorded  # a complete event is still recorded


@pytest.mark.parametrize("script", ["guard.py", "hook.py"])
def test_hangs_oversized_stdin_is_drained_without_epipe(tmp_path: Path, script: str) -> None:
    agent = make_agent(tmp_path, "claudecode")
    big = b'{"x": "' + b"a" * (3 << 20) + b'"}'
    process = subprocess.Popen(runtime_argv(PYTHON, agent.directory / script), stdin=subprocess.PIPE,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    assert process.stdin is not None
    process.stdin.write(big)  # BrokenPipeError here would be the agent's EPIPE
    process.stdin.close()
    assert process.wait(timeout=20) == 0  # claudecode's audit failure mode and the guard's allow are both 0


def test_audit_losses_disk_full_drop_leaves_a_marker(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    agent = make_agent(tmp_path, "claudecode")

    def full(_line: bytes, _directory: str) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(hook_template, "WRITE_DIR", str(agent.directory))
    monkeypatch.setattr(hook_template, "AGENT_DIR", str(agent.directory))
    monkeypatch.setattr(hook_template, "append_spool", full)
    monkeypatch.setattr(hook_template, "read_stdin", lambda *_a, **_k: (EVENT, True, len(EVENT), None))
    monkeypatch.delenv(hookinput.PROBE_ENV.decode(), raising=False)
    assert hook_template.main() == hook_template.FAILURE_EXIT
    assert dropmark.pending_drops(str(agent.directory)) == 1


def test_hangs_a_late_start_still_reads_what_the_agent_wrote() -> None:
    """The deadline passed before the first read (a loaded machine scheduled the hook late): the bytes already
    waiting are the event, not a lost one. A deadline of zero is the latest start there can be."""
    read_end, write_end = os.pipe()
    saved = os.dup(0)
    try:
        os.write(write_end, EVENT)
        os.dup2(read_end, 0)
        data, closed, size, _ = hookinput.read_stdin(1 << 20, deadline=0.0)
        assert (data, closed, size) == (EVENT, False, len(EVENT))  # all of it, and the agent has not closed stdin
        os.close(write_end)
        assert hookinput.read_stdin(1 << 20, deadline=0.0)[:3] == (b"", True, 0)
    finally:
        os.dup2(saved, 0)
        for fd in (saved, read_end):
            os.close(fd)


def test_runtime_template_copies_are_equal() -> None:
    from elydora_cli.neutral.contract import MAX_INPUT_BYTES

    assert hook_template.DROP_PREFIX == dropmark.PREFIX
    assert hook_template.EVENT_LIMIT == spool.EVENT_LIMIT
    assert hookinput.STDIN_DEADLINE < 1.0  # below the 1 s minimum timeout
    assert supervisor_template.STDIN_LIMIT == MAX_INPUT_BYTES  # what elydora hook reads
    for template in (guard_template, hook_template, supervisor_template):  # one reader and host check, inlined
        assert template.read_stdin is hookinput.read_stdin and template.host_of is hookinput.host_of


@posix_only(NO_SPECIAL_FILES)
def test_hangs_fifo_error_log_does_not_hang_the_guard(tmp_path: Path) -> None:
    agent = make_agent(tmp_path, "cursor")
    agent.path("status.json").unlink()  # a failure, so the guard writes to error.log
    os.mkfifo(agent.path("error.log"), 0o600)
    started = time.monotonic()
    result = agent.run("guard.py", EVENT, timeout=20)
    assert time.monotonic() - started < 10 and b"status.json is missing" in result.stderr


@posix_only(NO_SPECIAL_FILES)
def test_hangs_fifo_ledger_does_not_hang_audit_verify(tmp_path: Path) -> None:
    from elydora_cli.main import main

    agent = make_agent(tmp_path, "claudecode")
    os.mkfifo(agent.path("ledger.jsonl"), 0o600)
    started = time.monotonic()
    code = main(["audit", "verify", "--provider", "claudecode", "--state-root", str(tmp_path)])
    assert code == 1 and time.monotonic() - started < 10
