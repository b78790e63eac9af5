"""The stdin an agent sends its hook for one event: the agent's sample from ``verify_payloads.json``, else a
minimal event of the common shape (what ``elydora verify`` probes with and ``elydora hooks sample`` prints)."""

from __future__ import annotations

import json
from functools import cache
from typing import Any

from . import packagedata
from .pathtext import as_agents_read

SESSION = "elydora-verify"


@cache
def _samples() -> dict[str, Any]:
    text = packagedata.read_text("verify_payloads.json")
    payloads: dict[str, Any] = json.loads(text)["payloads"]
    return payloads


def _fill(value: Any, cwd: str) -> Any:
    if isinstance(value, str):
        return value.replace("{cwd}", cwd)
    if isinstance(value, dict):
        return {k: _fill(v, cwd) for k, v in value.items()}
    if isinstance(value, list):
        return [_fill(v, cwd) for v in value]
    return value


def payload(provider: str, event: str, cwd: str) -> bytes:
    """The agent's stdin for a probe: its sample for the event, else a minimal event of the common shape."""
    sample = _samples().get(provider, {}).get(event)
    if sample is None:
        sample = {"hook_event_name": event, "session_id": SESSION, "cwd": "{cwd}", "tool_name": "Bash"}
        sample["tool_input"] = {"command": "true"}
    return json.dumps(_fill(sample, as_agents_read(cwd)), ensure_ascii=False).encode("utf-8")
