"""One rule for agent ids: the installer, the agent commands and the hook path refuse the same names."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from elydora_cli import identity, statefiles
from elydora_cli.neutral import agentstate
from elydora_config.errors import ConfigError

REFUSED = ["transactions", "Transactions", ".elydora", ".x", " x", "../x", "a/b", "", "ab\udcff"]


@pytest.mark.parametrize("agent_id", REFUSED)
def test_every_path_refuses_the_same_agent_ids(agent_id: str, tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as by_identity:
        identity.check_agent_id(agent_id)
    with pytest.raises(ConfigError) as by_hook:
        agentstate.agent_directory(str(tmp_path), agent_id)
    assert by_hook.value.message == by_identity.value.message


def test_a_safe_agent_id_names_its_directory(tmp_path: Path) -> None:
    assert identity.check_agent_id is statefiles.check_agent_id
    expected = str(tmp_path / ".elydora" / "work-codex")
    assert agentstate.agent_directory(str(tmp_path), "work-codex") == expected


def _elydora(*argv: str | bytes, stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "elydora_cli", *argv], input=stdin, capture_output=True, timeout=60, check=False
    )


def test_hook_refuses_the_journal_folder_as_an_agent_like_agent_show(tmp_path: Path) -> None:
    journal = tmp_path / ".elydora" / "transactions"
    journal.mkdir(parents=True, mode=0o700)
    (journal / "config.json").write_text("{}")  # whatever the folder holds, it is never read as an agent
    event = json.dumps({"hook_event_name": "PreToolUse", "tool_name": "Bash"}).encode()
    hook = _elydora("hook", "--provider", "codex", "--agent-id", "transactions", "--root", str(tmp_path), stdin=event)
    show = _elydora("agent", "show", "--agent-id", "transactions", "--root", str(tmp_path))
    reason = b"agent id 'transactions' is reserved for the state directory's own files"
    assert show.returncode == 2 and reason in show.stderr  # an invalid --agent-id is a usage error
    assert reason in hook.stderr, hook.stderr  # Codex's guard fails open: exit 0, the reason on stderr
    assert sorted(p.name for p in journal.iterdir()) == ["config.json"]  # nothing spooled into the journal


@pytest.mark.parametrize(
    "command", [["install", "claude"], ["status", "claude"], ["agent", "freeze", "claude"], ["audit", "tail", "claude"]]
)
def test_an_agent_id_that_is_no_utf8_is_one_error_line(tmp_path: Path, command: list[str]) -> None:
    done = _elydora("--root", str(tmp_path), *command, "--agent-id", b"ab\xff")
    reason = b"Error: --agent-id: agent id 'ab\\xff' is not UTF-8 text (the agent's config files name it"
    assert done.returncode == 2 and done.stderr.startswith(reason) and done.stderr.count(b"\n") == 1, done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == []
