"""Pi (npm ``@mariozechner/pi-coding-agent``): chat completions (SSE) through a custom provider in
``~/.pi/agent/models.json``; our extension in ``~/.pi/agent/extensions/`` is loaded in Pi's own process.

The recorded event is Pi's own ``tool_result`` event (``type, toolName, toolCallId, input, content, isError``;
``details`` too where the tool gives any) with the handler context's ``cwd`` and session id beside it
(docs/providers.md, Pi).
"""

from __future__ import annotations

from elydora_testkit.e2e_agents.shape import Agent, Json, member, write_json
from elydora_testkit.e2e_harness import Sandbox


def _configure(sb: Sandbox, port: int) -> None:
    write_json(sb.home / ".pi" / "agent" / "models.json", {"providers": {"fake": {
        "baseUrl": f"http://127.0.0.1:{port}/v1", "api": "openai-completions", "apiKey": "e2e-dummy-key",
        "models": [{"id": "fake-model"}],
    }}})


def _env(sb: Sandbox, port: int) -> dict[str, str]:
    return {"PI_OFFLINE": "1", "PI_SKIP_VERSION_CHECK": "1", "PI_TELEMETRY": "0"}


def _command(payload: Json) -> object:
    return (payload.get("input") or {}).get("command")


ROW = Agent(
    id="pi", name="Pi", shell_tool="bash", hook_tool="bash",
    post_keys=frozenset({"hook_event_name", "cwd", "session_id", "type", "toolName", "toolCallId", "input",
                         "content", "isError"}),
    configure=_configure, env=_env,
    argv=lambda exe: [exe, "-p", "Run echo hello", "--provider", "fake", "--model", "fake-model"],
    config_files=(".pi/agent",),
    post_event_ok=lambda payload: payload.get("type") == "tool_result",
    payload_tool=member("toolName"),
    payload_command=_command,
    payload_call_id=member("toolCallId"),
)
