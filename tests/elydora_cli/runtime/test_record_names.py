"""The session and tool names of an audit record, from each agent's own keys (OpenCode's, Kilo's and Pi's included)."""

from __future__ import annotations

import json

import pytest
from locations import PAYLOADS

from elydora_cli.runtime import record


@pytest.mark.parametrize("agent", ["opencode", "kilo"])
def test_the_plugin_agents_native_keys_name_session_and_tool(agent: str) -> None:
    event = json.loads((PAYLOADS / f"{agent}-tool.execute.after.json").read_bytes())
    assert record.session_of(event) == "ses_4f2a9c1e7d"
    assert record.tool_of(event) == "bash"


def test_pis_event_names_session_and_tool() -> None:
    """Pi's ``tool_result`` event names the tool ``toolName``; our extension adds the session as ``session_id``."""
    event = json.loads((PAYLOADS / "pi-tool_result.json").read_bytes())
    assert (record.session_of(event), record.tool_of(event)) == ("01a24a1e-5c0d-7b1f-8e7a-3f9d2c4b6a10", "bash")


def test_the_earlier_keys_still_come_first() -> None:
    event = {"session_id": "s1", "sessionID": "s2", "tool_name": "Read", "tool": "read"}
    assert (record.session_of(event), record.tool_of(event)) == ("s1", "Read")
    assert (record.session_of({}), record.tool_of({"tool": 3})) == ("unknown", "3")
