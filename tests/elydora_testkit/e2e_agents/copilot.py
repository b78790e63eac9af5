"""GitHub Copilot CLI: BYOK chat completions (SSE) through its environment; a camelCase payload."""

from __future__ import annotations

from typing import Any

from elydora_testkit.e2e_agents.shape import DENIAL_WITH_REASON, Agent, Json, member, no_config
from elydora_testkit.e2e_harness import Sandbox


def _env(sb: Sandbox, port: int) -> dict[str, str]:
    return {
        "COPILOT_OFFLINE": "true",
        "COPILOT_PROVIDER_BASE_URL": f"http://127.0.0.1:{port}/v1",
        "COPILOT_PROVIDER_API_KEY": "e2e-dummy-key",
        "COPILOT_MODEL": "gpt-4.1",
        "COPILOT_ALLOW_ALL": "true",
    }


def _command(payload: Json) -> Any:
    return (payload.get("toolArgs") or {}).get("command")


ROW = Agent(
    id="copilot", name="GitHub Copilot CLI", shell_tool="bash", hook_tool="bash",
    post_keys=frozenset({"sessionId", "timestamp", "cwd", "toolName", "toolArgs", "toolResult"}),
    configure=no_config, env=_env,
    argv=lambda exe: [exe, "-p", "Run echo hello", "--allow-all-tools", "--disable-client-telemetry",
                      "--no-auto-update", "-s"],
    config_files=(".copilot/hooks", ".copilot/settings.json", ".copilot/config.json"),
    # the guard prints {"permissionDecision": "deny", "permissionDecisionReason": <our line>} (docs/e2e.md)
    block_feedback=DENIAL_WITH_REASON, denial_text="Denied by preToolUse hook: ",
    post_event_ok=lambda payload: "toolResult" in payload,  # Copilot's payload has no event-name field
    payload_tool=member("toolName"), payload_command=_command,
)
