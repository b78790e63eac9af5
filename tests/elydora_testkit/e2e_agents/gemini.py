"""Gemini CLI: generateContent (streamGenerateContent, SSE) through its environment."""

from __future__ import annotations

from elydora_testkit.e2e_agents.shape import Agent, post_event_named, write_json
from elydora_testkit.e2e_harness import Sandbox


def _configure(sb: Sandbox, port: int) -> None:
    # Current key names: Gemini rewrites a file that uses deprecated ones (e.g. general.disableAutoUpdate).
    write_json(sb.home / ".gemini" / "settings.json", {
        "security": {"auth": {"selectedType": "gemini-api-key"}},
        "privacy": {"usageStatisticsEnabled": False},
        "telemetry": {"enabled": False},
        "general": {"enableAutoUpdate": False, "enableAutoUpdateNotification": False},
    })


def _env(sb: Sandbox, port: int) -> dict[str, str]:
    return {
        "GOOGLE_GEMINI_BASE_URL": f"http://127.0.0.1:{port}",
        "GEMINI_API_KEY": "e2e-dummy-key",
        "GEMINI_DEFAULT_AUTH_TYPE": "gemini-api-key",
        "GEMINI_CLI_TRUST_WORKSPACE": "true",
    }


ROW = Agent(
    id="gemini", name="Gemini CLI", shell_tool="run_shell_command", hook_tool="run_shell_command",
    post_keys=frozenset({"session_id", "transcript_path", "cwd", "hook_event_name", "timestamp", "tool_name",
                         "tool_input", "tool_response"}),
    configure=_configure, env=_env,
    argv=lambda exe: [exe, "-p", "Run echo hello", "--approval-mode", "yolo", "-m", "gemini-2.5-flash",
                      "-o", "json"],
    config_files=(".gemini/settings.json",),
    post_event_ok=post_event_named("AfterTool"),
)
