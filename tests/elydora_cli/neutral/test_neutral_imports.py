"""What ``elydora hooks capabilities`` and ``elydora hook`` load (``-X importtime`` in a subprocess), and the
runtime facts the neutral package restates to avoid loading the key library (pinned equal here)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from elydora_cli import identity
from elydora_cli.neutral import agentstate, audit
from elydora_cli.runtime.templates import guard as guard_template
from elydora_cli.runtime.templates import hook as hook_template

EDITORS = ("elydora_config.jsonc", "elydora_config.toml", "tomlkit", "tomllib", "tomli")
SLOW = ("cryptography", "elydora_cli.identity", "elydora_cli.runtime", "elydora_cli.providers")


def _imported(*argv: str, stdin: bytes = b"") -> tuple[int, bytes, set[str]]:
    run = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "elydora_cli", *argv],
        input=stdin,
        capture_output=True,
        timeout=60,
        check=False,
    )
    names = {
        line.rsplit("|", 1)[1].strip() for line in run.stderr.decode().splitlines() if line.startswith("import time:")
    }
    return run.returncode, run.stdout, names


def _loaded(names: set[str], prefixes: tuple[str, ...]) -> list[str]:
    return sorted(n for n in names if any(n == p or n.startswith(p + ".") for p in prefixes))


def test_capabilities_loads_no_editor_and_nothing_of_the_hook_path() -> None:
    code, out, names = _imported("hooks", "capabilities")
    assert code == 0 and json.loads(out)["hook_contracts"][0]["selector"] == "neutral-v1"
    assert "elydora_cli.neutral.capabilities" in names  # the measurement sees our modules
    assert _loaded(names, EDITORS + SLOW) == []
    hook_path = ("elydora_cli.neutral.engine", "elydora_cli.neutral.request", "elydora_cli.neutral.agentstate")
    assert _loaded(names, hook_path) == []


def test_hook_loads_no_editor_and_no_key_library(tmp_path: Path) -> None:
    agent = ["--state-root", str(tmp_path)]
    subprocess.run(
        [sys.executable, "-m", "elydora_cli", "agent", "create", "--provider", "codex", *agent],
        check=True,
        capture_output=True,
    )
    request = b'{"provider": "codex", "hook_event_name": "PreToolUse", "tool_name": "Bash"}'
    code, out, names = _imported("hook", "--contract", "neutral-v1", *agent, stdin=request)
    assert code == 0 and json.loads(out)["decision"] == "allow"
    assert "elydora_cli.neutral.engine" in names
    assert _loaded(names, EDITORS + SLOW) == []


def test_restated_runtime_facts_match_the_runtime() -> None:
    assert agentstate.FILE_LIMIT == guard_template.FILE_LIMIT
    assert agentstate.CACHE_TTL == guard_template.CACHE_TTL
    assert agentstate.STATUSES == guard_template.STATUSES == identity.STATUSES
    assert agentstate.CONFIG_KEYS == guard_template.CONFIG_KEYS
    assert agentstate.agent_directory("/r", "a") == f"/r/{identity.STATE_DIR_NAME}/a"
    assert (agentstate.CONFIG, agentstate.STATUS, agentstate.STATUS_CACHE) == (
        identity.CONFIG,
        identity.STATUS,
        identity.STATUS_CACHE,
    )
    assert (agentstate.REFRESH_LOCK, audit.SPOOL, audit.FLUSH_LOCK) == (
        identity.REFRESH_LOCK,
        identity.SPOOL,
        identity.FLUSH_LOCK,
    )
    assert audit.spool_line(b'{"a":\r\n1}', 1700000000123) == hook_template.spool_line(b'{"a":\r\n1}', 1700000000123)
    from elydora_cli.neutral.contract import MAX_INPUT_BYTES
    from elydora_cli.runtime.spool import EVENT_LIMIT

    assert guard_template.STDIN_LIMIT == MAX_INPUT_BYTES == 1 << 20  # what a decision reads of the event
    assert hook_template.EVENT_LIMIT == EVENT_LIMIT  # what the audit hook spools whole (docs/runtime.md, "Gaps")


_FLAT_SAMPLES = [
    '{"status": "active"}',
    ' {"a": null, "b": true, "c": false, "d": -1.5e3, "e": "x\\u00e9\\n"} ',
    "{}",
    '{"a": 1, "a": 2}',
    '{"a": {"b": 1}}',
    '{"a": [1]}',
    '{"a": NaN}',
    '{"a": 01}',
    '{"a": 1} x',
    '["a"]',
    '{"a": "\x01"}',
    '{"a" 1}',
]
_json_scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=5))
_flat = st.dictionaries(st.text(max_size=4), _json_scalars, max_size=4).map(json.dumps)


@pytest.mark.parametrize("text", _FLAT_SAMPLES)
def test_flat_object_reader_agrees_with_the_guard(text: str) -> None:
    _agree(text)


@given(st.one_of(_flat, st.text(alphabet='{}[]":, 01aenlrtu\\', max_size=16)))
def test_flat_object_reader_agrees_with_the_guard_on_generated_text(text: str) -> None:
    _agree(text)


def _agree(text: str) -> None:
    try:
        expected: object = guard_template.parse_flat_object(text)
    except (ValueError, IndexError):
        expected = ValueError
    try:
        actual: object = agentstate.parse_flat_object(text)
    except ValueError:
        actual = ValueError
    assert actual == expected
