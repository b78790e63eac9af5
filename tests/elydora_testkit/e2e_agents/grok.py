"""Grok Build (PyPI ``grok-cli-bin``, xAI's wheel with the ``grok`` binary): chat completions through a
``[model.fake]`` table in ``~/.grok/config.toml``; a camelCase payload."""

from __future__ import annotations

from typing import Any

from elydora_testkit.e2e_agents.shape import DENIAL_WITH_REASON, Agent, Json, member, write_text
from elydora_testkit.e2e_harness import Sandbox


def _configure(sb: Sandbox, port: int) -> None:
    write_text(sb.home / ".grok" / "config.toml", (
        "[model.fake]\n"
        'model = "fake-model"\n'
        f'base_url = "http://127.0.0.1:{port}/v1"\n'
        'api_key = "e2e-dummy-key"\n'
        'api_backend = "chat_completions"\n'
    ))


def _env(sb: Sandbox, port: int) -> dict[str, str]:
    return {
        "GROK_TELEMETRY_ENABLED": "0",
        "GROK_DISABLE_AUTOUPDATER": "1",
        "GROK_AUTO_UPDATE": "0",
        "GROK_ERROR_REPORTING": "0",
        "GROK_FEEDBACK_ENABLED": "0",
    }


def _command(payload: Json) -> Any:
    return (payload.get("toolInput") or {}).get("command")


ROW = Agent(
    id="grok", name="Grok Build", shell_tool="run_terminal_command", hook_tool="run_terminal_command",
    post_keys=frozenset({"hookEventName", "sessionId", "cwd", "workspaceRoot", "timestamp", "transcriptPath",
                         "permissionMode", "toolName", "toolUseId", "toolInput", "toolResult",
                         "toolInputTruncated", "toolResultTruncated", "isBackgrounded"}),
    configure=_configure, env=_env,
    argv=lambda exe: [exe, "-p", "Run echo hello", "-m", "fake", "--always-approve", "--output-format", "json"],
    config_files=(".grok/hooks", ".grok/config.toml"),
    # the guard's stdout {"decision":"deny","reason":...} wins over its stderr line: "Hook denied: <reason>"
    block_feedback=DENIAL_WITH_REASON, denial_text="Hook denied: ",
    deny_reason=lambda agent_id: f'Agent "{agent_id}" is frozen in Elydora.',
    post_event_ok=lambda payload: payload.get("hookEventName") == "post_tool_use",
    payload_tool=member("toolName"), payload_command=_command, payload_call_id=member("toolUseId"),
)
