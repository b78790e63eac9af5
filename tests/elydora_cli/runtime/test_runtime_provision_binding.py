"""The runtime's side of a server binding: where root's binding record is, and first use refusing to replace
a bound identity that is gone (the flusher logs it; the events stay spooled)."""

from __future__ import annotations

import os
import pwd
from pathlib import Path

from elydora_cli import identity, managed
from elydora_cli.runtime import flush
from elydora_cli.runtime.provision import binding_record
from elydora_cli.statefiles import ERROR_LOG, SPOOL

ME = pwd.getpwuid(os.getuid())


def user_state(root: Path, agent: str) -> Path:
    return managed.user_home(ME.pw_dir, root) / ".elydora" / managed.user_dir_name(agent, ME.pw_name)


def test_binding_record_is_found_below_the_installs_root(tmp_path: Path) -> None:
    state = user_state(tmp_path, "codex")
    expected = managed.placed(managed.RUNTIME_ROOT, tmp_path) / "codex" / managed.BINDINGS / f"{ME.pw_name}.json"
    assert binding_record(str(state)) == str(expected)
    assert binding_record(str(managed.user_home(ME.pw_dir, None) / ".elydora" / state.name)) == (
        f"{managed.RUNTIME_ROOT}/codex/{managed.BINDINGS}/{ME.pw_name}.json"
    )
    assert binding_record(str(tmp_path / "elsewhere" / state.name)) is None  # not this user's system state
    assert binding_record(str(state.parent / "codex")) is None  # a user-scope state has no user part


def test_first_use_of_a_bound_user_whose_state_is_gone_logs_and_keeps_the_events(tmp_path: Path) -> None:
    state = user_state(tmp_path, "claudecode")
    state.mkdir(parents=True, mode=0o700)
    (state / SPOOL).write_bytes(b'\n1 {"tool_name": "Bash"}\n')
    record = Path(str(binding_record(str(state))))
    record.parent.mkdir(parents=True)
    record.write_text("{}\n")
    lock = os.open(state / "flush.lock", os.O_RDWR | os.O_CREAT, 0o600)
    assert flush.main([str(state), flush.LOCK_FD_FLAG, str(lock), flush.PROVISION_FLAG, "claudecode"]) == 1
    assert "has lost the server identity root provisioned" in (state / ERROR_LOG).read_text()
    assert not (state / identity.CONFIG).exists() and (state / SPOOL).read_bytes().endswith(b"Bash\"}\n")
    record.unlink()  # no binding: first use creates the local identity as before
    lock = os.open(state / "flush.lock", os.O_RDWR | os.O_CREAT, 0o600)
    assert flush.main([str(state), flush.LOCK_FD_FLAG, str(lock), flush.PROVISION_FLAG, "claudecode"]) == 0
    assert identity.read_config(state).is_local
