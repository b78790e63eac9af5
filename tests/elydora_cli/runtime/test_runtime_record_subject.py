"""The record's subject: the payload's session id, or for payloads without one (Letta Code) its directory."""

from __future__ import annotations

import json

import pytest
from locations import PAYLOADS

from elydora_cli.runtime.record import session_of


def _letta(event: str) -> dict[str, object]:
    """Letta Code's payload as 0.34 sends it: ``session_id`` is optional and absent in practice."""
    payload = json.loads((PAYLOADS / f"letta-{event}.json").read_text())
    del payload["session_id"]
    return dict(payload)


def test_a_session_id_wins() -> None:
    assert session_of({"session_id": "s-1", "working_directory": "/p"}) == "s-1"
    assert session_of({"sessionId": "s-2", "cwd": "/p"}) == "s-2"


@pytest.mark.parametrize("event", ["PreToolUse", "PostToolUse", "PostToolUseFailure"])
def test_letta_calls_in_one_directory_share_one_subject(event: str) -> None:
    payload = _letta(event)
    assert session_of(payload) == "dir:" + str(payload["working_directory"])
    other = dict(payload, tool_call_id="call-9", agent_id="agent-x", tool_input={"command": "pwd"})
    assert session_of(other) == session_of(payload)  # nothing that differs per call enters the subject
    assert session_of(dict(payload, working_directory="/elsewhere")) == "dir:/elsewhere"


def test_cwd_is_the_fallback_of_a_payload_without_working_directory() -> None:
    assert session_of({"cwd": "/w", "tool_name": "Bash"}) == "dir:/w"


@pytest.mark.parametrize("payload", [{}, {"working_directory": ""}, {"cwd": 3}, {"tool_name": "Bash"}])
def test_without_session_or_directory_the_subject_is_unknown(payload: dict[str, object]) -> None:
    assert session_of(payload) == "unknown"
