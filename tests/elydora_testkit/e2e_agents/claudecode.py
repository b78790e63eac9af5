"""Claude Code: Anthropic Messages (SSE) through its environment."""

from __future__ import annotations

from elydora_testkit.e2e_agents.shape import Agent, member, no_config
from elydora_testkit.e2e_harness import Sandbox


def _env(sb: Sandbox, port: int) -> dict[str, str]:
    return {
        "ANTHROPIC_BASE_URL": f"http://127.0.0.1:{port}",
        "ANTHROPIC_API_KEY": "e2e-dummy-key",
        "DISABLE_TELEMETRY": "1",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_AUTOUPDATER": "1",
        "DISABLE_ERROR_REPORTING": "1",
    }


ROW = Agent(
    id="claudecode", name="Claude Code", shell_tool="Bash", hook_tool="Bash",
    post_keys=frozenset({"session_id", "transcript_path", "cwd", "prompt_id", "permission_mode", "effort",
                         "hook_event_name", "tool_name", "tool_input", "tool_response", "tool_use_id",
                         "duration_ms"}),
    configure=no_config, env=_env,
    argv=lambda exe: [exe, "-p", "Run echo hello", "--output-format", "json", "--allowedTools", "Bash"],
    config_files=(".claude/settings.json", ".claude/settings.local.json"),
    payload_call_id=member("tool_use_id"),
)
