"""The runtime of ``--scope system``: generated for every user, failing closed, provisioning on first use."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from elydora_cli import identity, managed
from elydora_cli.runtime import flush
from elydora_cli.runtime.generate import generate
from elydora_cli.runtime.provision import provision
from elydora_cli.statefiles import SPOOL


def test_template_copies_of_the_system_scope_constants_are_pinned() -> None:
    from elydora_cli.runtime.templates import guard as guard_template
    from elydora_cli.runtime.templates import hook as hook_template
    from elydora_cli.runtime.templates import policy as policy_template

    assert policy_template.USER_SEPARATOR == managed.USER_SEPARATOR
    assert policy_template.POLICY_USERS == managed.POLICY_USERS
    assert policy_template.SYSTEM_STATUS == managed.SYSTEM_STATUS
    assert hook_template.PROVISION_FLAG == flush.PROVISION_FLAG
    assert guard_template.STATUSES == identity.STATUSES  # system_status ranks by this order: most restrictive last
    for template in (guard_template, hook_template):  # both are handed the policy module by the launcher
        assert "POLICY" in template.__annotations__ and "POLICY" not in vars(template)
    assert "RUNTIME" in policy_template.__annotations__ and "RUNTIME" not in vars(policy_template)


def test_system_runtime_is_shared_read_only_and_fails_closed(tmp_path: Path) -> None:
    directory = tmp_path / "usr/local/lib/elydora/claudecode"
    user = generate("claudecode", tmp_path / ".elydora/claudecode", "/usr/bin/python3")
    system = generate("claudecode", directory, "/usr/bin/python3", user_root=str(tmp_path))
    assert {name: mode for name, (_, mode) in system.items()} == {
        "guard.py": managed.LAUNCHER_MODE,
        "hook.py": managed.LAUNCHER_MODE,
        "_elydora_guard.py": managed.MODULE_MODE,
        "_elydora_audit.py": managed.MODULE_MODE,
        "_elydora_policy.py": managed.MODULE_MODE,
    }
    assert "_elydora_policy.py" not in user
    guard = system["_elydora_guard.py"][0].decode()
    assert "SYSTEM = True" in guard and f"USER_ROOT = {str(tmp_path)!r}" in system["_elydora_policy.py"][0].decode()
    assert "FAILURE_EXIT = 2" in guard  # Claude Code fails open in user scope; under system scope a failure blocks
    assert "FAILURE_EXIT = 0" in user["_elydora_guard.py"][0].decode()
    assert "FAILURE_EXIT = 2" in system["guard.py"][0].decode()  # the launcher too, if the module cannot load
    assert "FAILURE_EXIT = 0" in system["hook.py"][0].decode()  # the audit keeps the agent's own failure mode


def test_provision_adopts_the_spool_and_refuses_other_leftovers(tmp_path: Path) -> None:
    state = tmp_path / ".elydora" / managed.user_dir_name("codex", "alice")
    state.mkdir(parents=True, mode=0o700)
    (state / SPOOL).write_bytes(b'\n1 {"tool_name": "shell"}\n')
    assert provision(str(state), "codex") is True
    config = identity.read_config(state)
    assert (config.agent_id, config.agent_name, config.base_url) == ("codex@alice", "codex", None)
    assert provision(str(state), "codex") is False  # an existing identity is kept
    other = tmp_path / ".elydora" / managed.user_dir_name("codex", "bob")
    other.mkdir(mode=0o700)
    (other / identity.LEDGER).write_text("")
    with pytest.raises(identity.IdentityError, match="holds state of an earlier agent"):
        provision(str(other), "codex")
    assert not (other / identity.CONFIG).exists()


def test_flush_main_parses_the_provision_flag(tmp_path: Path) -> None:
    state = tmp_path / ".elydora" / "claudecode@carol"
    state.mkdir(parents=True, mode=0o700)
    lock = os.open(state / "flush.lock", os.O_RDWR | os.O_CREAT, 0o600)  # handed over: the flusher closes it
    code = flush.main([str(state), flush.LOCK_FD_FLAG, str(lock), flush.PROVISION_FLAG, "claudecode"])
    assert code == 0 and identity.read_config(state).agent_id == "claudecode@carol"
    assert flush.main([str(state), flush.PROVISION_FLAG]) == 2
