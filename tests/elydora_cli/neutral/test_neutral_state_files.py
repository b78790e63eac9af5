"""The neutral engine reads state files and appends spool records as the generated runtime does.

``neutral/agentstate.py`` and ``neutral/audit.py`` restate the templates' file rules (owner-only regular files of
at most 512 KiB, links not followed, the spool's inode check) because importing the runtime loads the key
library. These tests plant the same file in the same state for both and pin the outcomes equal: the bytes read,
or the refusal's message. A FIFO must be refused at once, never waited on.
"""

from __future__ import annotations

import os
import signal
import stat
from collections.abc import Callable, Iterator
from pathlib import Path
from types import FrameType

import pytest

from elydora_cli.neutral import agentstate, audit
from elydora_cli.runtime.templates import guard as guard_template
from elydora_cli.runtime.templates import hook as hook_template

NAME = "config.json"


def _regular(path: Path) -> None:
    path.write_bytes(b'{"agent_id": "a"}')
    path.chmod(0o600)


def _group_readable(path: Path) -> None:
    _regular(path)
    path.chmod(0o640)


def _too_large(path: Path) -> None:
    path.write_bytes(b" " * (guard_template.FILE_LIMIT + 1))
    path.chmod(0o600)


def _link(path: Path) -> None:
    target = path.with_name("elsewhere")
    _regular(target)
    path.symlink_to(target)


def _directory(path: Path) -> None:
    path.mkdir(mode=0o700)


def _fifo(path: Path) -> None:
    os.mkfifo(path, 0o600)


def _absent(path: Path) -> None:
    pass


STATES: dict[str, Callable[[Path], None]] = {
    "regular": _regular,
    "group-readable": _group_readable,
    "too large": _too_large,
    "a link": _link,
    "a directory": _directory,
    "a FIFO": _fifo,
    "absent": _absent,
}


class _Hung(Exception):
    pass


@pytest.fixture
def deadline() -> Iterator[None]:
    """Fail instead of hanging when an open waits (on a FIFO without a writer or reader)."""

    def hung(signum: int, frame: FrameType | None) -> None:
        raise _Hung

    previous = signal.signal(signal.SIGALRM, hung)
    signal.alarm(5)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def _outcome(call: Callable[[], object]) -> object:
    try:
        return call()
    except (guard_template.GuardError, hook_template.AuditError, agentstate.AgentStateError) as exc:
        return f"refused: {exc}"
    except OSError as exc:  # each side's caller reports it (the hook's describe, the engine's error)
        return f"refused: errno {exc.errno}"


def _agent_dir(root: Path) -> Path:
    directory = root / "agent"
    directory.mkdir(mode=0o700, parents=True)
    return directory


@pytest.mark.parametrize("state", list(STATES))
def test_a_state_file_is_read_or_refused_alike(tmp_path: Path, state: str, deadline: None) -> None:
    directory = _agent_dir(tmp_path)
    STATES[state](directory / NAME)
    expected = _outcome(lambda: guard_template.read_file(NAME, str(directory)))
    with agentstate.AgentDir(str(directory)) as agent:
        actual = _outcome(lambda: agent.read(NAME))
    assert actual == expected
    assert (expected == b'{"agent_id": "a"}') == (state == "regular")
    assert (expected is None) == (state == "absent")


@pytest.mark.parametrize("state", ["regular", "group-readable", "a link", "a directory", "a FIFO", "absent"])
def test_a_spool_record_is_appended_or_refused_alike(tmp_path: Path, state: str, deadline: None) -> None:
    runtime, neutral = _agent_dir(tmp_path / "runtime"), _agent_dir(tmp_path / "neutral")
    for directory in (runtime, neutral):
        STATES[state](directory / hook_template.SPOOL)
    line = hook_template.spool_line(b'{"tool": "Bash"}', 1700000000123)
    expected = _outcome(lambda: hook_template.append_spool(line, str(runtime)))
    with agentstate.AgentDir(str(neutral)) as agent:
        actual = _outcome(lambda: audit.append_event(agent, b'{"tool": "Bash"}', 1700000000123))
    assert _normalised(actual, neutral) == _normalised(expected, runtime)
    if state in ("regular", "absent"):
        spool = neutral / hook_template.SPOOL
        assert spool.read_bytes().endswith(line) and stat.S_IMODE(spool.stat().st_mode) == 0o600
    else:
        assert isinstance(expected, str) and expected.startswith("refused: ")


def _normalised(outcome: object, directory: Path) -> object:
    """The outcome with the agent directory's own path taken out (each side has its own directory)."""
    return outcome.replace(str(directory), "<dir>") if isinstance(outcome, str) else outcome
